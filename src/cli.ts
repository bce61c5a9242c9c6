#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { validateGrantInput, newKeyRow } from './api-keys/service.js';
import { ApiKeyRepo } from './api-keys/repo.js';
import { DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT, MIN_RATE_LIMIT } from '../schemas/identity.js';
import { ConfigError, loadConfig } from './config.js';
import { createContext } from './context.js';
import { AppError } from './errors.js';
import { OrganisationRepo } from './organisations/repo.js';
import { serve } from './server.js';
import { WorkspaceRepo } from './workspaces/repo.js';

const USAGE = `causa: the Causa service and its operator commands (DESIGN.md, Contracts)

  causa serve
  causa org create --name N
  causa key create --org ID [--workspace W] --scopes a,b [--name N] [--expires ISO] [--ip CIDR,...] [--rate N]

Configuration comes from the environment (PORT, HOST, CAUSA_DATA_DIR, DATABASE_URL, REDIS_URL, ...).`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === 'serve') {
    await serve(loadConfig());
    return;
  }
  if (command === 'org' && sub === 'create') return print(await createOrg(rest));
  if (command === 'key' && sub === 'create') return print(await createKey(rest));
  throw new UsageError(command === undefined || command === '--help' ? '' : `unknown command: ${argv.join(' ')}`);
}

async function createOrg(args: string[]) {
  const { values } = parseArgs({ args, options: { name: { type: 'string' } }, strict: true });
  if (values.name === undefined || values.name.trim() === '') throw new UsageError('org create needs --name');
  const context = await createContext(loadConfig());
  try {
    const created = await context.organisations.create(values.name.trim());
    return { organisationId: created.organisationId, userId: created.userId, apiKey: created.apiKey };
  } finally {
    await context.close();
  }
}

async function createKey(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: 'string' },
      workspace: { type: 'string' },
      scopes: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
      ip: { type: 'string' },
      rate: { type: 'string' },
    },
    strict: true,
  });
  if (values.org === undefined) throw new UsageError('key create needs --org');
  if (values.scopes === undefined) throw new UsageError('key create needs --scopes');
  const rate = values.rate === undefined ? DEFAULT_RATE_LIMIT : Number(values.rate);
  if (!Number.isInteger(rate) || rate < MIN_RATE_LIMIT || rate > MAX_RATE_LIMIT) {
    throw new UsageError(`--rate must be an integer from ${MIN_RATE_LIMIT} to ${MAX_RATE_LIMIT}`);
  }
  if (values.expires !== undefined && Number.isNaN(Date.parse(values.expires))) throw new UsageError('--expires must be an ISO-8601 date-time');
  const { scopes, ipAllowlist } = validateGrantInput({
    scopes: values.scopes.split(','),
    expiresAt: values.expires ?? null,
    ipAllowlist: values.ip ?? '',
  });
  const context = await createContext(loadConfig());
  try {
    const admin = await new OrganisationRepo(context.meta.db).firstAdmin(values.org);
    if (admin === undefined) throw new UsageError(`organisation ${values.org} does not exist`);
    const workspaceId = values.workspace ?? null;
    if (workspaceId !== null && (await new WorkspaceRepo(context.meta.db).find(values.org, workspaceId)) === undefined) {
      throw new UsageError(`workspace ${workspaceId} is not in organisation ${values.org}`);
    }
    const { row, value } = newKeyRow({
      organisationId: values.org,
      userId: admin.id,
      workspaceId,
      name: values.name ?? 'cli',
      scopes,
      expiresAt: values.expires === undefined ? null : new Date(values.expires).toISOString(),
      ipAllowlist,
      rateLimit: rate,
      createdByKeyId: null,
    });
    await new ApiKeyRepo(context.meta.db).insert(row);
    return { id: row.id, organisationId: values.org, workspaceId, scopes, expiresAt: row.expires_at, ipAllowlist, rateLimit: rate, apiKey: value };
  } finally {
    await context.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message ? `causa: ${error.message}\n\n` : ''}${USAGE}\n`);
    process.exit(error.message ? 2 : 0);
  }
  if (error instanceof ConfigError || error instanceof AppError) {
    process.stderr.write(`causa: ${error instanceof AppError ? error.detail : error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`causa: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

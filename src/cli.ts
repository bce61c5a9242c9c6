#!/usr/bin/env node
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { Api, ApiError, fileType } from './client/api.js';
import { reporter } from './client/progress.js';
import { scoreFile } from './client/score.js';
import { validateGrantInput, newKeyRow } from './api-keys/service.js';
import { ApiKeyRepo } from './api-keys/repo.js';
import { DEFAULT_RATE_LIMIT, MAX_RATE_LIMIT, MIN_RATE_LIMIT } from '../schemas/identity.js';
import { ConfigError, loadConfig } from './config.js';
import { createContext } from './context.js';
import { AppError } from './errors.js';
import { OrganisationRepo } from './organisations/repo.js';
import { serve } from './server.js';
import { WorkspaceRepo } from './workspaces/repo.js';

const USAGE = `causa: the Causa service, its operator commands and a pipeline client (DESIGN.md, Contracts)

  causa serve
  causa org create --name N
  causa key create --org ID [--workspace W] --scopes a,b [--name N] [--expires ISO] [--ip CIDR,...] [--rate N]

Pipeline client (the public API only: CAUSA_URL, default http://127.0.0.1:8080, and CAUSA_API_KEY):
  causa upload FILE [--workspace W] [--name N] [--source ID]
  causa score --twin ID --version V --input FILE --output FILE [--workspace W] [--targets a,b] [--keep id,...] [--keep-source]

Files are CSV, TSV, NDJSON (.ndjson, .jsonl) or Parquet, by extension. A progress bar on a terminal, JSON lines
otherwise. An interrupted score resumes when run again with the same input and output.

Configuration comes from the environment (PORT, HOST, CAUSA_DATA_DIR, DATABASE_URL, REDIS_URL, ...).`;

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, sub, ...rest] = argv;
  if (command === 'serve') {
    await serve(loadConfig());
    return;
  }
  if (command === 'upload') return upload(argv.slice(1));
  if (command === 'score') return score(argv.slice(1));
  if (command === 'org' && sub === 'create') return print(await createOrg(rest));
  if (command === 'key' && sub === 'create') return print(await createKey(rest));
  throw new UsageError(command === undefined || command === '--help' ? '' : `unknown command: ${argv.join(' ')}`);
}

/** The API the pipeline commands call, and the workspace they work in (--workspace, else the key's own). */
async function client(workspace: string | undefined): Promise<{ api: Api; workspace: string }> {
  const key = process.env.CAUSA_API_KEY;
  if (key === undefined || key === '') throw new UsageError('set CAUSA_API_KEY to an API key of the service');
  const api = new Api(process.env.CAUSA_URL ?? 'http://127.0.0.1:8080', key);
  const chosen = workspace ?? (await api.json<{ workspaceId: string | null }>('GET', '/me')).workspaceId;
  if (chosen === null || chosen === undefined) throw new UsageError('this key is not pinned to a workspace: give --workspace');
  return { api, workspace: chosen };
}

function fileTypeOf(path: string) {
  try {
    return fileType(path);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function upload(args: string[]) {
  const { values, positionals } = parseArgs({ args, options: { workspace: { type: 'string' }, name: { type: 'string' }, source: { type: 'string' } }, allowPositionals: true, strict: true });
  const [file] = positionals;
  if (file === undefined || positionals.length !== 1) throw new UsageError('upload takes one FILE');
  const type = fileTypeOf(file);
  const { api, workspace } = await client(values.workspace);
  const report = reporter(process.stderr.isTTY === true);
  const sourceId = values.source ?? (await api.json('POST', `/workspaces/${workspace}/sources`, { name: values.name ?? basename(file), dataFormat: 'Tabular' })).id as string;
  const batch = await api.upload(`/workspaces/${workspace}/sources/${sourceId}/upload?fileName=${encodeURIComponent(basename(file))}`, file, type.upload, (sent, total) => report.progress('upload', sent / Math.max(total, 1), `${sent} of ${total} bytes`));
  report.done({ sourceId, ...batch });
}

async function score(args: string[]) {
  const { values } = parseArgs({
    args,
    options: {
      twin: { type: 'string' }, version: { type: 'string' }, input: { type: 'string' }, output: { type: 'string' }, workspace: { type: 'string' },
      targets: { type: 'string' }, keep: { type: 'string' }, 'keep-source': { type: 'boolean' },
    },
    strict: true,
  });
  for (const name of ['twin', 'version', 'input', 'output'] as const) if (values[name] === undefined) throw new UsageError(`score needs --${name}`);
  fileTypeOf(values.input!);
  fileTypeOf(values.output!);
  const { api, workspace } = await client(values.workspace);
  const report = reporter(process.stderr.isTTY === true);
  const list = (text: string | undefined) => (text === undefined ? undefined : text.split(',').map((s) => s.trim()).filter((s) => s !== ''));
  const targets = list(values.targets);
  const keep = list(values.keep);
  const done = await scoreFile(api, {
    workspace, twinId: values.twin!, versionId: values.version!, input: values.input!, output: values.output!,
    ...(targets === undefined ? {} : { targets }), ...(keep === undefined ? {} : { keep }), keepSource: values['keep-source'] === true,
  }, report);
  report.done(done);
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
  if (error instanceof ApiError) {
    process.stderr.write(`causa: the service answered ${error.message}\n`);
    process.exit(1);
  }
  if (error instanceof ConfigError || error instanceof AppError) {
    process.stderr.write(`causa: ${error instanceof AppError ? error.detail : error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`causa: ${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});

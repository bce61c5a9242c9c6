/** The service in this process for benchmarks: a temporary data directory, one organisation, an API caller. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../../src/context.js';

export type Call = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, type?: string) => Promise<{ status: number; data: Record<string, any> }>;

export interface BenchService {
  app: FastifyInstance;
  context: Context;
  /** The organisation's library workspace. */
  ws: string;
  /** An API call under /api/v1 with the organisation's key; objects are sent as JSON, strings as they are. */
  call: Call;
  close(): Promise<void>;
}

export async function startService(name: string, env: Record<string, string> = {}): Promise<BenchService> {
  const dir = mkdtempSync(join(tmpdir(), `causa-bench-${name}-`));
  const { buildApp } = await import('../../src/app.js');
  const { loadConfig } = await import('../../src/config.js');
  const { createContext } = await import('../../src/context.js');
  const context = await createContext({ ...loadConfig({ CAUSA_DATA_DIR: dir, LOG_LEVEL: 'silent', ...env }), secretKey: randomBytes(32) });
  const app = await buildApp(context, { logger: false });
  await app.ready();
  const org = await context.organisations.create('bench');
  let key = org.apiKey;
  const call: Call = async (method, url, payload, type = 'application/json') => {
    const body = payload === undefined ? undefined : typeof payload === 'string' ? payload : JSON.stringify(payload);
    const response = await app.inject({ method, url: `/api/v1${url}`, headers: { authorization: `Bearer ${key}`, 'content-type': type }, ...(body === undefined ? {} : { payload: body }) });
    return { status: response.statusCode, ...(JSON.parse(response.body) as { data: Record<string, any> }) };
  };
  // Benchmarks poll every few milliseconds: far above a default key's rate limit.
  const { SCOPES } = await import('../../src/auth/scopes.js');
  key = (await call('POST', '/api-keys', { name: 'bench', scopes: [...SCOPES], rateLimit: 1_000_000 })).data.key as string;
  return {
    app,
    context,
    ws: org.libraryWorkspaceId,
    call,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

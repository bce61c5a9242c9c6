import type { TestContext } from 'node:test';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import { type Context, type ContextOverrides, createContext } from '../../src/context.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openChdbDataStore } from '../../src/store/data/open.js';
import type { DataStore } from '../../src/store/data/port.js';
import { openEmbeddedMetaStore } from '../../src/store/meta/embedded.js';
import { assertMatchesOpenApi } from './openapi-validator.js';

export interface Tenant {
  organisationId: string;
  userId: string;
  libraryWorkspaceId: string;
  /** Org-wide admin key with every scope. */
  key: string;
}

export interface TestApp {
  app: FastifyInstance;
  context: Context;
  tenant: Tenant;
  /** A second organisation, for isolation checks. */
  other: Tenant;
  call(options: CallOptions): Promise<Response>;
}

export interface CallOptions {
  method: InjectOptions['method'];
  url: string;
  key?: string | null;
  body?: unknown;
  headers?: Record<string, string>;
  remoteAddress?: string;
}

export interface Response {
  status: number;
  headers: LightMyRequestResponse['headers'];
  body: any;
  raw: LightMyRequestResponse;
}

let sharedData: DataStore | undefined;

/**
 * chDB allows one data directory per process (DESIGN.md), so every app of a test process shares one embedded
 * data store; organisations keep their data apart. Apps "closing" it leave it open for the next test.
 */
export function sharedDataStore(): DataStore {
  if (sharedData === undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'causa-test-data-'));
    const store = openChdbDataStore(dir);
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    sharedData = { ...store, close: async () => undefined };
  }
  return sharedData;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    ...loadConfig({ CAUSA_DATA_DIR: '/tmp/causa-test-unused', LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    secretKey: Buffer.alloc(32, 7),
    ...overrides,
  };
}

/** An app over a fresh in-memory SQLite store (or the given stores), closed when the test ends. */
export async function buildTestApp(
  t: TestContext,
  overrides: ContextOverrides = {},
  config = testConfig(),
  beforeReady?: (app: FastifyInstance) => void,
  /** When given, the app logs at the config's level and every log line (JSON) is pushed here. */
  logLines?: string[],
  /** Compile every response serializer at start (the service compiles each on its first response). */
  eagerSerializers = false,
): Promise<TestApp> {
  const context = await createContext(config, {
    meta: overrides.meta ?? (await openEmbeddedMetaStore(':memory:')),
    data: overrides.data ?? sharedDataStore(),
    ...overrides,
  });
  const app = await buildApp(context, { eagerSerializers, ...(logLines === undefined ? { logger: false } : { logStream: { write: (line: string) => logLines.push(line) } }) });
  beforeReady?.(app);
  await app.ready();
  t.after(() => app.close());
  const tenant = toTenant(await context.organisations.create('acme'));
  const other = toTenant(await context.organisations.create('globex'));
  const call = async (options: CallOptions): Promise<Response> => {
    const headers: Record<string, string> = { ...options.headers };
    const key = options.key === undefined ? tenant.key : options.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    const raw = await app.inject({
      method: options.method,
      url: options.url,
      headers,
      ...(options.body !== undefined && { payload: options.body as never }),
      ...(options.remoteAddress !== undefined && { remoteAddress: options.remoteAddress }),
    });
    const contentType = String(raw.headers['content-type'] ?? '');
    // JSON documents are parsed; JSON lines (application/x-ndjson) stay text.
    const body = contentType.includes('json') && !contentType.includes('ndjson') && raw.body !== '' ? JSON.parse(raw.body) : raw.body;
    await assertMatchesOpenApi(app, options.method as string, options.url, raw.statusCode, contentType, body);
    return { status: raw.statusCode, headers: raw.headers, body, raw };
  };
  return { app, context, tenant, other, call };
}

const toTenant = (created: { organisationId: string; userId: string; libraryWorkspaceId: string; apiKey: string }): Tenant => ({
  organisationId: created.organisationId,
  userId: created.userId,
  libraryWorkspaceId: created.libraryWorkspaceId,
  key: created.apiKey,
});

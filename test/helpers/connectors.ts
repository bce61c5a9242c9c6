import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import type { TestContext } from 'node:test';
import pg from 'pg';
import type { Config } from '../../src/config.js';
import type { HostGate } from '../../src/connectors/drivers/network.js';
import { SourceError } from '../../src/connectors/drivers/port.js';
import { type TestApp, buildTestApp, testConfig } from './app.js';
import { waitForJob } from './jobs.js';
import { requireScaleOut } from './scale-out.js';

export const API = '/api/v1';

/**
 * A schema of its own in the PostgreSQL test database (TEST_DATABASE_URL), created empty and dropped after the test,
 * after `beforeDrop` (closing sessions that would hold its lock); undefined when the test is skipped.
 */
export async function postgresSchema(t: TestContext, prefix: string, beforeDrop: () => Promise<unknown> = async () => undefined): Promise<{ url: URL; admin: pg.Client; schema: string } | undefined> {
  const raw = requireScaleOut(t, 'TEST_DATABASE_URL');
  if (raw === undefined) return undefined;
  const admin = new pg.Client({ connectionString: raw });
  await admin.connect();
  const schema = `${prefix}_${randomBytes(4).toString('hex')}`;
  t.after(async () => {
    await beforeDrop();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
  await admin.query(`CREATE SCHEMA ${schema}`);
  return { url: new URL(raw), admin, schema };
}

/**
 * An app whose connectors may reach loopback and read under a fresh storage root (removed after the test);
 * `storageRoot` is the tenant's own directory in it, where its storage connectors may point. Imports store their
 * rows in parts of 64 KiB, so an import of some ten thousand rows and more is stored in several.
 */
export async function connectorApp(t: TestContext, overrides: Partial<Config> = {}): Promise<TestApp & { operatorRoot: string; storageRoot: string }> {
  const operatorRoot = mkdtempSync(join(tmpdir(), 'causa-storage-'));
  t.after(() => rmSync(operatorRoot, { recursive: true, force: true }));
  const app = await buildTestApp(t, {}, testConfig({ connectorAllowHosts: ['127.0.0.1'], storageRoots: [operatorRoot], importPartBytes: 64 * 1024, ...overrides }));
  const storageRoot = join(operatorRoot, app.tenant.organisationId);
  mkdirSync(storageRoot);
  return Object.assign(app, { operatorRoot, storageRoot });
}

export async function createConnector(app: TestApp, type: string, credentials: Record<string, unknown> | null, name = `${type} source`): Promise<string> {
  const response = await app.call({ method: 'POST', url: `${API}/connectors`, body: { name, type, credentials } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

/** Imports into the tenant's library workspace and waits for the job; answers the job. */
export async function importAndWait(app: TestApp, id: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const ws = app.tenant.libraryWorkspaceId;
  const accepted = await app.call({ method: 'POST', url: `${API}/connectors/${id}/import`, body: { workspaceId: ws, ...body } });
  assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
  return waitForJob(app, ws, accepted.body.data.jobId);
}

/** Every row of a source, through a dataset over it (ordered as stored), and the response text (exact digits). */
export async function sourceRows(app: TestApp, sourceId: string): Promise<Array<Record<string, unknown>> & { text: string }> {
  const ws = app.tenant.libraryWorkspaceId;
  const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name: `rows of ${sourceId}`, sources: [{ id: sourceId }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${dataset.body.data.id}/records?limit=1000` });
  assert.equal(records.status, 200, JSON.stringify(records.body));
  return Object.assign(records.body.data as Array<Record<string, unknown>>, { text: records.raw.body });
}

/** Every response body of a test, as text: secrets must appear in none. */
export function assertNoSecret(bodies: unknown[], secret: string): void {
  for (const body of bodies) assert.ok(!JSON.stringify(body).includes(secret), `a response carries the secret: ${JSON.stringify(body).slice(0, 300)}`);
}

/** The SourceError a driver call must reject with. */
export async function refusal(work: Promise<unknown>): Promise<SourceError> {
  const error = await work.then(
    () => assert.fail('expected a SourceError'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SourceError, `expected a SourceError, got ${String(error)}`);
  return error;
}

/** A stream read whole as text. */
export async function text(stream: Readable): Promise<string> {
  let out = '';
  for await (const chunk of stream) out += String(chunk);
  return out;
}

/** A loopback listener that counts the sockets opened to it (closed after the test). */
export async function countingListener(t: TestContext): Promise<{ port: number; sockets(): number }> {
  let sockets = 0;
  const listener = createServer((socket) => {
    sockets += 1;
    socket.destroy();
  });
  listener.listen(0, '127.0.0.1');
  await once(listener, 'listening');
  t.after(() => listener.close());
  return { port: (listener.address() as { port: number }).port, sockets: () => sockets };
}

/** A gate that refuses every host, as the real one refuses a non-public address. */
export const refusingGate: HostGate = async (host) => {
  throw new SourceError('unreachable', `Connectors may not reach ${host}`);
};

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { CLI, type Server, startServer as start, stop } from '../helpers/server.js';

const BOOTSTRAP = 'pk_e2e_bootstrap_key_0123456789abcdef';
const runCli = promisify(execFile);
const startServer = (dataDir: string) => start(dataDir, { CAUSA_BOOTSTRAP_API_KEY: BOOTSTRAP });

const get = (server: Server, path: string, key = BOOTSTRAP) =>
  fetch(`${server.base}${path}`, { headers: { authorization: `Bearer ${key}` } });

test('a real server bootstraps its key once, serves it, logs JSON with request ids and stops cleanly on SIGTERM', { timeout: 60_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'causa-e2e-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));

  const first = await startServer(dataDir);
  const me = await (await get(first, '/api/v1/me')).json();
  assert.equal(me.data.authType, 'apiKey');
  const workspace = await fetch(`${first.base}/api/v1/workspaces`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BOOTSTRAP}`, 'content-type': 'application/json', 'x-request-id': 'e2e-trace-1' },
    body: JSON.stringify({ name: 'Quickstart' }),
  });
  assert.equal(workspace.status, 201);
  assert.equal(await stop(first), 0);
  const logged = first.logs.filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
  assert.ok(logged.some((entry) => entry.requestId === 'e2e-trace-1'), 'request log lines carry the request id');

  // Restart on the same data: the bootstrap is idempotent, the data persisted.
  const second = await startServer(dataDir);
  t.after(() => second.process.kill('SIGKILL'));
  const again = await (await get(second, '/api/v1/me')).json();
  assert.equal(again.data.organisationId, me.data.organisationId);
  const names = (await (await get(second, '/api/v1/workspaces')).json()).data.map((w: { name: string }) => w.name);
  assert.ok(names.includes('Quickstart'));

  // The CLI works beside a running server on the same data directory.
  const env = { ...process.env, CAUSA_DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  const org = JSON.parse((await runCli(process.execPath, [CLI, 'org', 'create', '--name', 'Initech'], { env })).stdout);
  assert.match(org.apiKey, /^pk_/);
  assert.ok(org.organisationId && org.userId);
  const key = JSON.parse(
    (await runCli(process.execPath, [CLI, 'key', 'create', '--org', org.organisationId, '--scopes', 'sources:read', '--rate', '7', '--ip', '127.0.0.1'], { env })).stdout,
  );
  const asKey = await (await get(second, '/api/v1/me', key.apiKey)).json();
  assert.deepEqual({ org: asKey.data.organisationId, scopes: asKey.data.scopes, rate: asKey.data.rateLimit }, { org: org.organisationId, scopes: ['sources:read'], rate: 7 });
  assert.equal(await stop(second, 'SIGINT'), 0);
});

test('a bad environment variable stops start-up with a message naming it', async () => {
  const failure = await runCli(process.execPath, [CLI, 'serve'], { env: { ...process.env, PORT: 'eighty' } }).catch((error) => error);
  assert.equal(failure.code, 2);
  assert.match(failure.stderr, /PORT/);
});

test('the CLI refuses bad arguments with usage and exit code 2', async () => {
  const env = { ...process.env, CAUSA_DATA_DIR: mkdtempSync(join(tmpdir(), 'causa-cli-')), LOG_LEVEL: 'silent' };
  const cases = [
    ['org', 'create'],
    ['key', 'create', '--org', 'org_missing', '--scopes', 'sources:read'],
    ['key', 'create', '--org', 'x', '--scopes', 'sources:fly'],
    ['frobnicate'],
  ];
  for (const args of cases) {
    const failure = await runCli(process.execPath, [CLI, ...args], { env }).catch((error) => error);
    assert.equal(failure.code, 2, args.join(' '));
  }
  rmSync(env.CAUSA_DATA_DIR, { recursive: true, force: true });
});

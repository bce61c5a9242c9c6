import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { buildTestApp } from '../helpers/app.js';

const run = promisify(execFile);
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

async function servedDocument(t: Parameters<typeof buildTestApp>[0]) {
  // Every response schema compiled to its serializer at start: one that cannot be fails here, not on a first response.
  const { call } = await buildTestApp(t, {}, undefined, undefined, undefined, true);
  const res = await call({ method: 'GET', url: '/api/v1/openapi.json', key: null });
  assert.equal(res.status, 200);
  return res.body;
}

test('the served document is OpenAPI 3.1 declaring API version 1.0.0 and passes a strict 3.1 validator', async (t) => {
  const doc = await servedDocument(t);
  assert.equal(doc.openapi, '3.1.0');
  assert.equal(doc.info.version, '1.0.0');
  const result = await new Validator().validate(doc);
  assert.deepEqual(result.errors ?? [], []);
  assert.equal(result.valid, true);
});

test('redocly lint finds 0 errors in the served document', { timeout: 120_000 }, async (t) => {
  const doc = await servedDocument(t);
  const dir = mkdtempSync(join(tmpdir(), 'causa-openapi-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const { stdout } = await run(join(process.cwd(), 'node_modules/.bin/redocly'), ['lint', file, '--format=json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')));
  const errors = report.problems.filter((p: { severity: string }) => p.severity === 'error');
  assert.deepEqual(errors.map((p: { message: string; location: unknown }) => `${p.message} ${JSON.stringify(p.location)}`), []);
});

test('every operation has an operationId, summary, tag, security and problem responses', async (t) => {
  const doc = await servedDocument(t);
  const ids = new Set<string>();
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const method of METHODS.filter((m) => item[m] !== undefined)) {
      const op = item[method];
      const where = `${method.toUpperCase()} ${path}`;
      assert.ok(op.operationId, `${where} operationId`);
      assert.ok(!ids.has(op.operationId), `${where} operationId unique`);
      ids.add(op.operationId);
      assert.ok(op.summary, `${where} summary`);
      assert.equal(op.tags?.length, 1, `${where} tag`);
      assert.ok(Array.isArray(op.security), `${where} security`);
      const problems = Object.entries<any>(op.responses).filter(([status]) => Number(status) >= 400);
      assert.ok(problems.length > 0, `${where} problem responses`);
      for (const [status, response] of problems) {
        assert.ok(response.content['application/problem+json'], `${where} ${status} is a problem document`);
      }
      if (op.security.length > 0) for (const status of ['401', '403', '429', '500']) assert.ok(op.responses[status], `${where} ${status}`);
      // File uploads dedupe by the sha256 of their bytes instead of an Idempotency-Key.
      const fileUpload = Object.values<any>(op.requestBody?.content ?? {}).some((media) => media.schema?.format === 'binary');
      if (method === 'post' && op.security.length > 0 && !fileUpload) {
        assert.ok(op.parameters?.some((p: { in: string; name: string }) => p.in === 'header' && p.name === 'idempotency-key'), `${where} Idempotency-Key`);
      }
    }
  }
  assert.ok(ids.size >= 15);
});

test('the interactive reference is served offline: same-origin assets only, no validator call', async (t) => {
  const { call } = await buildTestApp(t);
  let res = await call({ method: 'GET', url: '/api/v1/docs', key: null });
  if (res.status === 302) res = await call({ method: 'GET', url: String(res.headers.location), key: null });
  assert.equal(res.status, 200);
  const html = String(res.body);
  assert.match(html, /swagger-ui/);
  const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  assert.ok(sources.length > 0);
  for (const source of sources) assert.ok(!/^(https?:)?\/\//.test(source), `external asset ${source}`);
  // The policy lets the browser fetch nothing from another origin.
  const csp = String(res.headers['content-security-policy']);
  assert.match(csp, /default-src 'self'/);
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /https:|http:|\*|[a-z]+\.[a-z]+/);
  const initializer = await call({ method: 'GET', url: '/api/v1/docs/static/swagger-initializer.js', key: null });
  assert.equal(initializer.status, 200);
  assert.match(String(initializer.body), /"validatorUrl":null/);
  const spec = await call({ method: 'GET', url: '/api/v1/docs/json', key: null });
  assert.equal(spec.body.info.version, '1.0.0');
});

/**
 * The pipeline client against a real server, through the public API only: `causa upload` and `causa score`, JSON
 * lines when not on a terminal, the output file equal to the same predictions asked inline, and an interrupted
 * score resumed by running it again.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { CLI, startServer, stop } from '../helpers/server.js';
import { linearChainRows } from '../helpers/simulated.js';

const KEY = 'pk_e2e_pipeline_key_0123456789abcdef';
const runCli = promisify(execFile);

const csv = (rows: Array<Record<string, unknown>>) => [Object.keys(rows[0]!).join(','), ...rows.map((row) => Object.values(row).map((v) => (v === null ? '' : String(v))).join(','))].join('\n');
const lines = (text: string) => text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, any>);

test('causa upload and causa score: a file in, its predictions out, resumed after an interruption', { timeout: 120_000 }, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'causa-pipeline-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const server = await startServer(join(dir, 'data'), { CAUSA_BOOTSTRAP_API_KEY: KEY });
  t.after(() => stop(server));
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.base}/api/v1${path}`, { method, headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return (await response.json()) as { data: Record<string, any> };
  };
  const ws = (await api('GET', '/workspaces')).data[0].id as string;
  const env = { ...process.env, CAUSA_URL: server.base, CAUSA_API_KEY: KEY };

  // Training data through `causa upload`; the twin learned through the API.
  writeFileSync(join(dir, 'train.csv'), csv(linearChainRows(1500)));
  const uploaded = lines((await runCli(process.execPath, [CLI, 'upload', join(dir, 'train.csv'), '--workspace', ws, '--name', 'train'], { env })).stdout);
  const done = uploaded.at(-1)!;
  assert.equal(done.event, 'done');
  assert.match(done.sourceId, /^src_/);
  const twin = (await api('POST', `/workspaces/${ws}/digital-twins`, { name: 'chain', sourceId: done.sourceId })).data;
  await api('PATCH', `/workspaces/${ws}/digital-twins/${twin.id}/versions/${twin.versionId}/graph/fixed`, { addEdges: [{ source: 'x', target: 'y' }, { source: 'y', target: 'z' }] });
  const job = (await api('POST', `/workspaces/${ws}/digital-twins/${twin.id}/run-pipeline`, { bootstrapSamples: 0 })).data;
  for (let status = ''; status !== 'completed'; status = (await api('GET', `/workspaces/${ws}/jobs/${job.jobId}`)).data.status) await new Promise((r) => setTimeout(r, 100));

  // Rows to score (NDJSON, with an id), and the same predictions asked inline for comparison.
  const rows = linearChainRows(3000, 5).map((row, i) => ({ id: `r${i}`, x: row.x, z: row.z, w: row.w }));
  writeFileSync(join(dir, 'rows.ndjson'), rows.map((row) => JSON.stringify(row)).join('\n'));
  const inline = (await api('POST', `/workspaces/${ws}/simulations`, { digitalTwinId: twin.id, digitalTwinVersionId: twin.versionId, scenario: { type: 'prediction', sample: rows.map(({ id: _id, ...row }) => row), targetVars: ['y'] } })).data;
  let expected: any[] = [];
  for (;;) {
    const run = (await api('GET', `/workspaces/${ws}/simulations/${inline.runId}`)).data;
    if (run.status === 'completed') {
      expected = run.outputs['1.0.0'].results.y;
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  // A score interrupted once its run is submitted, then run again: it resumes that run.
  const output = join(dir, 'scored.parquet');
  const args = [CLI, 'score', '--twin', twin.id, '--version', twin.versionId, '--input', join(dir, 'rows.ndjson'), '--output', output, '--workspace', ws, '--targets', 'y', '--keep', 'id'];
  const first: ChildProcess = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const submitted = await new Promise<Record<string, any>>((resolve, reject) => {
    let text = '';
    first.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const event = text.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((e) => e.event === 'submitted');
      if (event !== undefined) {
        first.kill('SIGKILL');
        resolve(event);
      }
    });
    first.on('exit', () => reject(new Error(`score ended before submitting: ${text}`)));
  });
  assert.ok(existsSync(`${output}.causa-state.json`), 'the state is kept for a resume');
  const second = lines((await runCli(process.execPath, args, { env })).stdout);
  const resume = second.find((e) => e.event === 'resume');
  assert.equal(resume?.runId, submitted.runId, 'the same run is picked up');
  assert.equal(second.filter((e) => e.event === 'submitted').length, 0, 'nothing is submitted twice');
  const result = second.at(-1)!;
  assert.deepEqual([result.event, result.rows, result.runId], ['done', 3000, submitted.runId]);
  assert.ok(!existsSync(`${output}.causa-state.json`) && !existsSync(`${output}.partial`));

  const bytes = readFileSync(output);
  const scored = await parquetReadObjects({ file: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, compressors });
  assert.equal(scored.length, 3000);
  scored.forEach((row: any, i) => {
    assert.equal(row.id, `r${i}`);
    assert.ok(Math.abs(row.y_predicted - expected[i].prediction) < 1e-9, `row ${i}: ${row.y_predicted} vs ${expected[i].prediction}`);
  });
  // The uploaded rows were a source of the score's own: gone once the output is written.
  const sources = (await api('GET', `/workspaces/${ws}/sources`)).data.map((s: { name: string }) => s.name);
  assert.deepEqual(sources.filter((name: string) => name.startsWith('causa score')), []);

  // Bad use: a clear message and a non-zero exit.
  const bad = await runCli(process.execPath, [CLI, 'score', '--twin', twin.id, '--version', twin.versionId, '--input', join(dir, 'rows.xlsx'), '--output', output], { env }).catch((error) => error);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /extension/);
});

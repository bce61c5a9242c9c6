/**
 * The README's tutorial, run as written against a started server: every `sh` block between its tutorial markers,
 * in one bash session, with only the address changed to the test server's. Its answers are checked against the
 * model examples/shop.csv was simulated from (CONTRIBUTING.md): one reversible edge (ad_spend - impressions), an
 * unidentified effect of +10% ad spend on orders whose possible values are 0 and +4, and +4 once the edge is pinned.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { startServer } from '../helpers/server.js';

const run = promisify(execFile);
const KEY = 'pk_tutorial_0123456789abcdef0123456789abcdef';
const MARK = '@@tutorial-block';

/** The tutorial's sh blocks, in order. */
function tutorialBlocks(): string[] {
  const readme = readFileSync(join(process.cwd(), 'README.md'), 'utf8');
  const from = readme.indexOf('<!-- tutorial:start');
  const to = readme.indexOf('<!-- tutorial:end -->');
  assert.ok(from >= 0 && to > from, 'the README marks its tutorial');
  return [...readme.slice(from, to).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

test('the README tutorial runs as written and its answers match the model the example data came from', { timeout: 180_000 }, async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'causa-tutorial-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const server = await startServer(dataDir, { CAUSA_BOOTSTRAP_API_KEY: KEY, CAUSA_WORKERS: '2' });
  t.after(() => server.process.kill('SIGKILL'));

  const blocks = tutorialBlocks();
  assert.equal(blocks.length, 7, 'setup, upload, learn, graph, ask, answer, pin and ask again: the blocks and this test change together');
  const script = ['set -euo pipefail', ...blocks.map((block, i) => `echo '${MARK} ${i}'\n${block.replaceAll('http://127.0.0.1:8080', server.base)}`)].join('\n');
  const { stdout } = await run('bash', ['-c', script], { cwd: process.cwd(), env: { ...process.env, CAUSA_BOOTSTRAP_API_KEY: KEY }, timeout: 170_000, maxBuffer: 1 << 24 })
    .catch((error: { stdout?: string; stderr?: string; message: string }) => assert.fail(`the tutorial failed: ${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`));
  const out = stdout.split(new RegExp(`^${MARK} \\d+$`, 'm')).slice(1);
  const [, upload, learn, graph, ask, answer, again] = out;

  assert.match(upload!, /"rowEnd":1999/, upload);
  assert.match(upload!, /"promo: /, upload);
  assert.equal(learn!.trim(), 'completed');
  assert.match(graph!, /^reversible edges: 1$/m, graph);
  assert.match(graph!, /^(ad_spend -> impressions|impressions -> ad_spend) {2}reversible$/m, graph);
  assert.match(graph!, /^visits -> orders {2}compelled$/m, graph);
  const scenario = JSON.parse(ask!.trim().split('\n')[0]!);
  assert.deepEqual(scenario.interventions, [{ variable: 'ad_spend', valueSpec: { type: 'relative_change', mode: 'percentage', value: 10 } }]);
  assert.equal(ask!.trim().split('\n').at(-1), 'completed');

  const [summary, ...detailLines] = answer!.trim().split('\n');
  assert.match(summary!, /cannot tell whether/, summary);
  const open = JSON.parse(detailLines.join('\n'));
  assert.equal(open.identified, false, JSON.stringify(open));
  assert.deepEqual(open.decidingEdges.map((e: { source: string; target: string }) => [e.source, e.target].sort()), [['ad_spend', 'impressions']]);
  const possible = (open.possibleDifferences as { difference: number; lowerBound: number; upperBound: number }[]).map((d) => d.difference).sort((a, b) => a - b);
  assert.equal(possible.length, 2, JSON.stringify(open.possibleDifferences));
  assert.ok(Math.abs(possible[0]!) < 0.3 && Math.abs(possible[1]! - 4) < 0.5, `possible effects ${possible}: the truth is 0 or +4`);

  const lines = again!.trim().split('\n');
  const pinned = JSON.parse(lines.at(-1)!);
  assert.equal(pinned.identified, true, JSON.stringify(pinned));
  assert.ok(pinned.lowerBound <= 4 && 4 <= pinned.upperBound, `the interval ${pinned.lowerBound} to ${pinned.upperBound} covers the true +4`);
  assert.ok(Math.abs(pinned.difference - 4) < 0.4, `effect ${pinned.difference}`);
});

/**
 * A batch run's results table (src/simulations/batch/results.ts) on chDB, with a scoring run's rows as its workers
 * encode them (src/compute/scored-rows.ts): chunks are gathered into inserts of 50,000 rows, every row lands once in
 * order, and the stored drivers and changes read back as the JSON GET .../score shows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ScoredRowEncoder, scoredRowColumns } from '../../../src/compute/scored-rows.js';
import type { ScoredColumns } from '../../../src/engine/inference/outcome.js';
import type { CbnModel } from '../../../src/engine/types.js';
import { newId } from '../../../src/lib/ids.js';
import { BatchResults } from '../../../src/simulations/batch/results.js';
import { presentScoredRow } from '../../../src/simulations/batch/score.js';
import { openChdbDataStore } from '../../../src/store/data/open.js';
import type { DataStore } from '../../../src/store/data/port.js';

const dir = mkdtempSync(join(tmpdir(), 'causa-results-'));
let store: DataStore;
const organisationId = newId('org');
const signal = new AbortController().signal;

before(async () => {
  store = await openChdbDataStore(join(dir, 'chdb'));
  await store.ensureTenant(organisationId);
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const network = {
  nodes: [
    { name: 'price "net"', kind: 'continuous' },
    { name: 'plan', kind: 'categorical', categories: ['basic', 'premium'] },
    { name: 'sales', kind: 'continuous' },
  ],
} as unknown as CbnModel;
const targets = [{ variable: 'sales', value: 10, matchMode: 'orMore' as const }, { variable: 'plan', value: 'premium' }];

/** A chunk of n rows, row r: verdict r % 3, sales r, plan r % 2, one driver, and a change of plan on odd rows. */
function chunk(n: number, first: number): ScoredColumns {
  const odd = (r: number) => (first + r) % 2 === 1;
  const changeStart = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) changeStart[r + 1] = changeStart[r]! + (odd(r) ? 1 : 0);
  const changes = changeStart[n]!;
  return {
    nRows: n,
    verdicts: Uint8Array.from({ length: n }, (_, r) => (first + r) % 3),
    predictions: [Float64Array.from({ length: n }, (_, r) => first + r), Float64Array.from({ length: n }, (_, r) => ((first + r) % 5 === 0 ? Number.NaN : (first + r) % 2))],
    driversPerRow: 2,
    driverNodes: Int32Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? 0 : -1)),
    driverContributions: Float64Array.from({ length: 2 * n }, (_, k) => (k % 2 === 0 ? 0.25 + first + k / 2 : 0)),
    changeStart,
    changeNodes: new Int32Array(changes).fill(1),
    changeFrom: new Float64Array(changes).fill(0),
    changeTo: new Float64Array(changes).fill(1),
    reachable: Int8Array.from({ length: n }, (_, r) => (odd(r) ? 1 : -1)),
    driverSums: new Float64Array(3),
    topCounts: new Int32Array(3),
    summaries: [],
  };
}

test('chunks go in as inserts of 50,000 rows, and every row reads back once, in order, as GET .../score shows it', async () => {
  const inserts: number[] = [];
  const counting: DataStore = { ...store, insertRowBinary: (table, body) => (inserts.push(body.length), store.insertRowBinary(table, body)) };
  const runId = newId('sim');
  const columns = scoredRowColumns(network, targets);
  const writer = await new BatchResults(() => counting).create(organisationId, runId, columns, null);
  const encoder = new ScoredRowEncoder(network, targets);
  const sizes = [10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 3_000];
  let offset = 0;
  for (const n of sizes) {
    await writer.write(offset, n, encoder.encode(offset, chunk(n, offset)), signal);
    offset += n;
  }
  assert.equal(inserts.length, 1, 'five chunks of 10,000 rows are one insert; the rest waits for finish');
  await writer.finish(signal);
  assert.equal(inserts.length, 2);

  const record = { tableId: writer.table.tableId, rows: offset, columns: writer.columns };
  const results = new BatchResults(() => store);
  const [counted] = await store.query<{ n: string | number; distinct: string | number }>(organisationId, (sql) => `SELECT count() AS n, uniqExact(row) AS distinct FROM ${sql.table(record.tableId)}`, {});
  assert.deepEqual([Number(counted!.n), Number(counted!.distinct)], [63_000, 63_000]);
  const page = await results.page(organisationId, record, 49_998, 3);
  assert.deepEqual(page.map((row) => presentScoredRow(row, ['sales', 'plan'])), [49_999, 50_000, 50_001].map((index) => ({
    index,
    verdict: ['meets', 'misses', 'unscorable'][index % 3],
    predictions: { sales: index, plan: index % 5 === 0 ? null : ['basic', 'premium'][index % 2] },
    drivers: [{ variable: 'price "net"', contribution: 0.25 + index }],
    changes: index % 2 === 1 ? [{ variable: 'plan', from: 'basic', to: 'premium' }] : [],
    reachable: index % 2 === 1 ? true : null,
  })));
});

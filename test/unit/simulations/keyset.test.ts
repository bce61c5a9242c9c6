/**
 * A batch's rows read by keyset on the data's row key (src/simulations/batch/keyset.ts), on chDB: the chunks step
 * over the keys a filter leaves out and stop at the limit, each chunk's kept columns come back numbered as its rows
 * were, and a read that finds fewer rows than were counted fails
 * the run rather than answering misplaced rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { CompiledDataset } from '../../../src/datasets/compiler/compile.js';
import { Params } from '../../../src/datasets/compiler/params.js';
import { AppError } from '../../../src/errors.js';
import { newId } from '../../../src/lib/ids.js';
import { KeysetInput, readableByKey } from '../../../src/simulations/batch/keyset.js';
import { openChdbDataStore } from '../../../src/store/data/open.js';
import type { DataStore, TableRef } from '../../../src/store/data/port.js';

const dir = mkdtempSync(join(tmpdir(), 'causa-keyset-'));
let store: DataStore;
const organisationId = newId('org');
const table: TableRef = { organisationId, tableId: newId('src') };
const signal = new AbortController().signal;
const model = { nodes: [{ name: 'x', kind: 'continuous' as const }, { name: 'plan', kind: 'categorical' as const, categories: ['basic', 'premium'] }] };

/** The table as a dataset compiles it: its row key, no sort of its own. */
const compiled = (): CompiledDataset => ({
  relation: {
    columns: [{ name: 'x', type: 'number', subtype: null }, { name: 'plan', type: 'string', subtype: null }] as never,
    keys: ['_causa_k0'],
    order: [],
    sql: (sql) => `SELECT _causa_row AS _causa_k0, x, plan FROM ${sql.table(table.tableId)}`,
  },
  params: new Params(),
  sourceRelations: new Map(),
  steps: [],
});

before(async () => {
  store = openChdbDataStore(dir, 1);
  await store.ensureTenant(organisationId);
  await store.createTable(table, [{ name: '_causa_row', type: 'UInt64' }, { name: 'x', type: 'Nullable(Float64)' }, { name: 'plan', type: 'Nullable(String)' }], ['_causa_row']);
  // Row keys 10, 20, ..., 1000: x is the key / 10; every third row premium, every seventh x missing.
  await store.insertSelect(table, () => `SELECT (number + 1) * 10, if((number + 1) % 7 = 0, NULL, number + 1), if(number % 3 = 0, 'premium', 'basic') FROM numbers(100)`);
});
after(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

test('chunks follow the row key over the rows a filter keeps, up to the limit, with their kept columns', async () => {
  const input = await KeysetInput.open(store, { organisationId, compiled: compiled(), condition: `s.plan = 'basic'`, limit: 60, keep: ['x'], model }, signal);
  assert.equal(input.rows, 60);
  const xs: number[] = [];
  const kept: Array<{ row: number; k0: number | null }> = [];
  for (let from = 0; from < input.rows; from += 25) {
    const to = Math.min(input.rows, from + 25);
    const frame = await input.chunk(from, to, signal);
    const [x, plan] = frame.columns;
    assert.ok(x?.kind === 'continuous' && plan?.kind === 'categorical');
    assert.ok([...plan.codes].every((code) => code === 0));
    xs.push(...x.values);
    // The kept columns of the chunk, read again by its key range: numbered from the chunk's first row.
    const read = input.kept!.rows(from, to);
    kept.push(...(await store.query<{ row: number | string; k0: number | null }>(organisationId, (sql) => `SELECT * FROM (${read.sql(sql)}) ORDER BY row`, read.params)).map((r) => ({ row: Number(r.row), k0: r.k0 })));
  }
  const expected = Array.from({ length: 100 }, (_, n) => n).filter((n) => n % 3 !== 0).slice(0, 60).map((n) => ((n + 1) % 7 === 0 ? Number.NaN : n + 1));
  assert.deepEqual(xs, expected);
  assert.deepEqual(kept, expected.map((x, row) => ({ row, k0: Number.isNaN(x) ? null : x })));
  assert.equal(input.unknownEnvironmentRows(), undefined);
});

test('a filter of OR-ed conditions bounds every chunk read, not only its last condition', async () => {
  // compileCondition joins a group's conditions without outer parentheses.
  const input = await KeysetInput.open(store, { organisationId, compiled: compiled(), condition: 's.x < 20 OR s.x > 90', limit: undefined, keep: [], model }, signal);
  const xs: number[] = [];
  for (let from = 0; from < input.rows; from += 10) {
    const [x] = (await input.chunk(from, Math.min(input.rows, from + 10), signal)).columns;
    assert.ok(x?.kind === 'continuous');
    xs.push(...x.values);
  }
  assert.deepEqual(xs, Array.from({ length: 100 }, (_, n) => n + 1).filter((x) => x % 7 !== 0 && (x < 20 || x > 90)));
});

test('only data whose rows keep their source row as key is read by keyset', () => {
  const stepped = (type: string) => ({ ...compiled(), steps: [{ operation: { config: { type } }, relation: compiled().relation }] }) as never as CompiledDataset;
  assert.ok(readableByKey(compiled()));
  assert.deepEqual(['filter', 'select', 'rename', 'derive', 'aggregate', 'dedupe'].map((type) => readableByKey(stepped(type))), [true, true, true, true, false, false]);
  assert.ok(!readableByKey({ ...compiled(), relation: { ...compiled().relation, order: [{ column: 'x', direction: 'desc' }] } } as never as CompiledDataset));
});

test('a read that finds fewer rows than were counted fails, saying the data changed', async () => {
  const input = await KeysetInput.open(store, { organisationId, compiled: compiled(), condition: null, limit: undefined, keep: [], model }, signal);
  assert.equal(input.rows, 100);
  await input.chunk(0, 50, signal);
  await store.deleteRowsFrom(table, '_causa_row', 800);
  await assert.rejects(input.chunk(50, 100, signal), (error: unknown) => error instanceof AppError && error.code === 'conflict' && /changed while the batch read it/.test(error.message));
});

test('a variable is read by its column\'s type: integers past 2^53 round as JSON numbers do, text reads as a number or missing', async () => {
  const typed: TableRef = { organisationId, tableId: newId('src') };
  await store.createTable(typed, [{ name: '_causa_row', type: 'UInt64' }, { name: 'x', type: 'Nullable(Int64)' }, { name: 'plan', type: 'Nullable(String)' }], ['_causa_row']);
  await store.insertSelect(typed, () => `SELECT number, [toInt64(9007199254740993), NULL, -12][number + 1], 'basic' FROM numbers(3)`);
  const asText: TableRef = { organisationId, tableId: newId('src') };
  await store.createTable(asText, [{ name: '_causa_row', type: 'UInt64' }, { name: 'x', type: 'Nullable(String)' }, { name: 'plan', type: 'Nullable(String)' }], ['_causa_row']);
  await store.insertSelect(asText, () => `SELECT number, ['2.5', 'n/a', NULL][number + 1], 'basic' FROM numbers(3)`);
  const read = async (source: TableRef) => {
    const over: CompiledDataset = { ...compiled(), relation: { ...compiled().relation, sql: (sql) => `SELECT _causa_row AS _causa_k0, x, plan FROM ${sql.table(source.tableId)}` } };
    const input = await KeysetInput.open(store, { organisationId, compiled: over, condition: null, limit: undefined, keep: [], model }, signal);
    const [x] = (await input.chunk(0, 3, signal)).columns;
    assert.ok(x?.kind === 'continuous');
    return [...x.values];
  };
  assert.deepEqual(await read(typed), [9007199254740992, Number.NaN, -12]);
  assert.deepEqual(await read(asText), [2.5, Number.NaN, Number.NaN]);
});

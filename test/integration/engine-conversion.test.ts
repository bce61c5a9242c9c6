/**
 * The engine's SQL conversion of text cells (engine-ingest.ts) against the JS converter (convert.ts), cell by cell:
 * numbers with currency and percent units, accounting parentheses, grouping in every accepted form, and the
 * whitespace JS trims. Both must store the same value or refuse the same cell.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { conversion, engineConvertible, nullish, storedValue } from '../../src/tables/engine-ingest.js';
import { convertCell, storageType } from '../../src/tables/inference/convert.js';
import { isNullCell } from '../../src/tables/inference/infer-schema.js';
import { DATE_FORMATS } from '../../src/tables/inference/dates.js';
import type { InferredColumn } from '../../src/tables/inference/infer-schema.js';
import { sharedDataStore } from '../helpers/app.js';

const CELLS = [
  '$1,234.56', '-$12', '$-12', '(1,234.56)', '($12.50)', '(12%)', '12%', ' 12 % ', '12.5 %', '.5%', '1e3%',
  'USD 1,200', 'USD1200', '1,200 USD', '1.200,50 EUR', 'EUR1.5', 'CHF 3', 'CHF3.25', '3 CHF', '€3,5', '3 €', '3€', '-€3', '£1 000', '¥1000', '₩ 5', '₹ 100',
  'ABCUSD', 'ABC 12', '12 XYZ', 'USD', '$', '%', '()', '(-12)', '--12', '12-', '$$12', '12 USD USD',
  '1 234,5 €', '1\u00a0234,5', '\u00a012\u00a0', '\u202f7 000\u202f', '\u3000 42', 'USD\u00a012', '12\u00a0%',
  '1,234', '1,234.5', '1.234,5', '3,5', '7 000', '+3', '.5', '1e3', '-0', '00012', '12.0', '9007199254740993', '-9223372036854775808', '+9223372036854775807', '9223372036854775808', '99999999999999999999', '1e400', '-1e400', '$1e400', '1.5e2', '1e-3',
  '', 'NA', 'null', ' n/a ', 'abc', '1,23', '12,345,67',
  // A percent sign after digits, a symbol before them: the short ways, and cells just outside them.
  '-$1,234.56', '$1,234.56%', '12,5%', '+12%', '-12%', 'CHF1,234', '-CHF5', '$.5', '-₹5', '$1.2.3', '$12,', '12.%', '₩1,000', '1.234,5%', '$1 234', '$+5', '-$-5',
];

const column = (type: 'integer' | 'decimal'): InferredColumn => ({
  field: 'c', type, subtype: null, availableTypes: [type], isIndex: false, categories: null, aliases: [], description: null,
  displayWidth: null, originalFormat: null, displayFormat: null, unit: 'USD', unitModifier: null, dateOrderAssumed: null,
});

for (const type of ['decimal', 'integer'] as const) {
  test(`a ${type} column with units: the engine converts every cell as the JS converter does`, async () => {
    // Both sides read as the stored value: an integer by its digits (exact beyond 2^53), a decimal as a number.
    const { differences } = await textParity(column(type), CELLS, type === 'integer' ? String : Number);
    assert.deepEqual(differences, []);
  });
}

const DATES = [
  '05/01/2024', '5/1/2024', '31/01/2024', '01/31/2024', '29/02/2024', '02/29/2024', '29/02/2023', '31/04/2024', '00/01/2024', '13/13/2024',
  '05/01/1899', '05/01/2300', ' 05/01/2024 ', '2024/01/05', '2024/1/5', '2024/02/30', '05.01.2024', '5.1.2024', '31.02.2024',
  '05-01-2024', '01-31-2024', '2024-01-05', 'Jan 5, 2024', 'january 5 2024', 'SEPT. 30, 2024', 'Feb 30, 2024', '5 Jan 2024', '05 december 2024',
  '5 Foo 2024', 'Jan 5, 24', '', 'NA', '05/01/2024 10:00', 'x',
];

const DATETIMES = [
  '05/01/2024 10:00', '5/1/2024 10:00', '01/31/2024 23:59:59', '31/01/2024 23:59:59', '02/29/2024 00:00', '29/02/2023 00:00', '13/13/2024 10:00',
  '05/01/2024 24:00', '05/01/2024 23:60', '05/01/2024 23:59:60', '05/01/2024 23:59:61', '05/01/2024 10:00:05.5', '05/01/2024 10:00:05.0005',
  '05/01/2024 10:00:05.123456789', '05/01/2024 10:00:05.9999', '05/01/2024 10:00Z', '05/01/2024 10:00+05:30', '05/01/2024 10:00-0800',
  '05/01/2024T10:00', '05/01/1899 10:00', '12/31/2300 23:00-01:00', '01/01/1900 00:30+01:00', ' 05/01/2024 10:00 ', '05/01/2024', '05/01/2024 1:00',
  '2024-01-05T10:00:00', '2024-01-05 10:00', '', 'NA', 'x',
  // ISO-8601 with a fraction past the millisecond: rounded to the nearest one (ties up, as Math.round), zones applied.
  '2024-01-05T10:00:05.1235', '2024-01-05T10:00:05.9996Z', '2024-01-05 10:00:05.0005', '1969-12-31T23:59:59.9995Z', '1969-12-31T23:59:59.9994Z',
  '2024-01-05T10:00:05.123456789+05:30', '2024-12-31T23:59:59.99951-01:00', '2024-01-05T10:00:05.5', '2024-01-05T10:00:05.0004999',
];

/**
 * Every cell converted by the engine (read back as text) and by JS, both sides read by `read` (text compares as
 * it is): the differences, and whether any cell converted.
 */
async function textParity(column: InferredColumn, cells: readonly string[], read: (value: unknown) => unknown = (v) => v): Promise<{ differences: string[]; read: boolean }> {
  const store = sharedDataStore();
  const org = newId('org');
  const table = { organisationId: org, tableId: newId('raw') };
  await store.ensureTenant(org);
  await store.createTable(table, [{ name: 'i', type: 'UInt32' }, { name: 'c', type: 'Nullable(String)' }], ['i']);
  await store.insert(table, cells.map((c, i) => ({ i, c })));
  const rows = await store.query<{ i: number; v: string | null }>(org, (tenant) => `SELECT i, toString(${conversion(column, 'r.c')}) AS v FROM ${tenant.table(table.tableId)} AS r ORDER BY i`);
  await store.dropTable(table);
  const differences = rows.flatMap((row) => {
    const js = convertCell(column, cells[row.i]!);
    const [engine, expected] = [row.v === null ? null : read(row.v), js === null ? null : read(js)];
    return engine === expected ? [] : [`${JSON.stringify(cells[row.i])}: engine ${JSON.stringify(engine)}, JS ${JSON.stringify(expected)}`];
  });
  return { differences, read: rows.some((row) => row.v !== null) };
}

for (const format of DATE_FORMATS) {
  const cells = format.kind === 'date' ? DATES : DATETIMES;
  test(`a ${format.kind} column written ${format.name}: the engine reads every cell as the JS converter does`, async () => {
    const dated: InferredColumn = { ...column('decimal'), type: format.kind, availableTypes: [format.kind], unit: null, originalFormat: format.name };
    const { differences, read } = await textParity(dated, cells);
    assert.deepEqual(differences, []);
    assert.ok(read, `some cell reads as ${format.name}`);
    assert.equal(engineConvertible([dated]), true);
  });
}

test('columns with units are converted by the engine, not row by row in JS', () => {
  assert.equal(engineConvertible([column('decimal'), column('integer')]), true);
});

const ARRAYS = [
  '[1, 2.5]', '[-0, 1E2, 0.1e-2, -7]', '[9007199254740993]', '[1e308]', '[1e400]', '[100000000000000000000]', '[null]', '[]', ' [ 1 , null ] ', '[true, false, null]',
  '["a", "é", "\\u00e9", "a\\"b", "\\ud83d\\ude00"]', '[""]', '[1, "2"]', '["x", 1]', '[1, true]', '[[1]]', '[{"a": 1}]', '{"a": 1}', '1', '"[1]"', 'abc', '[1,]', "['a']",
  '[NaN]', '[1] x', '', 'NA', 'null',
  '[1.0e20]', '[1e-400]', '[18446744073709551615]', '[18446744073709551616]', '[-9223372036854775808]', '[-9223372036854775809]', '[0.1, 0.2, -1.5e-3]', '[ ]', '[1,\n2]',
  '["\\ud800"]', '["tab\\there"]', '[true ,false]', '[[]]', '[1, [2]]',
];

for (const subtype of ['integer', 'decimal', 'boolean', 'text'] as const) {
  test(`an array column of ${subtype} elements: the engine stores or refuses every cell as the JS path does`, async () => {
    const store = sharedDataStore();
    const org = newId('org');
    const array: InferredColumn = { ...column('decimal'), type: 'array', subtype, availableTypes: ['array'], unit: null };
    const raw = { organisationId: org, tableId: newId('raw') };
    const js = { organisationId: org, tableId: newId('stg') };
    await store.ensureTenant(org);
    await store.createTable(raw, [{ name: 'i', type: 'UInt32' }, { name: 'c', type: 'Nullable(String)' }], ['i']);
    await store.createTable(js, [{ name: 'i', type: 'UInt32' }, { name: 'v', type: storageType(array) }], ['i']);
    await store.insert(raw, ARRAYS.map((c, i) => ({ i, c })));
    // The JS path: convertCell, a present cell converting to null refused, the rest stored by the engine's JSON reader.
    const refusedByJs = new Set<number>();
    for (const [i, cell] of ARRAYS.entries()) {
      const value = convertCell(array, cell);
      if (value === null && !isNullCell(cell)) refusedByJs.add(i);
      else await store.insert(js, [{ i, v: value }]);
    }
    const storedByJs = new Map((await store.query<{ i: number; v: string }>(org, (tenant) => `SELECT i, toJSONString(v) AS v FROM ${tenant.table(js.tableId)}`)).map((r) => [r.i, r.v]));
    const converted = conversion(array, 'r.c');
    const rows = await store.query<{ i: number; refused: number; v: string }>(org, (tenant) =>
      `SELECT i, (NOT ${nullish('r.c')} AND ${converted} IS NULL) AS refused, toJSONString(${storedValue(array, converted)}) AS v FROM ${tenant.table(raw.tableId)} AS r ORDER BY i`);
    const differences = rows.flatMap((row) => {
      const engine = row.refused === 1 ? 'refused' : row.v;
      const expected = refusedByJs.has(row.i) ? 'refused' : storedByJs.get(row.i);
      return engine === expected ? [] : [`${JSON.stringify(ARRAYS[row.i])}: engine ${engine}, JS ${expected}`];
    });
    assert.deepEqual(differences, []);
    assert.ok(rows.some((row) => row.refused === 0 && row.v !== '[]'), 'some cell stores a non-empty array');
    assert.equal(engineConvertible([array]), true);
    await store.dropTable(raw);
    await store.dropTable(js);
  });
}

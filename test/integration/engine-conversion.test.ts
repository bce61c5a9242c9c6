/**
 * The engine's SQL conversion of text cells (engine-ingest.ts) against the JS converter (convert.ts), cell by cell:
 * numbers with currency and percent units, accounting parentheses, grouping in every accepted form, and the
 * whitespace JS trims. Both must store the same value or refuse the same cell.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newId } from '../../src/lib/ids.js';
import { conversion, engineConvertible, nullish } from '../../src/tables/engine-ingest.js';
import { convertCell } from '../../src/tables/inference/convert.js';
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
];

const column = (type: 'integer' | 'decimal'): InferredColumn => ({
  field: 'c', type, subtype: null, availableTypes: [type], isIndex: false, categories: null, aliases: [], description: null,
  displayWidth: null, originalFormat: null, displayFormat: null, unit: 'USD', unitModifier: null, dateOrderAssumed: null,
});

for (const type of ['decimal', 'integer'] as const) {
  test(`a ${type} column with units: the engine converts every cell as the JS converter does`, async () => {
    const store = sharedDataStore();
    const org = newId('org');
    const table = { organisationId: org, tableId: newId('raw') };
    await store.ensureTenant(org);
    await store.createTable(table, [{ name: 'i', type: 'UInt32' }, { name: 'c', type: 'Nullable(String)' }], ['i']);
    await store.insert(table, CELLS.map((c, i) => ({ i, c })));
    const sql = conversion(column(type), 'r.c');
    const rows = await store.query<{ i: number; v: number | string | null; n: number }>(org, (tenant) => `SELECT i, toString(${sql}) AS v, ${nullish('r.c')} AS n FROM ${tenant.table(table.tableId)} AS r ORDER BY i`);
    const differences = rows.flatMap((row) => {
      const js = convertCell(column(type), CELLS[row.i]!);
      const engine = row.v === null ? null : type === 'integer' ? String(row.v) : Number(row.v);
      const expected = js === null ? null : type === 'integer' ? String(js) : Number(js);
      return engine === expected ? [] : [`${JSON.stringify(CELLS[row.i])}: engine ${JSON.stringify(engine)}, JS ${JSON.stringify(expected)}`];
    });
    assert.deepEqual(differences, []);
    await store.dropTable(table);
  });
}

const DATES = [
  '05/01/2024', '5/1/2024', '31/01/2024', '01/31/2024', '29/02/2024', '02/29/2024', '29/02/2023', '31/04/2024', '00/01/2024', '13/13/2024',
  '05/01/1899', '05/01/2300', ' 05/01/2024 ', '2024/01/05', '2024/1/5', '2024/02/30', '05.01.2024', '5.1.2024', '31.02.2024',
  '05-01-2024', '01-31-2024', '2024-01-05', 'Jan 5, 2024', 'january 5 2024', 'SEPT. 30, 2024', 'Feb 30, 2024', '5 Jan 2024', '05 december 2024',
  '5 Foo 2024', 'Jan 5, 24', '', 'NA', '05/01/2024 10:00', 'x',
];

for (const format of DATE_FORMATS.filter((f) => f.kind === 'date')) {
  test(`a date column written ${format.name}: the engine reads every cell as the JS converter does`, async () => {
    const store = sharedDataStore();
    const org = newId('org');
    const table = { organisationId: org, tableId: newId('raw') };
    const dates: InferredColumn = { ...column('decimal'), type: 'date', availableTypes: ['date'], unit: null, originalFormat: format.name };
    await store.ensureTenant(org);
    await store.createTable(table, [{ name: 'i', type: 'UInt32' }, { name: 'c', type: 'Nullable(String)' }], ['i']);
    await store.insert(table, DATES.map((c, i) => ({ i, c })));
    const rows = await store.query<{ i: number; v: string | null }>(org, (tenant) => `SELECT i, toString(${conversion(dates, 'r.c')}) AS v FROM ${tenant.table(table.tableId)} AS r ORDER BY i`);
    const differences = rows.flatMap((row) => {
      const js = convertCell(dates, DATES[row.i]!);
      return row.v === js ? [] : [`${JSON.stringify(DATES[row.i])}: engine ${JSON.stringify(row.v)}, JS ${JSON.stringify(js)}`];
    });
    assert.deepEqual(differences, []);
    assert.ok(rows.some((row) => row.v !== null), `some cell reads as ${format.name}`);
    assert.equal(engineConvertible([dates]), true);
    await store.dropTable(table);
  });
}

test('columns with units are converted by the engine, not row by row in JS', () => {
  assert.equal(engineConvertible([column('decimal'), column('integer')]), true);
});

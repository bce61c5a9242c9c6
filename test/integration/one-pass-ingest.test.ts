/**
 * The one-pass ingest (one-pass-ingest.ts) against the JS converter, cell by cell, in files quoted as writers quote
 * them: an integer column (with its short path for plain digits) and a decimal column either store what convertCell
 * reads, or decline (and leave nothing). Plain cells must be taken, so the test fails if the one pass declined
 * everything.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { csvLine } from '../../src/connectors/drivers/csv.js';
import { newId } from '../../src/lib/ids.js';
import { convertCell, storageType } from '../../src/tables/inference/convert.js';
import { type InferredColumn, isNullCell } from '../../src/tables/inference/infer-schema.js';
import { ROW_COLUMN } from '../../src/tables/ingest.js';
import { ingestInOnePass, plainIntegerColumns } from '../../src/tables/one-pass-ingest.js';
import { sharedDataStore } from '../helpers/app.js';

const CELLS = [
  '+3', '-0', '00012', '12', ' 12 ', '.5', '5.', '12.0', '1e3', '1.5e2', '1e-3', '1E3', '1e400', '-1e400', 'NaN', 'nan', 'inf', '-inf', 'Infinity', '0x1A',
  '9007199254740993', '-9223372036854775808', '+9223372036854775807', '9223372036854775808', '18446744073709551615', '99999999999999999999',
  '0.1000000000000000055511151231257827', '2.2250738585072011e-308', '4.9e-324', '123456789012345678901234567890', '1.7976931348623157e308',
  '1,234', '1,5', '7 000', '$12', '12%', '', 'NA', 'null', 'abc', '--12', '12-', '+', '-', '.', '1..2', '1.2.3',
];

/** Cells of a column written with units (currency, percent, accounting parentheses), and cells near them. */
const UNIT_CELLS = [
  '$1,234.56', '-$12', '$-12', '(1,234.56)', '($12.50)', '12%', ' 12 % ', '-12%', '12,5%', 'USD 1,200', '1.200,50 EUR', '€3,5', '-€3', '£1 000',
  'CHF3.25', '₩1,000', '$1,234.56%', '$$12', '12 USD USD', '$.5', '$1.2.3', '%',
];

const column = (type: 'integer' | 'decimal', unit: string | null = null): InferredColumn => ({
  field: 'c', type, subtype: null, availableTypes: [type], isIndex: false, categories: null, aliases: [], description: null,
  displayWidth: null, originalFormat: null, displayFormat: null, unit, unitModifier: null, dateOrderAssumed: null,
});

for (const [type, unit] of [['integer', null], ['decimal', null], ['decimal', 'USD'], ['integer', '%']] as const) {
  test(`a ${type} column${unit === null ? '' : ` with units (${unit})`} read in one pass stores what the JS converter reads, or declines`, async (t) => {
    const store = sharedDataStore();
    const org = newId('org');
    await store.ensureTenant(org);
    const directory = await mkdtemp(join(tmpdir(), 'causa-one-pass-'));
    t.after(() => rm(directory, { recursive: true, force: true }));
    const columns = [column(type, unit), { ...column(type), field: 'k', type: 'text' as const, availableTypes: ['text' as const] }];
    const plainIntegers = plainIntegerColumns(columns, ['c', 'k'], [['1', 'x'], ['', 'y']]);
    // A plain sample gives an integer column without units the short path for plain digits; others have none.
    assert.deepEqual([...plainIntegers], type === 'integer' && unit === null ? ['c'] : []);
    const cells = unit === null ? CELLS : [...CELLS, ...UNIT_CELLS];
    // Each cell between two plain rows, written as CSV writers write it: quoted only when it must be, or every cell
    // quoted (a quoted empty cell is missing, not 0).
    const quoteAll = (cells: string[]) => `${cells.map((c) => `"${c.replaceAll('"', '""')}"`).join(',')}\n`;
    const files = cells.flatMap((cell) => [csvLine, quoteAll].map((line) => ({ cell, text: line(['c', 'k']) + line(['1', 'a']) + line([cell, 'b']) + line(['2', 'c']) })));
    const outcomes = await Promise.all(files.map(async ({ cell, text }, i) => {
      const path = join(directory, `${i}.csv`);
      await writeFile(path, text);
      const table = { organisationId: org, tableId: newId('src') };
      await store.createTable(table, [{ name: ROW_COLUMN, type: 'UInt64' }, ...columns.map((c) => ({ name: c.field, type: storageType(c) }))], [ROW_COLUMN]);
      // Without two quotes in a row, a plain integer column is parsed straight into a number; with them, as text.
      const rows = await ingestInOnePass(store, table, { path, format: 'CSVWithNames', doubledQuotes: text.includes('""') }, ['c', 'k'], columns, plainIntegers, new Set(), ROW_COLUMN, 5, () => undefined);
      const stored = await store.query<{ r: string; c: string | null; k: string }>(org, (sql) => `SELECT toString(${sql.column(ROW_COLUMN)}) AS r, toString(c) AS c, k FROM ${sql.table(table.tableId)} ORDER BY ${sql.column(ROW_COLUMN)}`);
      await store.dropTable(table);
      return { cell, rows, stored };
    }));
    const differences: string[] = [];
    let taken = 0;
    for (const { cell, rows, stored } of outcomes) {
      if (rows === null) {
        if (stored.length > 0) differences.push(`${JSON.stringify(cell)}: declined but left ${stored.length} rows`);
        continue;
      }
      taken += 1;
      assert.deepEqual(stored.map((row) => [row.r, row.k]), [['5', 'a'], ['6', 'b'], ['7', 'c']], `${JSON.stringify(cell)}: rows numbered from rowStart in file order`);
      const js = convertCell(column(type, unit), cell);
      // A cell the converter refuses (the staged ingest answers 422 naming it) is never taken.
      if (js === null && !isNullCell(cell)) differences.push(`${JSON.stringify(cell)}: taken as ${stored[1]!.c}, JS refuses it`);
      // An integer compares by its digits (exact beyond 2^53), a decimal as the double it is.
      const read = (value: unknown) => (value === null ? null : type === 'integer' ? String(value) : Number(value));
      if (read(stored[1]!.c) !== read(js)) differences.push(`${JSON.stringify(cell)}: one pass ${stored[1]!.c}, JS ${JSON.stringify(js)}`);
    }
    assert.deepEqual(differences, []);
    assert.ok(taken >= 16, `plain cells are taken in one pass (${taken} of ${files.length})`);
  });
}

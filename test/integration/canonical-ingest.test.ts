/**
 * Canonical columns (one-pass-ingest.ts): the cells PostgreSQL's driver writes for integer, decimal, boolean and datetime
 * columns, parsed straight into their types, against the same cells read as text and converted (the path every
 * import took before). Each edge value is stored alone between two plain rows: either both paths store the same
 * value, or the parsed path declines (and leaves nothing), and it never takes a cell the text path refuses.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import type { SqlCredentials } from '../../schemas/connectors.js';
import { canonicalFields, declaredSchema } from '../../src/connectors/declared-schema.js';
import { hostGate } from '../../src/connectors/drivers/network.js';
import { openPostgresDriver } from '../../src/connectors/drivers/postgres.js';
import { newId } from '../../src/lib/ids.js';
import type { DataStore } from '../../src/store/data/port.js';
import { storageType } from '../../src/tables/inference/convert.js';
import { ROW_COLUMN } from '../../src/tables/ingest.js';
import { ingestInOnePass } from '../../src/tables/one-pass-ingest.js';
import { sharedDataStore } from '../helpers/app.js';
import { postgresSchema, text } from '../helpers/connectors.js';

/** Edge values of each canonical column; every row sets one column and leaves the others null. */
const EDGES: Record<string, string[]> = {
  count: ['9223372036854775807', "'-9223372036854775808'", '0', "'-1'"],
  price: ['12345678901234.5678901234', '-0.5', '0', "'NaN'", '0.000000000000000000000000000001', '1e400', '-1e400', '9007199254740993'],
  ratio: ["'NaN'", "'Infinity'", "'-Infinity'", '1e308', '4.9e-324', "'-0'", '0.1', '-2.5e-10'],
  small: ['3.4028235e38', '1.17549435e-38', '0.1', "'NaN'"],
  paid: ['true', 'false'],
  at: [
    "'2024-03-10 01:30:00.123456-05'", "'2024-03-10 01:30:00.9995+00'", "'1969-12-31 23:59:59.9995+00'", "'infinity'", "'-infinity'", "'1850-01-01 00:00:00+00'",
    "'2299-12-31 23:59:59.999999+00'", "'2300-01-01 00:00:00+00'", "'1900-01-01 00:00:00+00'", "'1900-01-01 00:00:00.001+00'", "'0044-03-15 00:00:00+00 BC'", "'10000-01-01 00:00:00+00'",
    "'1850-06-15 13:45:00.5+00'", "'0001-06-15 12:00:00+00'", "'2300-06-15 12:00:00+00'", "'2299-12-31 23:59:59.9995+00'", "'1901-01-01 00:00:00.0005+00'", "'2298-12-31 23:59:59.9996+00'",
  ],
  local: ["'2024-02-29 12:00:00.5'", "'1900-01-01 00:00:00.000001'", "'2299-12-31 23:59:59'"],
};
const TYPES: Record<string, string> = { count: 'bigint', price: 'numeric', ratio: 'double precision', small: 'real', paid: 'boolean', at: 'timestamptz', local: 'timestamp' };
const PLAIN = { k: "'plain'", count: '7', price: '1.5', ratio: '2.5', small: '0.25', paid: 'true', at: "'2024-01-01 00:00:00+00'", local: "'2024-01-01 00:00:00'" };

test('canonical columns of a PostgreSQL extract, parsed into their types, store what their text converts to, or decline', async (t) => {
  const created = await postgresSchema(t, 'causa_canonical');
  if (created === undefined) return;
  const { url, admin, schema } = created;
  const names = Object.keys(TYPES);
  await admin.query(`CREATE TABLE ${schema}.edges (n int, k text, ${names.map((name) => `${name} ${TYPES[name]}`).join(', ')})`);
  const values = [`(0, ${PLAIN.k}, ${names.map((name) => PLAIN[name as keyof typeof PLAIN]).join(', ')})`];
  for (const name of names) for (const value of EDGES[name]!) values.push(`(${values.length}, ${JSON.stringify(`${name} ${value}`).replaceAll("'", "''").replaceAll('"', "'")}, ${names.map((other) => (other === name ? `${value}::${TYPES[name]}` : 'NULL')).join(', ')})`);
  await admin.query(`INSERT INTO ${schema}.edges VALUES ${values.join(', ')}`);

  const credentials: SqlCredentials = { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) || undefined };
  const driver = openPostgresDriver(credentials, { gate: hostGate([url.hostname]), storageRoots: [], ranges: { connections: 1, minBytes: Infinity } });
  t.after(() => driver.close());
  const extract = await driver.extract({ kind: 'query', query: `SELECT k, ${names.join(', ')} FROM ${schema}.edges ORDER BY n` }, new AbortController().signal);
  const csv = await text(extract.stream);
  const canonical = canonicalFields(extract.declared!);
  assert.deepEqual([...canonical].sort(), [...names].sort(), 'the driver declares every integer, decimal, boolean and datetime column canonical');

  const lines = csv.trimEnd().split('\n');
  const records: string[][] = parse(csv);
  const fields = records[0]!;
  const columns = declaredSchema(extract.declared!)(fields, records.slice(1));
  const store = sharedDataStore();
  const org = newId('org');
  await store.ensureTenant(org);
  const directory = await mkdtemp(join(tmpdir(), 'causa-canonical-'));
  t.after(() => rm(directory, { recursive: true, force: true }));

  // The structure each insert parsed its file with: the parsed path must have read the canonical columns as typed.
  const structures: string[] = [];
  const watched: DataStore = { ...store, insertFromFile: (table, path, format, structure, build, params) => (structures.push(structure.map((c) => c.type).join(',')), store.insertFromFile(table, path, format, structure, build, params)) };
  const load = async (path: string, parsed: ReadonlySet<string>) => {
    const table = { organisationId: org, tableId: newId('src') };
    await store.createTable(table, [{ name: ROW_COLUMN, type: 'UInt64' }, ...columns.map((c) => ({ name: c.field, type: storageType(c) }))], [ROW_COLUMN]);
    const rows = await ingestInOnePass(watched, table, { path, format: 'CSVWithNames', doubledQuotes: true }, fields, columns, new Set(), parsed, ROW_COLUMN, 0, () => undefined);
    const stored = await store.query<Record<string, string | null>>(org, (sql) => `SELECT ${fields.map((f) => `toString(${sql.column(f)}) AS ${sql.column(f)}`).join(', ')} FROM ${sql.table(table.tableId)} ORDER BY ${sql.column(ROW_COLUMN)}`);
    await store.dropTable(table);
    return { rows, stored };
  };

  const differences: string[] = [];
  const declined: string[] = [];
  for (const [i, line] of lines.slice(2).entries()) {
    const path = join(directory, `${i}.csv`);
    await writeFile(path, `${lines[0]}\n${lines[1]}\n${line}\n${lines[1]}\n`);
    const label = records[i + 2]![0]!;
    const [parsed, converted] = [await load(path, canonical), await load(path, new Set())];
    if (parsed.rows === null) {
      declined.push(label);
      if (parsed.stored.length > 0) differences.push(`${label}: declined but left ${parsed.stored.length} rows`);
      continue;
    }
    if (converted.rows === null) differences.push(`${label}: parsed as ${JSON.stringify(parsed.stored[1])}, the text path refuses it`);
    else if (JSON.stringify(parsed.stored) !== JSON.stringify(converted.stored)) differences.push(`${label}: parsed ${JSON.stringify(parsed.stored[1])}, converted ${JSON.stringify(converted.stored[1])}`);
  }
  assert.deepEqual(differences, []);
  // Every value inside the stored years takes the parsed path; the refused ones (+-1e400, before 1900, after 2299,
  // BC, year 10000) and those in the first and last stored years (1900, 2299) decline.
  const outside = ['price 1e400', 'price -1e400', ...['1850-01-01 00:00:00+00', '2299-12-31 23:59:59.999999+00', '2300-01-01 00:00:00+00', '1900-01-01 00:00:00+00',
    '1900-01-01 00:00:00.001+00', '0044-03-15 00:00:00+00 BC', '10000-01-01 00:00:00+00', '1850-06-15 13:45:00.5+00', '0001-06-15 12:00:00+00', '2300-06-15 12:00:00+00',
    '2299-12-31 23:59:59.9995+00'].map((v) => `at '${v}'`), "local '1900-01-01 00:00:00.000001'", "local '2299-12-31 23:59:59'"];
  assert.deepEqual(declined.sort(), outside.sort());
  assert.ok(structures.some((s) => s.includes('Int128') && s.includes('Float64') && s.includes('Bool') && s.includes('DateTime64')), `canonical columns parsed into their types: ${structures[0]}`);
});

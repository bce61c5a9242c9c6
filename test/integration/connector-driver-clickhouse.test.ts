import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { ClickHouseLogLevel, createClient } from '@clickhouse/client';
import { parse } from 'csv-parse/sync';
import type { ClickHouseCredentials } from '../../schemas/connectors.js';
import { openClickHouseDriver } from '../../src/connectors/drivers/clickhouse.js';
import { clickHouseKind } from '../../src/connectors/drivers/clickhouse-types.js';
import { type HostGate, hostGate } from '../../src/connectors/drivers/network.js';
import { type ConnectorDriver, type ReadTarget, SourceError } from '../../src/connectors/drivers/port.js';
import { countingListener, refusal, refusingGate, text } from '../helpers/connectors.js';

/**
 * The ClickHouse driver against a real server on loopback: TEST_CLICKHOUSE_SOURCE_URL, by default http://127.0.0.1:8123
 * (scripts/clickhouse-server.sh starts one; a user and password may be written in the URL). Without a server the
 * cases are skipped, unless CAUSA_REQUIRE_SCALE_OUT=1 (CI), where that is a failure. The fixtures live in a
 * database of their own, dropped at the end. Written for the oldest server we run (Debian's 18.16) and current ones.
 */
const url = new URL(process.env.TEST_CLICKHOUSE_SOURCE_URL || 'http://127.0.0.1:8123');
const adminUser = decodeURIComponent(url.username) || 'default';
const adminPassword = decodeURIComponent(url.password);
url.username = '';
url.password = '';
const serverUrl = url.origin;
const port = url.port === '' ? (url.protocol === 'https:' ? 8443 : 8123) : Number(url.port);
const loopback = hostGate([url.hostname]);
const never = new AbortController().signal;

const admin = createClient({ url: serverUrl, username: adminUser, password: adminPassword, log: { level: ClickHouseLogLevel.OFF } });
const reachable = await admin.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then(
  () => true,
  (error: Error) => {
    if (process.env.CAUSA_REQUIRE_SCALE_OUT === '1') throw new Error(`TEST_CLICKHOUSE_SOURCE_URL: no server (${error.message}), but CAUSA_REQUIRE_SCALE_OUT=1 requires it`);
    return false;
  },
);
const skip = reachable ? false : `no ClickHouse server answers at ${serverUrl} (TEST_CLICKHOUSE_SOURCE_URL; scripts/clickhouse-server.sh starts one)`;

const db = `causa_chd_${randomBytes(3).toString('hex')}`;
const fields: ClickHouseCredentials = { url: serverUrl, user: adminUser, password: adminPassword || undefined, database: db };
/** A string literal for the fixtures (backslash escapes: quote, backslash, line break). */
const lit = (value: string) => `'${value.replace(/[\\']/g, (c) => `\\${c}`).replaceAll('\n', '\\n')}'`;
const NOTE = 'Zoë "Q", comma\nnext line 😀';
const ITEMS = [
  [1, 'apple', 30],
  [2, 'pear', 10],
  [3, 'plum', 50],
  [4, 'fig', 20],
  [5, 'kiwi', 40],
] as const;

async function run(sql: string): Promise<Array<Record<string, unknown>>> {
  if (/^\s*(SELECT|DESCRIBE)/i.test(sql)) return (await admin.query({ query: sql, format: 'JSONEachRow' })).json();
  await admin.command({ query: sql });
  return [];
}

if (reachable) {
  await run(`CREATE DATABASE ${db}`);
  await run(`CREATE TABLE ${db}.items (id UInt32, name String, qty Nullable(Int32)) ENGINE = MergeTree ORDER BY id`);
  await run(`INSERT INTO ${db}.items VALUES ${ITEMS.map(([id, name, qty]) => `(${id}, ${lit(name)}, ${qty})`).join(', ')}`);
  await run(`CREATE VIEW ${db}.items_view AS SELECT id, name FROM ${db}.items`);
  await run(`CREATE TABLE ${db}.x_y (a Int32) ENGINE = Memory`);
  await run(`CREATE TABLE ${db}.xzy (a Int32) ENGINE = Memory`);
  await run(
    `CREATE TABLE ${db}.kinds (id UInt32, amount Decimal(38, 10), big Int64, ubig UInt64, at DateTime('Asia/Tokyo'), day Date, ` +
      'maybe Nullable(Int32), maybe_text Nullable(String), ints Array(Int32), words Array(String), note String, `full name` String, ' +
      'ratio Float64, small UInt8) ENGINE = MergeTree ORDER BY id',
  );
  // Datetimes are written as instants (seconds since the epoch): 2024-01-02T00:04:05Z, 1999-12-31T23:59:59Z.
  await run(
    `INSERT INTO ${db}.kinds VALUES ` +
      `(1, '12345678901234567890.1234567891', 9007199254740993, 18446744073709551615, toDateTime(1704153845), '2024-02-29', 42, 'text', ` +
      `[1, -2, 2147483647], [${lit('a"b')}, 'c,d', ''], ${lit(NOTE)}, 'x y', 0.1, 255), ` +
      `(2, '-0.0000000001', -9223372036854775808, 0, toDateTime(946684799), '1999-12-31', NULL, NULL, [], [], ' leading space', '', 2.5, 0)`,
  );
}

after(async () => {
  if (reachable) await run(`DROP DATABASE IF EXISTS ${db}`);
  await admin.close();
});

function driver(t: { after(fn: () => Promise<void>): void }, credentials: ClickHouseCredentials = fields, gate: HostGate = loopback): ConnectorDriver {
  const opened = openClickHouseDriver(credentials, { gate, storageRoots: [], ranges: { connections: 1, minBytes: 8192 } });
  t.after(() => opened.close());
  return opened;
}

async function itemsIntact(): Promise<void> {
  const rows = await run(`SELECT id, name, qty FROM ${db}.items ORDER BY id`);
  assert.deepEqual(
    rows.map((row) => [row.id, row.name, row.qty]),
    ITEMS.map((item) => [...item]),
  );
}

test('test() reaches the server through the gate and answers its version', { skip }, async (t) => {
  const result = await driver(t).test(never);
  const [row] = await run('SELECT version() AS v');
  assert.equal(result.serverVersion, row!.v);
  assert.match(result.serverVersion ?? '', /^\d+\.\d+/);
});

test('the socket goes to the address the gate answers, never to the name; the port defaults by scheme', { skip }, async (t) => {
  const asked: Array<[string, number]> = [];
  const gate: HostGate = async (host, gatePort) => {
    asked.push([host, gatePort]);
    return '127.0.0.1';
  };
  const named = new URL(serverUrl);
  named.hostname = 'clickhouse.causa-test.invalid';
  const result = await driver(t, { ...fields, url: named.origin }, gate).test(never);
  assert.ok(result.serverVersion);
  assert.deepEqual(asked, [['clickhouse.causa-test.invalid', port]]);

  const refuse: HostGate = async (host, gatePort) => {
    asked.push([host, gatePort]);
    throw new SourceError('unreachable', 'not here');
  };
  await refusal(driver(t, { url: 'http://plain.causa-test.invalid' }, refuse).test(never));
  await refusal(driver(t, { url: 'https://tls.causa-test.invalid' }, refuse).test(never));
  await refusal(driver(t, { url: 'https://tls.causa-test.invalid:9443/' }, refuse).test(never));
  assert.deepEqual(asked.slice(1), [
    ['plain.causa-test.invalid', 8123],
    ['tls.causa-test.invalid', 8443],
    ['tls.causa-test.invalid', 9443],
  ]);
});

test('a gate that refuses stops every operation before a socket is opened', { skip }, async (t) => {
  const listener = await countingListener(t);
  const d = driver(t, { ...fields, url: `http://127.0.0.1:${listener.port}` }, refusingGate);
  const attempts = [
    d.test(never),
    d.browse({ level: 'tables', context: {}, limit: 10 }, never),
    d.preview({ kind: 'table', table: 'items' }, 5, never),
    d.extract({ kind: 'table', table: 'items' }, never),
  ];
  for (const attempt of attempts) {
    const error = await refusal(attempt);
    assert.equal(error.kind, 'unreachable');
    assert.match(error.message, /may not reach 127\.0\.0\.1/);
  }
  assert.equal(listener.sockets(), 0);
  // The real gate refuses loopback unless the operator admits it.
  const closed = await refusal(driver(t, fields, hostGate([])).test(never));
  assert.equal(closed.kind, 'unreachable');
  assert.match(closed.message, /may not reach/);
});

test('only an http(s) url without credentials or a query string is accepted', { skip }, async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['ftp://127.0.0.1:8123', /http:\/\/ or https:\/\//],
    ['not a url', /http:\/\/ or https:\/\//],
    [`http://someone:Url-Secret-1@127.0.0.1:${port}`, /must not hold a user or password/],
    [`http://127.0.0.1:${port}/?user=default`, /query string/],
  ];
  for (const [written, message] of cases) {
    const error = await refusal(driver(t, { url: written }).test(never));
    assert.equal(error.kind, 'unreachable', written);
    assert.match(error.message, message);
    assert.ok(!error.message.includes('Url-Secret-1'));
  }
});

test('a wrong password or an unknown user is unreachable and the message never holds the password', { skip }, async (t) => {
  const wrong = await refusal(driver(t, { ...fields, password: 'Wrong-Secret-4711' }).test(never));
  assert.equal(wrong.kind, 'unreachable');
  assert.match(wrong.message, /password|Authentication failed/i);
  assert.ok(!wrong.message.includes('Wrong-Secret-4711'));
  const unknown = await refusal(driver(t, { ...fields, user: `${db}_nobody`, password: 'Other-Secret-17' }).browse({ level: 'databases', context: {}, limit: 5 }, never));
  assert.equal(unknown.kind, 'unreachable');
  assert.ok(!unknown.message.includes('Other-Secret-17'));
  const refused = await refusal(driver(t, { url: 'http://127.0.0.1:1' }).test(never));
  assert.equal(refused.kind, 'unreachable');
  assert.match(refused.message, /ECONNREFUSED/);
});

test('browse lists databases without the system ones, filtered case-insensitively', { skip }, async (t) => {
  const d = driver(t);
  const all = await d.browse({ level: 'databases', context: {}, limit: 1000 }, never);
  assert.ok(all.some((entry) => entry.name === db && entry.kind === 'database'));
  for (const system of ['system', 'INFORMATION_SCHEMA', 'information_schema']) assert.ok(!all.some((entry) => entry.name === system), system);
  const found = await d.browse({ level: 'databases', context: {}, search: db.toUpperCase(), limit: 10 }, never);
  assert.deepEqual(found, [{ name: db, kind: 'database' }]);
  assert.deepEqual(await d.browse({ level: 'databases', context: {}, search: "no such database ' %", limit: 10 }, never), []);
});

test('browse lists tables and views, with the row count where the server keeps one; search and limit hold', { skip }, async (t) => {
  const d = driver(t);
  const listed = await d.browse({ level: 'tables', context: {}, search: 'ITEMS', limit: 10 }, never);
  assert.deepEqual(
    listed.map(({ name, kind }) => ({ name, kind })),
    [
      { name: 'items', kind: 'table' },
      { name: 'items_view', kind: 'view' },
    ],
  );
  const keepsCounts = (await run("SELECT name FROM system.columns WHERE database = 'system' AND table = 'tables' AND name = 'total_rows'")).length > 0;
  assert.equal(listed[0]!.rowEstimate, keepsCounts ? ITEMS.length : null);
  assert.equal(listed[1]!.rowEstimate, null);
  const explicit = await driver(t, { ...fields, database: undefined }).browse({ level: 'tables', context: { database: db }, limit: 10 }, never);
  assert.deepEqual(explicit.map((entry) => entry.name), ['items', 'items_view', 'kinds', 'x_y', 'xzy']);
  // Search is a substring, not a pattern: `_` is an underscore and `%` matches nothing.
  assert.deepEqual((await d.browse({ level: 'tables', context: {}, search: 'x_y', limit: 10 }, never)).map((entry) => entry.name), ['x_y']);
  assert.deepEqual(await d.browse({ level: 'tables', context: {}, search: '%', limit: 10 }, never), []);
  assert.equal((await d.browse({ level: 'tables', context: {}, limit: 2 }, never)).length, 2);
  assert.deepEqual(await d.browse({ level: 'tables', context: { database: `${db}_none'` }, limit: 10 }, never), []);
});

test('browse lists columns with their type and nullability; it needs the table', { skip }, async (t) => {
  const d = driver(t);
  const columns = await d.browse({ level: 'columns', context: { database: db, table: 'kinds' }, limit: 100 }, never);
  assert.equal(columns.length, 14);
  assert.deepEqual(columns[0], { name: 'id', kind: 'column', dataType: 'UInt32', nullable: false });
  assert.deepEqual(columns[1], { name: 'amount', kind: 'column', dataType: 'Decimal(38, 10)', nullable: false });
  assert.deepEqual(columns[6], { name: 'maybe', kind: 'column', dataType: 'Nullable(Int32)', nullable: true });
  assert.ok(columns.some((column) => column.name === 'full name' && column.dataType === 'String'));
  const searched = await d.browse({ level: 'columns', context: { table: 'kinds' }, search: 'NAME', limit: 100 }, never);
  assert.deepEqual(searched.map((column) => column.name), ['full name']);

  const missing = await refusal(d.browse({ level: 'columns', context: { database: db }, limit: 10 }, never));
  assert.equal(missing.kind, 'query');
  assert.match(missing.message, /`table`/);
  const unknownTable = await refusal(d.browse({ level: 'columns', context: { table: "nothing'here" }, limit: 10 }, never));
  assert.equal(unknownTable.kind, 'query');
  assert.match(unknownTable.message, /doesn't exist/);
  const level = await refusal(d.browse({ level: 'schemas', context: {}, limit: 10 }, never));
  assert.equal(level.kind, 'query');
  assert.equal(level.message, 'Unknown level "schemas"; this connector browses: databases, tables (context database), columns (context database, table)');
});

test('preview of a table returns at most limit + 1 rows, with JSON-safe values and source types', { skip }, async (t) => {
  const d = driver(t);
  const two = await d.preview({ kind: 'table', table: 'items' }, 2, never);
  assert.equal(two.rows.length, 3);
  assert.deepEqual(two.columns, [
    { name: 'id', type: 'UInt32' },
    { name: 'name', type: 'String' },
    { name: 'qty', type: 'Nullable(Int32)' },
  ]);
  assert.equal((await driver(t, { ...fields, database: undefined }).preview({ kind: 'table', table: 'items', database: db }, 10, never)).rows.length, 5);

  const typed = await d.preview({ kind: 'table', table: 'kinds' }, 10, never);
  const [first, second] = typed.rows;
  assert.equal(first!.amount, '12345678901234567890.1234567891', 'beyond a double: kept as text');
  assert.equal(first!.big, '9007199254740993');
  assert.equal(first!.ubig, '18446744073709551615');
  assert.equal(second!.big, '-9223372036854775808');
  assert.equal(second!.ubig, 0, 'a 64-bit integer a double holds is a number');
  assert.equal(first!.at, '2024-01-02T00:04:05.000Z', 'a Tokyo wall time read as its UTC instant');
  assert.equal(first!.day, '2024-02-29');
  assert.deepEqual(first!.ints, [1, -2, 2147483647]);
  assert.deepEqual(first!.words, ['a"b', 'c,d', '']);
  assert.equal(first!.note, NOTE);
  assert.equal(first!['full name'], 'x y');
  assert.equal(first!.small, 255);
  assert.equal(second!.maybe, null);
  assert.equal(second!.maybe_text, null);
  assert.equal(typed.columns.find((column) => column.name === 'at')!.type, "DateTime('Asia/Tokyo')");
});

test('preview of a query keeps its ORDER BY, accepts WITH, a trailing semicolon and comment; limit holds', { skip }, async (t) => {
  const d = driver(t);
  const ordered = await d.preview({ kind: 'query', query: `SELECT name, qty FROM items ORDER BY qty DESC;` }, 2, never);
  assert.deepEqual(ordered.rows, [
    { name: 'plum', qty: 50 },
    { name: 'kiwi', qty: 40 },
    { name: 'apple', qty: 30 },
  ]);
  const cte = await d.preview({ kind: 'query', query: 'WITH 25 AS cheap SELECT name FROM items WHERE qty < cheap ORDER BY name -- the cheap ones' }, 10, never);
  assert.deepEqual(cte.rows, [{ name: 'fig' }, { name: 'pear' }]);
  const small = await d.preview({ kind: 'query', query: 'SELECT toInt64(3) AS n, toDecimal64(1.5, 2) AS d' }, 1, never);
  assert.deepEqual(small.rows, [{ n: 3, d: 1.5 }]);
  assert.deepEqual(small.columns, [
    { name: 'n', type: 'Int64' },
    { name: 'd', type: 'Decimal(18, 2)' },
  ]);
});

test('every statement is read-only with a statement timeout: 30 s for a preview, hours for an extract', { skip }, async (t) => {
  const d = driver(t);
  const query = "SELECT name, value FROM system.settings WHERE name IN ('readonly', 'max_execution_time') ORDER BY name";
  const preview = await d.preview({ kind: 'query', query }, 5, never);
  assert.deepEqual(preview.rows, [
    { name: 'max_execution_time', value: '30' },
    { name: 'readonly', value: '1' },
  ]);
  const extract = await d.extract({ kind: 'query', query }, never);
  assert.deepEqual(parse(await text(extract.stream)), [
    ['name', 'value'],
    ['max_execution_time', String(6 * 3600)],
    ['readonly', '1'],
  ]);
});

/** A setting no server has by default: a SETTINGS clause with it changes something. */
const CHANGED_SETTING = 'max_block_size = 12345';

test('writes sent as a query fail on the source, in preview and extract, and the table keeps its rows', { skip }, async (t) => {
  const d = driver(t);
  const writes = [
    `ALTER TABLE ${db}.items DELETE WHERE 1`,
    `INSERT INTO ${db}.items VALUES (99, 'x', 1)`,
    `DROP TABLE ${db}.items`,
    `TRUNCATE TABLE ${db}.items`,
    `SELECT 1; DROP TABLE ${db}.items`,
  ];
  for (const sql of writes) {
    const target: ReadTarget = { kind: 'query', query: sql };
    assert.equal((await refusal(d.preview(target, 5, never))).kind, 'query', sql);
    assert.equal((await refusal(d.extract(target, never))).kind, 'query', sql);
    await itemsIntact();
  }
  // What a SELECT can change, a setting, the server refuses: the statement runs with readonly=1. The value differs
  // from every default (ClickHouse lets a read-only statement "set" a setting to the value it already has, so
  // max_threads = 1 passes on a one-core machine).
  const setting = await refusal(d.preview({ kind: 'query', query: `SELECT * FROM items SETTINGS ${CHANGED_SETTING}` }, 5, never));
  assert.equal(setting.kind, 'query');
  assert.match(setting.message, /readonly/);
});

test('a user whose profile is read-only reads too (the settings it may not change are left out)', { skip }, async (t) => {
  // Debian's 18.16 package ships a `readonly` user (profile readonly=1) without a password; other servers may not.
  const reader = driver(t, { url: serverUrl, user: 'readonly', database: db });
  const reached = await reader.test(never).catch((error: unknown) => error);
  if (reached instanceof SourceError) return t.skip(`this server has no passwordless "readonly" user (${reached.message.slice(0, 80)})`);
  const preview = await reader.preview({ kind: 'table', table: 'items' }, 10, never);
  assert.equal(preview.rows.length, 5);
  const extract = await reader.extract({ kind: 'query', query: 'SELECT id FROM items ORDER BY id' }, never);
  assert.equal(await text(extract.stream), 'id\n1\n2\n3\n4\n5\n');
  assert.equal((await refusal(reader.preview({ kind: 'query', query: `SELECT * FROM items SETTINGS ${CHANGED_SETTING}` }, 5, never))).kind, 'query');
  await itemsIntact();
});

test('an unknown table or a bad query is a query error', { skip }, async (t) => {
  const d = driver(t);
  for (const target of [{ kind: 'table', table: 'nothing' }, { kind: 'query', query: 'SELECT * FROM nothing' }] as ReadTarget[]) {
    const previewed = await refusal(d.preview(target, 5, never));
    assert.equal(previewed.kind, 'query');
    assert.match(previewed.message, /nothing doesn't exist|UNKNOWN_TABLE/);
    assert.equal((await refusal(d.extract(target, never))).kind, 'query');
  }
  assert.equal((await refusal(d.preview({ kind: 'query', query: 'SELEC nonsense' }, 5, never))).kind, 'query');
  assert.equal((await refusal(d.preview({ kind: 'path', path: 'x.csv' }, 5, never))).kind, 'query');
});

test('extract streams awkward types as CSV the ingest reads back exactly, with declared kinds', { skip }, async (t) => {
  const extract = await driver(t).extract({ kind: 'table', table: 'kinds' }, never);
  assert.equal(extract.format, 'csv');
  assert.deepEqual(
    extract.declared?.map(({ name, sourceType, kind, elementKind }) => [name, sourceType, kind, elementKind]),
    [
      ['id', 'UInt32', 'integer', undefined],
      ['amount', 'Decimal(38, 10)', 'decimal', undefined],
      ['big', 'Int64', 'integer', undefined],
      ['ubig', 'UInt64', 'decimal', undefined],
      ['at', "DateTime('Asia/Tokyo')", 'datetime', undefined],
      ['day', 'Date', 'date', undefined],
      ['maybe', 'Nullable(Int32)', 'integer', undefined],
      ['maybe_text', 'Nullable(String)', 'text', undefined],
      ['ints', 'Array(Int32)', 'array', 'integer'],
      ['words', 'Array(String)', 'array', 'text'],
      ['note', 'String', 'text', undefined],
      ['full name', 'String', 'text', undefined],
      ['ratio', 'Float64', 'decimal', undefined],
      ['small', 'UInt8', 'integer', undefined],
    ],
  );
  const records = parse(await text(extract.stream), { relax_column_count: false }) as string[][];
  const expected = [
    ['id', 'amount', 'big', 'ubig', 'at', 'day', 'maybe', 'maybe_text', 'ints', 'words', 'note', 'full name', 'ratio', 'small'],
    ['1', '12345678901234567890.1234567891', '9007199254740993', '18446744073709551615', '2024-01-02T00:04:05.000Z', '2024-02-29', '42', 'text',
      '[1,-2,2147483647]', '["a\\"b","c,d",""]', NOTE, 'x y', '0.1', '255'],
    ['2', '-0.0000000001', '-9223372036854775808', '0', '1999-12-31T23:59:59.000Z', '1999-12-31', '', '', '[]', '[]', ' leading space', '', '2.5', '0'],
  ];
  assert.equal(records.length, expected.length);
  for (const [r, record] of records.entries()) {
    assert.equal(record.length, expected[0]!.length, `row ${r}`);
    for (const [c, cell] of record.entries()) assert.equal(cell, expected[r]![c], `row ${r}, column ${expected[0]![c]}`);
  }
  const keepsCounts = (await run("SELECT name FROM system.columns WHERE database = 'system' AND table = 'tables' AND name = 'total_rows'")).length > 0;
  assert.equal(extract.estimatedRows, keepsCounts ? 2 : null);
});

test('extract of a query: zero dates are the epoch, wide numbers in arrays keep their digits, an empty result is its header', { skip }, async (t) => {
  const d = driver(t);
  const query =
    "SELECT toDateTime(0) AS z, toDate(0) AS d, 'x' AS `odd \"name\", here`, [toInt64(1), toInt64(9007199254740993)] AS ints, " +
    '[toDecimal64(1.5, 2), toDecimal64(-0.25, 2)] AS prices';
  const zero = await d.extract({ kind: 'query', query }, never);
  assert.deepEqual(
    zero.declared?.map((column) => [column.kind, column.elementKind]),
    [['datetime', undefined], ['date', undefined], ['text', undefined], ['array', 'integer'], ['array', 'decimal']],
  );
  assert.deepEqual(parse(await text(zero.stream)), [
    ['z', 'd', 'odd "name", here', 'ints', 'prices'],
    ['1970-01-01T00:00:00.000Z', '1970-01-01', 'x', '[1,"9007199254740993"]', '[1.5,-0.25]'],
  ]);
  const previewed = await d.preview({ kind: 'query', query }, 1, never);
  assert.deepEqual(previewed.rows[0]!.ints, [1, '9007199254740993']);
  assert.deepEqual(previewed.rows[0]!.prices, [1.5, -0.25]);
  assert.equal(zero.estimatedRows, null);
  const empty = await d.extract({ kind: 'query', query: 'SELECT id, name FROM items WHERE id > 100' }, never);
  assert.equal(await text(empty.stream), 'id,name\n');
});

test('a statement failing mid-stream destroys the stream with a query SourceError', { skip }, async (t) => {
  const query = 'SELECT number, throwIf(number = 300000) AS boom FROM system.numbers LIMIT 400000';
  const extract = await driver(t).extract({ kind: 'query', query }, never);
  let rows = 0;
  extract.stream.on('data', (chunk: Buffer) => (rows += String(chunk).split('\n').length - 1));
  const error = await text(extract.stream).then(
    () => assert.fail('the stream should fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SourceError, String(error));
  assert.equal(error.kind, 'query');
  assert.match(error.message, /throwIf|FUNCTION_THROW_IF_VALUE_IS_NON_ZERO/);
  assert.ok(rows > 1000, `${rows} rows arrived before the failure`);
  assert.ok(extract.stream.destroyed);
});

test('aborting during an extract destroys the stream and ends the statement on the server', { skip }, async (t) => {
  const marker = `${db}_abort_marker`;
  const controller = new AbortController();
  const extract = await driver(t).extract({ kind: 'query', query: `SELECT number /* ${marker} */ FROM system.numbers` }, controller.signal);
  const failed = once(extract.stream, 'error');
  await once(extract.stream, 'readable');
  assert.ok(extract.stream.read() !== null);
  controller.abort();
  const [error] = (await failed) as [SourceError];
  assert.ok(error instanceof SourceError);
  assert.equal(error.message, 'The request was cancelled');
  assert.ok(extract.stream.destroyed);
  // The server notices the closed socket on its next write; wait for the statement to go (bounded).
  let running = 1;
  for (let attempt = 0; attempt < 100 && running > 0; attempt += 1) {
    const rows = await run(`SELECT count() AS n FROM system.processes WHERE query LIKE '%${marker}%' AND query NOT LIKE '%system.processes%'`);
    running = Number(rows[0]!.n);
    if (running > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(running, 0);
});

test('an already aborted signal rejects as cancelled', { skip }, async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await refusal(driver(t).preview({ kind: 'table', table: 'items' }, 5, controller.signal));
  assert.equal(error.kind, 'query');
  assert.match(error.message, /cancelled/);
});

test('ClickHouse types map to declared kinds, wrappers stripped (types newer servers have too)', () => {
  const cases: Array<[string, string, string?]> = [
    ['UInt8', 'integer'],
    ['Int64', 'integer'],
    ['Int256', 'decimal'],
    ['LowCardinality(Nullable(UInt64))', 'decimal'],
    ['Float32', 'decimal'],
    ['Decimal(38, 10)', 'decimal'],
    ['Decimal64(4)', 'decimal'],
    ['Bool', 'boolean'],
    ['Nullable(Bool)', 'boolean'],
    ['Date32', 'date'],
    ["DateTime('Europe/Berlin')", 'datetime'],
    ["Nullable(DateTime64(6, 'UTC'))", 'datetime'],
    ['Array(Nullable(Int32))', 'array', 'integer'],
    ['Array(Decimal(10, 2))', 'array', 'decimal'],
    ['Array(Bool)', 'array', 'boolean'],
    ['Array(Array(Int8))', 'array', 'text'],
    ['Array(LowCardinality(String))', 'array', 'text'],
    ['Array(Tuple(\n    a UInt8,\n    b String))', 'array', 'text'],
    ['Tuple(\n    a UInt8,\n    b String)', 'object'],
    ['Map(String, UInt64)', 'object'],
    ['Tuple(a UInt8, b String)', 'object'],
    ['JSON', 'object'],
    ["Object('json')", 'object'],
    ['LowCardinality(String)', 'text'],
    ["Enum8('a' = 1)", 'text'],
    ['UUID', 'text'],
    ['FixedString(3)', 'text'],
    ['IPv6', 'text'],
  ];
  for (const [type, kind, elementKind] of cases) assert.deepEqual(clickHouseKind(type), elementKind === undefined ? { kind } : { kind, elementKind }, type);
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import mysql from 'mysql2/promise';
import type { SqlCredentials } from '../../schemas/connectors.js';
import { openMySqlDriver } from '../../src/connectors/drivers/mysql.js';
import { type HostGate, hostGate } from '../../src/connectors/drivers/network.js';
import { type ConnectorDriver, type ReadTarget, SourceError } from '../../src/connectors/drivers/port.js';
import { countingListener, refusal, refusingGate, text } from '../helpers/connectors.js';

/**
 * The MySQL / MariaDB driver against a real server on loopback: TEST_MYSQL_URL, by default
 * mysql://root@127.0.0.1:3306/test (the database must exist). Without a server the cases are skipped, unless
 * CAUSA_REQUIRE_SCALE_OUT=1 (CI), where that is a failure. Every table made here carries a unique prefix and is
 * dropped at the end.
 */
const url = new URL(process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306/test');
const server = {
  host: url.hostname,
  port: url.port === '' ? 3306 : Number(url.port),
  user: decodeURIComponent(url.username),
  password: decodeURIComponent(url.password),
  database: decodeURIComponent(url.pathname.slice(1)),
};
const fields: SqlCredentials = { host: server.host, port: server.port, database: server.database, user: server.user, password: server.password || undefined };
const loopback = hostGate([server.host]);
const never = new AbortController().signal;

const admin = await mysql
  .createConnection({ ...server, password: server.password || undefined, supportBigNumbers: true, bigNumberStrings: true, dateStrings: true })
  .catch((error: Error) => {
    if (process.env.CAUSA_REQUIRE_SCALE_OUT === '1') throw new Error(`TEST_MYSQL_URL: no server (${error.message}), but CAUSA_REQUIRE_SCALE_OUT=1 requires it`);
    return null;
  });
const skip = admin === null ? 'no MySQL/MariaDB server at TEST_MYSQL_URL (or mysql://root@127.0.0.1:3306/test)' : false;

const p = `cdm${randomBytes(3).toString('hex')}_`;
const user = `${p}reader`;
const userPassword = 'p@ss:w/rd%1 #';
const q = (name: string) => `\`${name}\``;
const items = `${p}items`;
const kinds = `${p}kinds`;
const many = `${p}many`;

if (admin !== null) {
  const run = (sql: string, values?: unknown[]) => admin.query(sql, values);
  await run(`CREATE TABLE ${q(items)} (id INT PRIMARY KEY, name VARCHAR(50) NOT NULL, qty INT)`);
  await run(`INSERT INTO ${q(items)} VALUES (1, 'apple', 30), (2, 'pear', 10), (3, 'plum', 50), (4, 'fig', 20), (5, 'kiwi', 40)`);
  await run(`CREATE VIEW ${q(`${p}items_view`)} AS SELECT id, name FROM ${q(items)}`);
  await run(`CREATE TABLE ${q(`${p}x_y`)} (a INT)`);
  await run(`CREATE TABLE ${q(`${p}xzy`)} (a INT)`);
  await run(`CREATE TABLE ${q(many)} (i INT PRIMARY KEY)`);
  await run(`INSERT INTO ${q(many)} VALUES ${Array.from({ length: 1000 }, (_, i) => `(${i + 1})`).join(',')}`);
  await run(
    `CREATE TABLE ${q(kinds)} (id INT PRIMARY KEY, amount DECIMAL(20,6), big BIGINT, flag TINYINT(1), bit1 BIT(1), bits BIT(5), yr YEAR, ` +
      'day DATE, at_dt DATETIME(3), at_ts TIMESTAMP NULL, doc JSON, `full name` VARCHAR(200), note TEXT, colour ENUM(\'red\', \'green\'), ' +
      't TIME, raw VARBINARY(8), ratio DOUBLE)',
  );
  // The creator's session is not UTC: a TIMESTAMP is stored as the instant, a DATETIME as the wall time written.
  await run(`SET time_zone = '+05:30'`);
  await run(
    `INSERT INTO ${q(kinds)} VALUES ` +
      `(1, '12345678901234.123456', 9007199254740993, 1, b'1', b'10101', 2024, '2024-02-29', '2024-03-01 12:00:00.250', '2024-03-01 12:00:00', ` +
      `'{"a": [1, 2], "b": "x"}', ?, 'plain', 'red', '12:30:05', x'00ff10', 0.1), ` +
      `(2, '-0.000001', -9007199254740993, 0, b'0', b'00000', 1999, '1999-12-31', '1999-12-31 23:59:59', '2000-01-01 05:29:59', ` +
      `'[1, "two", null]', ' leading space', '', 'green', '-01:00:00', x'', 2.5), ` +
      `(3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)`,
    ['Zoë "Q", comma\nnext line 😀'],
  );
  await run(
    `CREATE FUNCTION ${q(`${p}writer`)}() RETURNS INT MODIFIES SQL DATA BEGIN INSERT INTO ${q(items)} VALUES (100, 'sneaky', 1); RETURN 1; END`,
  );
  await run(`CREATE USER ?@'%' IDENTIFIED BY ?`, [user, userPassword]);
  await run(`GRANT SELECT ON ${q(server.database)}.* TO ?@'%'`, [user]);
}

after(async () => {
  if (admin === null) return;
  await admin.query(`DROP USER IF EXISTS ?@'%'`, [user]);
  await admin.query(`DROP FUNCTION IF EXISTS ${q(`${p}writer`)}`);
  await admin.query(`DROP VIEW IF EXISTS ${q(`${p}items_view`)}`);
  for (const table of [items, kinds, many, `${p}x_y`, `${p}xzy`]) await admin.query(`DROP TABLE IF EXISTS ${q(table)}`);
  await admin.end();
});

function driver(t: { after(fn: () => Promise<void>): void }, credentials: SqlCredentials = fields, gate: HostGate = loopback): ConnectorDriver {
  const opened = openMySqlDriver(credentials, { gate, storageRoots: [], ranges: { connections: 1, minBytes: 8192 } });
  t.after(() => opened.close());
  return opened;
}

async function itemsIntact(): Promise<void> {
  const [rows] = await admin!.query(`SELECT id FROM ${q(items)} ORDER BY id`);
  assert.deepEqual((rows as Array<{ id: number }>).map((row) => row.id), [1, 2, 3, 4, 5]);
}

test('test() reaches the server through the gate and answers its version', { skip }, async (t) => {
  const result = await driver(t).test(never);
  assert.match(result.serverVersion ?? '', /MariaDB|^\d+\.\d+/);
  const [[row]] = (await admin!.query('SELECT VERSION() AS v')) as unknown as [[{ v: string }]];
  assert.equal(result.serverVersion, row.v);
});

test('the socket goes to the address the gate answers, never to the name', { skip }, async (t) => {
  const asked: Array<[string, number]> = [];
  const gate: HostGate = async (host, port) => {
    asked.push([host, port]);
    return server.host;
  };
  const result = await driver(t, { ...fields, host: 'mariadb.causa-test.invalid' }, gate).test(never);
  assert.ok(result.serverVersion);
  assert.deepEqual(asked, [['mariadb.causa-test.invalid', server.port]]);
});

test('a gate that refuses stops every operation before a socket is opened', { skip }, async (t) => {
  const listener = await countingListener(t);
  const d = driver(t, { ...fields, host: '127.0.0.1', port: listener.port }, refusingGate);
  const attempts = [
    d.test(never),
    d.browse({ level: 'tables', context: {}, limit: 10 }, never),
    d.preview({ kind: 'table', table: items }, 5, never),
    d.extract({ kind: 'table', table: items }, never),
  ];
  for (const attempt of attempts) assert.equal((await refusal(attempt)).kind, 'unreachable');
  assert.equal(listener.sockets(), 0);
  // The real gate refuses loopback unless the operator admits it.
  const closed = await refusal(driver(t, fields, hostGate([])).test(never));
  assert.equal(closed.kind, 'unreachable');
  assert.match(closed.message, /may not reach/);
});

test('a wrong password is unreachable and its message never holds the password', { skip }, async (t) => {
  const error = await refusal(driver(t, { ...fields, user, password: 'Wrong-Secret-4711' }).test(never));
  assert.equal(error.kind, 'unreachable');
  assert.match(error.message, /Access denied/);
  assert.ok(!error.message.includes('Wrong-Secret-4711'));
  const viaString = await refusal(
    driver(t, { connectionString: `mysql://${user}:${encodeURIComponent('Wrong@Secret')}@${server.host}:${server.port}/${server.database}` }).test(never),
  );
  assert.equal(viaString.kind, 'unreachable');
  assert.ok(!viaString.message.includes('Wrong@Secret') && !viaString.message.includes('Wrong%40Secret'));
});

test('a connection string (mysql:// or mariadb://) has its percent-escapes decoded; another scheme is refused', { skip }, async (t) => {
  for (const scheme of ['mysql', 'mariadb']) {
    const connectionString = `${scheme}://${encodeURIComponent(user)}:${encodeURIComponent(userPassword)}@${server.host}:${server.port}/${server.database}`;
    const tables = await driver(t, { connectionString }).browse({ level: 'tables', context: {}, search: items, limit: 10 }, never);
    assert.deepEqual(tables.map((entry) => entry.name), [items, `${p}items_view`]);
  }
  const wrongScheme = await refusal(driver(t, { connectionString: `postgres://${user}:secret@${server.host}/db` }).test(never));
  assert.equal(wrongScheme.kind, 'unreachable');
  assert.ok(!wrongScheme.message.includes('secret'));
});

test('ssl: true to a server whose TLS cannot be verified is unreachable', { skip }, async (t) => {
  const error = await refusal(driver(t, { ...fields, ssl: true }).test(never));
  assert.equal(error.kind, 'unreachable');
});

test('browse lists databases without the system ones, filtered case-insensitively', { skip }, async (t) => {
  const d = driver(t);
  const all = await d.browse({ level: 'databases', context: {}, limit: 1000 }, never);
  assert.ok(all.some((entry) => entry.name === server.database && entry.kind === 'database'));
  for (const system of ['information_schema', 'performance_schema', 'mysql', 'sys']) assert.ok(!all.some((entry) => entry.name === system), system);
  const found = await d.browse({ level: 'databases', context: {}, search: server.database.toUpperCase(), limit: 10 }, never);
  assert.ok(found.some((entry) => entry.name === server.database));
  assert.deepEqual(await d.browse({ level: 'databases', context: {}, search: 'no such database %', limit: 10 }, never), []);
});

test('browse lists tables and views with row estimates; search escapes LIKE wildcards; limit holds', { skip }, async (t) => {
  const d = driver(t);
  await admin!.query(`ANALYZE TABLE ${q(items)}`);
  const listed = await d.browse({ level: 'tables', context: {}, search: `${p}items`, limit: 10 }, never);
  assert.deepEqual(
    listed.map(({ name, kind }) => ({ name, kind })),
    [
      { name: items, kind: 'table' },
      { name: `${p}items_view`, kind: 'view' },
    ],
  );
  assert.equal(typeof listed[0]!.rowEstimate, 'number');
  assert.equal(listed[1]!.rowEstimate, null);
  const explicit = await d.browse({ level: 'tables', context: { database: server.database }, search: `${p}ITEMS`, limit: 10 }, never);
  assert.deepEqual(explicit.map((entry) => entry.name), [items, `${p}items_view`]);
  // `_` is a literal underscore, not "any character": xzy does not match x_y.
  const literal = await d.browse({ level: 'tables', context: {}, search: `${p}x_y`, limit: 10 }, never);
  assert.deepEqual(literal.map((entry) => entry.name), [`${p}x_y`]);
  assert.deepEqual(await d.browse({ level: 'tables', context: {}, search: `${p}%`, limit: 10 }, never), []);
  assert.equal((await d.browse({ level: 'tables', context: {}, search: p, limit: 2 }, never)).length, 2);
  assert.deepEqual(await d.browse({ level: 'tables', context: { database: 'no_such_db' }, limit: 10 }, never), []);
});

test('browse lists columns with their column type and nullability; it needs the table', { skip }, async (t) => {
  const d = driver(t);
  const columns = await d.browse({ level: 'columns', context: { database: server.database, table: kinds }, limit: 100 }, never);
  assert.equal(columns.length, 17);
  assert.deepEqual(columns[0], { name: 'id', kind: 'column', dataType: 'int(11)', nullable: false });
  assert.deepEqual(columns[1], { name: 'amount', kind: 'column', dataType: 'decimal(20,6)', nullable: true });
  assert.ok(columns.some((column) => column.name === 'full name' && column.dataType === 'varchar(200)'));
  const searched = await d.browse({ level: 'columns', context: { table: kinds }, search: 'NAME', limit: 100 }, never);
  assert.deepEqual(searched.map((column) => column.name), ['full name']);

  const missing = await refusal(d.browse({ level: 'columns', context: { database: server.database }, limit: 10 }, never));
  assert.equal(missing.kind, 'query');
  assert.match(missing.message, /`table`/);
  const unknownTable = await refusal(d.browse({ level: 'columns', context: { table: `${p}nothing` }, limit: 10 }, never));
  assert.equal(unknownTable.kind, 'query');
  assert.match(unknownTable.message, /doesn't exist/);
  const level = await refusal(d.browse({ level: 'schemas', context: {}, limit: 10 }, never));
  assert.equal(level.kind, 'query');
  assert.equal(level.message, 'Unknown level "schemas"; this connector browses: databases, tables (context database), columns (context database, table)');
});

test('preview of a table returns at most limit + 1 rows, with JSON-safe values and source types', { skip }, async (t) => {
  const d = driver(t);
  const two = await d.preview({ kind: 'table', table: items }, 2, never);
  assert.equal(two.rows.length, 3);
  assert.deepEqual(two.columns, [
    { name: 'id', type: 'int' },
    { name: 'name', type: 'varchar(50)' },
    { name: 'qty', type: 'int' },
  ]);
  assert.deepEqual((await d.preview({ kind: 'table', table: items, database: server.database }, 10, never)).rows.length, 5);

  const typed = await d.preview({ kind: 'table', table: kinds }, 10, never);
  const [first, second, empty] = typed.rows;
  assert.equal(first!.amount, '12345678901234.123456', 'beyond a double: kept as text');
  assert.equal(second!.amount, -0.000001, 'a double holds it exactly: a number');
  assert.equal(first!.big, '9007199254740993');
  assert.equal(first!.flag, 1);
  assert.equal(first!.bit1, true);
  assert.equal(first!.bits, 21);
  assert.equal(first!.at_ts, '2024-03-01T06:30:00.000Z');
  assert.equal(first!.at_dt, '2024-03-01T12:00:00.250Z');
  assert.deepEqual(first!.doc, { a: [1, 2], b: 'x' });
  assert.equal(first!.raw, Buffer.from([0, 255, 16]).toString('base64'));
  assert.equal(first!['full name'], 'Zoë "Q", comma\nnext line 😀');
  assert.ok(Object.values(empty!).every((value, i) => (i === 0 ? value === 3 : value === null)));
});

test('preview of a query keeps its ORDER BY, accepts WITH, a trailing semicolon and comment; limit holds', { skip }, async (t) => {
  const d = driver(t);
  const ordered = await d.preview({ kind: 'query', query: `SELECT name, qty FROM ${q(items)} ORDER BY qty DESC;` }, 2, never);
  assert.deepEqual(ordered.rows, [
    { name: 'plum', qty: 50 },
    { name: 'kiwi', qty: 40 },
    { name: 'apple', qty: 30 },
  ]);
  const cte = await d.preview({ kind: 'query', query: `WITH cheap AS (SELECT * FROM ${q(items)} WHERE qty < 25) SELECT name FROM cheap -- the cheap ones` }, 10, never);
  assert.deepEqual(cte.rows.map((row) => row.name).sort(), ['fig', 'pear']);
  // A BIGINT within 2^53 and an exact decimal a double holds are numbers.
  const small = await d.preview({ kind: 'query', query: `SELECT big - 9007199254740990 AS n, CAST(1.50 AS DECIMAL(6,2)) AS d FROM ${q(kinds)} WHERE id = 1` }, 1, never);
  assert.deepEqual(small.rows, [{ n: 3, d: 1.5 }]);
  assert.deepEqual(small.columns, [
    { name: 'n', type: 'bigint' },
    { name: 'd', type: 'decimal(6,2)' },
  ]);
});

test('sessions are UTC with a statement timeout: 30 s for a preview, hours for an extract', { skip }, async (t) => {
  const d = driver(t);
  const mariadb = ((await d.test(never)).serverVersion ?? '').includes('MariaDB');
  const query = mariadb ? 'SELECT @@max_statement_time * 1000 AS timeout, @@time_zone AS zone' : 'SELECT @@max_execution_time AS timeout, @@time_zone AS zone';
  const preview = await d.preview({ kind: 'query', query }, 1, never);
  assert.deepEqual(preview.rows, [{ timeout: 30_000, zone: '+00:00' }]);
  const extract = await d.extract({ kind: 'query', query }, never);
  const [, cells] = parse(await text(extract.stream)) as string[][];
  assert.deepEqual(cells, [String(6 * 3600_000), '+00:00']);
});

test('writes sent as a query fail on the source, in preview and extract, and the table keeps its rows', { skip }, async (t) => {
  const d = driver(t);
  const writes = [
    `DELETE FROM ${q(items)}`,
    `INSERT INTO ${q(items)} VALUES (99, 'x', 1)`,
    `UPDATE ${q(items)} SET qty = 0`,
    `DROP TABLE ${q(items)}`,
    `SELECT 1; DELETE FROM ${q(items)}`,
    // Not stoppable by syntax: a function that writes. The READ ONLY transaction refuses it.
    `SELECT ${q(`${p}writer`)}() AS w`,
  ];
  for (const sql of writes) {
    const target: ReadTarget = { kind: 'query', query: sql };
    assert.equal((await refusal(d.preview(target, 5, never))).kind, 'query', sql);
    assert.equal((await refusal(d.extract(target, never))).kind, 'query', sql);
    await itemsIntact();
  }
  const readOnly = await refusal(d.preview({ kind: 'query', query: `SELECT ${q(`${p}writer`)}() AS w` }, 5, never));
  assert.match(readOnly.message, /READ ONLY/);
});

test('an unknown table or a bad query is a query error', { skip }, async (t) => {
  const d = driver(t);
  for (const target of [{ kind: 'table', table: `${p}nothing` }, { kind: 'query', query: `SELECT * FROM ${q(`${p}nothing`)}` }] as ReadTarget[]) {
    const previewed = await refusal(d.preview(target, 5, never));
    assert.equal(previewed.kind, 'query');
    assert.match(previewed.message, /doesn't exist/);
    assert.equal((await refusal(d.extract(target, never))).kind, 'query');
  }
  assert.equal((await refusal(d.preview({ kind: 'query', query: 'SELEC nonsense' }, 5, never))).kind, 'query');
  assert.equal((await refusal(d.extract({ kind: 'query', query: 'SELECT 1 AS a, 2 AS a' }, never))).kind, 'query');
  assert.equal((await refusal(d.preview({ kind: 'path', path: 'x.csv' }, 5, never))).kind, 'query');
});

test('extract streams awkward types as CSV the ingest reads back exactly, with declared kinds', { skip }, async (t) => {
  const extract = await driver(t).extract({ kind: 'table', table: kinds }, never);
  assert.equal(extract.format, 'csv');
  assert.equal(typeof extract.estimatedRows, 'number');
  assert.deepEqual(
    extract.declared?.map(({ name, sourceType, kind }) => [name, sourceType, kind]),
    [
      ['id', 'int', 'integer'],
      ['amount', 'decimal(20,6)', 'decimal'],
      ['big', 'bigint', 'integer'],
      ['flag', 'tinyint(1)', 'integer'],
      ['bit1', 'bit(1)', 'boolean'],
      ['bits', 'bit(5)', 'integer'],
      ['yr', 'year', 'integer'],
      ['day', 'date', 'date'],
      ['at_dt', 'datetime(3)', 'datetime'],
      ['at_ts', 'timestamp', 'datetime'],
      ['doc', 'json', 'object'],
      ['full name', 'varchar(200)', 'text'],
      ['note', 'text', 'text'],
      ['colour', 'enum', 'text'],
      ['t', 'time', 'text'],
      ['raw', 'varbinary(8)', 'text'],
      ['ratio', 'double', 'decimal'],
    ],
  );
  const records = parse(await text(extract.stream), { relax_column_count: false }) as string[][];
  const expected = [
    ['id', 'amount', 'big', 'flag', 'bit1', 'bits', 'yr', 'day', 'at_dt', 'at_ts', 'doc', 'full name', 'note', 'colour', 't', 'raw', 'ratio'],
    ['1', '12345678901234.123456', '9007199254740993', '1', 'true', '21', '2024', '2024-02-29', '2024-03-01T12:00:00.250Z', '2024-03-01T06:30:00.000Z',
      '{"a":[1,2],"b":"x"}', 'Zoë "Q", comma\nnext line 😀', 'plain', 'red', '12:30:05', 'AP8Q', '0.1'],
    ['2', '-0.000001', '-9007199254740993', '0', 'false', '0', '1999', '1999-12-31', '1999-12-31T23:59:59.000Z', '1999-12-31T23:59:59.000Z',
      '[1,"two",null]', ' leading space', '', 'green', '-01:00:00', '', '2.5'],
    ['3', '', '', '', '', '', '', '', '', '', '', '', '', '', '', '', ''],
  ];
  assert.equal(records.length, expected.length);
  for (const [r, record] of records.entries()) {
    for (const [c, cell] of record.entries()) assert.equal(cell, expected[r]![c], `row ${r}, column ${expected[0]![c]}`);
  }
});

test('extract of an empty result is its header row alone', { skip }, async (t) => {
  const extract = await driver(t).extract({ kind: 'query', query: `SELECT id, name FROM ${q(items)} WHERE id < 0` }, never);
  assert.equal(await text(extract.stream), 'id,name\n');
  assert.equal(extract.estimatedRows, null);
});

test('a statement failing mid-stream destroys the stream with a query SourceError', { skip }, async (t) => {
  // About 100,000 rows in (far beyond what the driver buffers), the scalar subquery returns two rows: the
  // server fails after sending many.
  const query =
    `SELECT a.i, b.i AS j, (SELECT 1 UNION ALL SELECT 2 FROM DUAL WHERE a.i = 100 AND b.i = 100) AS one ` +
    `FROM ${q(many)} a CROSS JOIN ${q(many)} b`;
  const extract = await driver(t).extract({ kind: 'query', query }, never);
  let rows = 0;
  extract.stream.on('data', (chunk: Buffer) => (rows += String(chunk).split('\n').length - 1));
  const error = await text(extract.stream).then(
    () => assert.fail('the stream should fail'),
    (e: unknown) => e,
  );
  assert.ok(error instanceof SourceError);
  assert.equal(error.kind, 'query');
  assert.match(error.message, /more than 1 row/);
  assert.ok(rows > 1000, `${rows} rows arrived before the failure`);
  assert.ok(extract.stream.destroyed);
});

test('aborting during an extract destroys the stream and ends the statement on the server', { skip }, async (t) => {
  const marker = `${p}abort_marker`;
  const controller = new AbortController();
  const query = `SELECT /* ${marker} */ a.i, b.i AS j FROM ${q(many)} a CROSS JOIN ${q(many)} b`;
  const extract = await driver(t).extract({ kind: 'query', query }, controller.signal);
  const failed = once(extract.stream, 'error');
  await once(extract.stream, 'readable');
  assert.ok(extract.stream.read() !== null);
  controller.abort();
  const [error] = (await failed) as [SourceError];
  assert.ok(error instanceof SourceError);
  assert.ok(extract.stream.destroyed);
  // The server notices the closed socket on its next write; wait for the statement to go (bounded).
  let running = 1;
  for (let attempt = 0; attempt < 100 && running > 0; attempt += 1) {
    const [rows] = await admin!.query(`SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE INFO LIKE ? AND ID <> CONNECTION_ID()`, [`%${marker}%`]);
    running = Number((rows as Array<{ n: string }>)[0]!.n);
    if (running > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.equal(running, 0);
});

test('an already aborted signal rejects as cancelled', { skip }, async (t) => {
  const controller = new AbortController();
  controller.abort();
  const error = await refusal(driver(t).preview({ kind: 'table', table: items }, 5, controller.signal));
  assert.equal(error.kind, 'query');
  assert.match(error.message, /cancelled/);
});

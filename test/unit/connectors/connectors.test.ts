import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { CredentialCipher } from '../../../src/connectors/credential-cipher.js';
import { declaredSchema } from '../../../src/connectors/declared-schema.js';
import { cellText, csvLine, jsonSafe } from '../../../src/connectors/drivers/csv.js';
import { sqlEndpoint } from '../../../src/connectors/drivers/endpoint.js';
import { hostGate } from '../../../src/connectors/drivers/network.js';
import { SourceError } from '../../../src/connectors/drivers/port.js';
import { secretsOf, withoutSecrets } from '../../../src/connectors/secrets.js';

test('credentials are sealed per connector: another id, another key or a changed byte does not open them', () => {
  const cipher = new CredentialCipher(Buffer.alloc(32, 1));
  const sealed = cipher.encrypt('con_a', { password: 'p@ss' });
  assert.deepEqual(cipher.decrypt('con_a', sealed), { password: 'p@ss' });
  assert.notEqual(cipher.encrypt('con_a', { password: 'p@ss' }), sealed, 'a fresh IV each time');
  assert.throws(() => cipher.decrypt('con_b', sealed));
  assert.throws(() => new CredentialCipher(Buffer.alloc(32, 2)).decrypt('con_a', sealed));
  const [v, iv, tag, body] = sealed.split('.') as [string, string, string, string];
  const flipped = Buffer.from(body, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  assert.throws(() => cipher.decrypt('con_a', [v, iv, tag, flipped.toString('base64url')].join('.')));
  assert.throws(() => new CredentialCipher(Buffer.alloc(16)));
});

test('secrets are removed from messages, longest first, including the decoded password of a connection string', () => {
  const secrets = secretsOf({ connectionString: 'postgres://u:p%40ssw0rd@h/db' });
  assert.equal(withoutSecrets('failed for postgres://u:p%40ssw0rd@h/db and p@ssw0rd', secrets), 'failed for *** and ***');
  assert.deepEqual(secretsOf({ host: 'h', database: 'd', user: 'u', password: 'abc' }), [], 'too short to scrub without garbling');
});

test('CSV cells round-trip through a CSV parser: quotes, commas, line breaks, edge spaces, unicode', () => {
  const values = ['plain', 'a,b', 'say "hi"', 'two\nlines', ' padded ', 'Zürich 🚀', null, ''];
  const text = csvLine(values.map((v) => (v === null ? 'x' : 'x'))) + csvLine(values);
  const [, row] = parse(text) as string[][];
  assert.deepEqual(row, values.map((v) => v ?? ''));
  assert.equal(csvLine([null]), '""\n', 'never a blank line');
});

test('cell text is the form the ingest reads back', () => {
  assert.equal(cellText('datetime', new Date('2024-03-10T06:30:00.250Z')), '2024-03-10T06:30:00.250Z');
  assert.equal(cellText('date', new Date('2024-02-29T00:00:00Z')), '2024-02-29');
  assert.equal(cellText('integer', 9007199254740993n), '9007199254740993');
  assert.equal(cellText('boolean', false), 'false');
  assert.equal(cellText('object', '{"a": 1}'), '{"a":1}');
  assert.equal(cellText('array', [1, 'two']), '[1,"two"]');
  assert.equal(cellText('text', Buffer.from([0, 255])), 'AP8=');
  assert.equal(cellText('text', null), null);
  assert.deepEqual(jsonSafe({ big: 9007199254740993n, small: 5n, at: new Date(0), raw: Buffer.from('a') }), { big: '9007199254740993', small: 5, at: '1970-01-01T00:00:00.000Z', raw: 'YQ==' });
});

test('declared types decide stored types; inference keeps categorical, identifiers and categories', () => {
  const decide = declaredSchema([
    { name: 'code', sourceType: 'varchar(10)', kind: 'text' },
    { name: 'region', sourceType: 'text', kind: 'text' },
    { name: 'at', sourceType: 'timestamptz', kind: 'datetime' },
    { name: 'tags', sourceType: 'text[]', kind: 'array', elementKind: 'text' },
    { name: 'flag', sourceType: 'bit(1)', kind: 'boolean' },
  ]);
  const rows = Array.from({ length: 20 }, (_, i) => [String(i), i % 2 ? 'north' : 'south', null, '["a"]', i % 2 ? 'true' : 'false']);
  const columns = decide(['code', 'region', 'at', 'tags', 'flag'], rows);
  assert.deepEqual(columns.map((c) => c.type), ['text', 'categorical', 'datetime', 'array', 'boolean']);
  assert.equal(columns[0]!.unit, null, 'numeric-looking text stays text: a later "A7" must not fail the import');
  assert.equal(columns[2]!.originalFormat, 'YYYY-MM-DDTHH:mm:ss', 'an all-null sample still gets the form the drivers write');
  assert.equal(columns[3]!.subtype, 'text');
  assert.deepEqual(columns[1]!.categories, ['north', 'south']);
});

test('connection strings are read like libpq: escapes decoded, sslmode honoured', () => {
  const endpoint = sqlEndpoint({ connectionString: 'postgres://al%40ice:p%2Fw@db.example.com:6543/sales?sslmode=require' }, 5432);
  assert.deepEqual({ ...endpoint, tls: undefined }, { host: 'db.example.com', port: 6543, database: 'sales', user: 'al@ice', password: 'p/w', tls: undefined });
  assert.deepEqual(endpoint.tls, { servername: 'db.example.com', rejectUnauthorized: false });
  assert.equal(sqlEndpoint({ connectionString: 'postgres://u@h/d' }, 5432).tls, undefined);
  assert.equal(sqlEndpoint({ host: 'h', database: 'd', user: 'u', ssl: true }, 3306).tls?.rejectUnauthorized, true);
  assert.equal(sqlEndpoint({ host: 'h', database: 'd', user: 'u' }, 3306).port, 3306);
});

test('the host gate admits public addresses and the allow-list, and refuses the rest before any connection', async () => {
  const closed = hostGate([]);
  for (const host of ['127.0.0.1', '10.1.2.3', '169.254.169.254', '[::1]', 'localhost']) {
    await assert.rejects(closed(host, 5432), (error: unknown) => error instanceof SourceError && error.kind === 'unreachable' && /non-public/.test(error.message), host);
  }
  assert.equal(await closed('8.8.8.8', 5432), '8.8.8.8');
  const open = hostGate(['127.0.0.1', 'localhost:5432']);
  assert.equal(await open('127.0.0.1', 3306), '127.0.0.1');
  assert.match(await open('localhost', 5432), /^(127\.0\.0\.1|::1)$/);
  await assert.rejects(open('localhost', 3306), SourceError, 'the allow-list entry names its port');
  await assert.rejects(closed('no-such-host.invalid', 5432), /Could not resolve/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';

const SECRET = Buffer.alloc(32, 1).toString('base64');

test('defaults give the embedded profile on 127.0.0.1:8080', () => {
  const config = loadConfig({});
  assert.equal(config.port, 8080);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.databaseUrl, null);
  assert.equal(config.redisUrl, null);
  assert.equal(config.secretKey, null);
  assert.ok(config.workers >= 1);
  assert.equal(config.logLevel, 'info');
  assert.match(config.dataDir, /\/data$/);
});

test('every variable is read and typed', () => {
  const config = loadConfig({
    PORT: '9000',
    HOST: '0.0.0.0',
    CAUSA_DATA_DIR: '/var/lib/causa',
    DATABASE_URL: 'postgres://u:p@db:5432/causa',
    CLICKHOUSE_URL: 'http://ch:8123',
    REDIS_URL: 'redis://cache:6379',
    CAUSA_BOOTSTRAP_API_KEY: 'pk_0123456789abcdef0123',
    CAUSA_SECRET_KEY: SECRET,
    CAUSA_WORKERS: '3',
    CAUSA_IMPORT_READ_CONNECTIONS: '4',
    CAUSA_IMPORT_RANGE_BYTES: '1048576',
    LOG_LEVEL: 'debug',
  });
  assert.equal(config.port, 9000);
  assert.equal(config.host, '0.0.0.0');
  assert.equal(config.dataDir, '/var/lib/causa');
  assert.equal(config.databaseUrl, 'postgres://u:p@db:5432/causa');
  assert.equal(config.clickhouseUrl, 'http://ch:8123');
  assert.equal(config.redisUrl, 'redis://cache:6379');
  assert.equal(config.bootstrapApiKey, 'pk_0123456789abcdef0123');
  assert.deepEqual(config.secretKey, Buffer.alloc(32, 1));
  assert.equal(config.workers, 3);
  assert.deepEqual([config.importReadConnections, config.importRangeBytes], [4, 1048576]);
  assert.equal(config.logLevel, 'debug');
});

const BAD: Array<[string, Record<string, string>]> = [
  ['PORT', { PORT: 'eighty' }],
  ['PORT', { PORT: '70000' }],
  ['HOST', { HOST: 'a b' }],
  ['DATABASE_URL', { DATABASE_URL: 'mysql://x', CAUSA_SECRET_KEY: SECRET }],
  ['CLICKHOUSE_URL', { CLICKHOUSE_URL: 'not a url' }],
  ['REDIS_URL', { REDIS_URL: 'http://cache' }],
  ['CAUSA_BOOTSTRAP_API_KEY', { CAUSA_BOOTSTRAP_API_KEY: 'secret' }],
  ['CAUSA_SECRET_KEY', { CAUSA_SECRET_KEY: 'c2hvcnQ=' }],
  ['CAUSA_WORKERS', { CAUSA_WORKERS: '0' }],
  ['CAUSA_IMPORT_READ_CONNECTIONS', { CAUSA_IMPORT_READ_CONNECTIONS: '0' }],
  ['CAUSA_IMPORT_RANGE_BYTES', { CAUSA_IMPORT_RANGE_BYTES: '100' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['CAUSA_SECRET_KEY', { DATABASE_URL: 'postgres://db/causa' }],
];

for (const [variable, env] of BAD) {
  test(`a bad ${variable} (${JSON.stringify(env)}) stops start-up with a message naming it`, () => {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => error instanceof ConfigError && error.variable === variable && error.message.includes(variable),
    );
  });
}

test('a password in a bad connection string is not echoed', () => {
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'mysql://user:hunter2@db/x', CAUSA_SECRET_KEY: SECRET }),
    (error: Error) => !error.message.includes('hunter2'),
  );
});

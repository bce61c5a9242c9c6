import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identifierParts, qualifiedTable } from '../../../src/connectors/table-name.js';
import { AppError } from '../../../src/errors.js';

test('identifier paths split on dots outside quotes, and a doubled quote is one quote character', () => {
  assert.deepEqual(identifierParts('orders', ['"']), ['orders']);
  assert.deepEqual(identifierParts('public.orders', ['"']), ['public', 'orders']);
  assert.deepEqual(identifierParts('"My Schema"."Order.Lines"', ['"']), ['My Schema', 'Order.Lines']);
  assert.deepEqual(identifierParts(' a . "b""c" ', ['"']), ['a', 'b"c']);
  assert.deepEqual(identifierParts('`db`.`t``x`', ['`']), ['db', 't`x']);
  for (const bad of ['"open', 'a.', '.a', 'a..b', '"a"b', '""']) assert.equal(identifierParts(bad, ['"']), null, bad);
});

test('a qualified table fills the context each SQL type names, without case folding', () => {
  assert.deepEqual(qualifiedTable('PostgreSQL', { table: 'public.orders' }), { table: 'orders', schema: 'public' });
  assert.deepEqual(qualifiedTable('PostgreSQL', { table: 'shop.sales."Order Lines"' }), { table: 'Order Lines', database: 'shop', schema: 'sales' });
  assert.deepEqual(qualifiedTable('PostgreSQL', { table: 'Orders', schema: 'sales' }), { table: 'Orders', schema: 'sales' });
  assert.deepEqual(qualifiedTable('MySQL', { table: 'shop.orders' }), { table: 'orders', database: 'shop' });
  assert.deepEqual(qualifiedTable('ClickHouse', { table: '"shop"."orders"' }), { table: 'orders', database: 'shop' });
  assert.deepEqual(qualifiedTable('PostgreSQL', { table: 'public.orders', schema: 'public' }), { table: 'orders', schema: 'public' });
});

test('a quote inside a name stays part of the name', () => {
  assert.deepEqual(qualifiedTable('PostgreSQL', { table: '"x""; DROP TABLE t; --"' }), { table: 'x"; DROP TABLE t; --' });
  assert.deepEqual(qualifiedTable('MySQL', { table: '`a``b`' }), { table: 'a`b' });
});

test('too many parts, a malformed name or a conflicting context member answer 422 located at the table', () => {
  const refused = (f: () => unknown) => assert.throws(f, (e: unknown) => e instanceof AppError && e.code === 'validation_failed' && JSON.stringify(e.extras).includes('body/config/table'));
  refused(() => qualifiedTable('MySQL', { table: 'a.b.c' }));
  refused(() => qualifiedTable('PostgreSQL', { table: 'a.b.c.d' }));
  refused(() => qualifiedTable('PostgreSQL', { table: '"unterminated' }));
  refused(() => qualifiedTable('PostgreSQL', { table: 'public.orders', schema: 'sales' }));
  refused(() => qualifiedTable('MySQL', { table: 'shop.orders', database: 'other' }));
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidAllowlistEntry, parseIpAllowlist } from '../../../src/auth/ip-allowlist.js';

test('an empty allowlist admits every address', () => {
  const list = parseIpAllowlist(' ');
  assert.ok(list.matches('203.0.113.9'));
  assert.ok(list.matches('2001:db8::1'));
});

test('addresses and CIDR ranges of both families match exactly what they cover', () => {
  const list = parseIpAllowlist('192.0.2.7, 10.0.0.0/8 ,2001:db8::/32,::1');
  assert.deepEqual(list.entries, ['192.0.2.7', '10.0.0.0/8', '2001:db8::/32', '::1']);
  assert.ok(list.matches('192.0.2.7'));
  assert.ok(!list.matches('192.0.2.8'));
  assert.ok(list.matches('10.255.1.2'));
  assert.ok(!list.matches('11.0.0.1'));
  assert.ok(list.matches('2001:db8:ffff::5'));
  assert.ok(!list.matches('2001:db9::5'));
  assert.ok(list.matches('::1'));
  assert.ok(!list.matches('not-an-ip'));
});

test('IPv4 peers seen through a dual-stack socket (::ffff:a.b.c.d) match IPv4 entries', () => {
  assert.ok(parseIpAllowlist('127.0.0.0/8').matches('::ffff:127.0.0.1'));
});

for (const bad of ['300.1.1.1', '10.0.0.0/33', '10.0.0.0/8/1', 'example.com', '2001:db8::/129', '10.0.0.0/x']) {
  test(`"${bad}" is refused naming the entry`, () => {
    assert.throws(() => parseIpAllowlist(`127.0.0.1,${bad}`), (e: unknown) => e instanceof InvalidAllowlistEntry && e.entry === bad);
  });
}

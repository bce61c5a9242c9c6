import assert from 'node:assert/strict';
import { test } from 'node:test';
import { HostAllowList, InvalidAllowHostEntry } from '../../../src/webhooks/allow-hosts.js';

const admits = (entries: string[], url: string) => new HostAllowList(entries).admits(new URL(url));

test('an empty allow-list admits no host', () => {
  assert.equal(admits([], 'http://localhost/'), false);
  assert.equal(new HostAllowList([' ', '']).size, 0);
});

test('a bare host admits that host on every port and scheme', () => {
  assert.equal(admits(['localhost'], 'http://localhost/'), true);
  assert.equal(admits(['localhost'], 'https://localhost:8443/x'), true);
  assert.equal(admits(['localhost'], 'http://localhost.localdomain/'), false);
  assert.equal(admits(['hooks.internal'], 'http://sub.hooks.internal/'), false);
});

test('host names compare without letter case or a trailing root dot', () => {
  assert.equal(admits(['LocalHost.'], 'http://LOCALHOST/'), true);
  assert.equal(admits(['localhost'], 'http://localhost./'), true);
});

test('host:port admits only that port, taking the scheme default when the URL writes none', () => {
  assert.equal(admits(['localhost:8080'], 'http://localhost:8080/'), true);
  assert.equal(admits(['localhost:8080'], 'http://localhost:8081/'), false);
  assert.equal(admits(['localhost:80'], 'http://localhost/'), true);
  assert.equal(admits(['localhost:443'], 'https://localhost/'), true);
  assert.equal(admits(['localhost:443'], 'http://localhost/'), false);
});

test('an address entry matches the address as written in the URL, not what a name resolves to', () => {
  assert.equal(admits(['127.0.0.1'], 'http://127.0.0.1:9/'), true);
  assert.equal(admits(['127.0.0.1'], 'http://localhost:9/'), false);
  assert.equal(admits(['127.0.0.1'], 'http://2130706433/'), true);
});

test('IPv6 entries may be bare or bracketed, and compare in canonical form', () => {
  assert.equal(admits(['::1'], 'http://[::1]:9/'), true);
  assert.equal(admits(['[0:0:0:0:0:0:0:1]'], 'http://[::1]/'), true);
  assert.equal(admits(['[::1]:9'], 'http://[::1]:9/'), true);
  assert.equal(admits(['[::1]:9'], 'http://[::1]:10/'), false);
  assert.equal(admits(['FC00::1'], 'http://[fc00::1]/'), true);
});

for (const bad of ['http://localhost', 'localhost/hooks', 'user@localhost', '*.internal', 'localhost:0', 'localhost:65536', 'localhost:http', 'localhost:', '[::1', '[::1]x', 'bad host', ':8080']) {
  test(`the allow-list entry "${bad}" is refused naming the entry`, () => {
    assert.throws(() => new HostAllowList(['localhost', bad]), (error: unknown) => error instanceof InvalidAllowHostEntry && error.entry === bad);
  });
}

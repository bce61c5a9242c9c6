import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { parseWebhookUrl, WEBHOOK_URL_MAX_LENGTH } from '../../../src/webhooks/url.js';

function assertRefused(raw: string, message: RegExp, options?: Parameters<typeof parseWebhookUrl>[1]): void {
  assert.throws(
    () => parseWebhookUrl(raw, options),
    (error: unknown) => {
      assert.ok(error instanceof AppError);
      assert.equal(error.code, 'validation_failed');
      assert.equal(error.status, 422);
      assert.equal(error.extras.errors?.length, 1);
      assert.equal(error.extras.errors?.[0]?.location, 'body/webhookUrl');
      assert.match(error.extras.errors?.[0]?.message ?? '', message);
      assert.match(error.detail, /^webhookUrl: /);
      return true;
    },
  );
}

const REFUSED: ReadonlyArray<readonly [string, RegExp, string]> = [
  ['', /non-empty/, 'an empty string'],
  ['   ', /non-empty/, 'blanks'],
  ['not a url', /absolute URL/, 'text that is not a URL'],
  ['/hooks/relative', /absolute URL/, 'a relative reference'],
  ['ftp://hooks.example.com/', /http or https/, 'an ftp URL'],
  ['file:///etc/passwd', /http or https/, 'a file URL'],
  ['javascript:alert(1)', /http or https/, 'a javascript URL'],
  ['gopher://hooks.example.com:70/', /http or https/, 'a gopher URL'],
  ['http://user:secret@hooks.example.com/', /user name or password/, 'a URL with user and password'],
  ['https://user@hooks.example.com/', /user name or password/, 'a URL with a user name only'],
  ['https://:secret@hooks.example.com/', /user name or password/, 'a URL with a password only'],
  ['http://127.0.0.1:8080/hook', /127\.0\.0\.1.*not a public address/, 'IPv4 loopback'],
  ['http://10.0.0.1/', /not a public address/, 'an RFC 1918 address'],
  ['http://169.254.169.254/latest/meta-data/', /169\.254\.169\.254/, 'the cloud metadata address'],
  ['http://100.64.0.1/', /not a public address/, 'carrier-grade NAT space'],
  ['http://0x7f000001/', /127\.0\.0\.1/, 'loopback written in hex (the URL parser normalises it)'],
  ['http://2130706433/', /127\.0\.0\.1/, 'loopback written as one decimal number'],
  ['http://127.1/', /127\.0\.0\.1/, 'loopback written in short form'],
  ['http://0/', /0\.0\.0\.0/, 'the unspecified address written as 0'],
  ['http://[::1]/', /::1/, 'IPv6 loopback'],
  ['http://[0:0:0:0:0:0:0:1]/', /::1/, 'IPv6 loopback with every group written'],
  ['http://[fc00::1]/', /not a public address/, 'IPv6 unique-local'],
  ['http://[fe80::1]/', /not a public address/, 'IPv6 link-local'],
  ['http://[::ffff:127.0.0.1]/', /not a public address/, 'IPv4-mapped loopback'],
  ['http://[::ffff:a9fe:a9fe]/', /not a public address/, 'IPv4-mapped cloud metadata in hex'],
  ['http://[64:ff9b::10.0.0.1]/', /not a public address/, 'NAT64 embedding a private address'],
];

for (const [raw, message, what] of REFUSED) {
  test(`a webhookUrl that is ${what} is refused at submit`, () => {
    assertRefused(raw, message);
  });
}

test(`a webhookUrl longer than ${WEBHOOK_URL_MAX_LENGTH} characters is refused and one of exactly that length is accepted`, () => {
  const prefix = 'https://hooks.example.com/';
  assertRefused(prefix + 'a'.repeat(WEBHOOK_URL_MAX_LENGTH - prefix.length + 1), /at most 2048/);
  assert.equal(parseWebhookUrl(prefix + 'a'.repeat(WEBHOOK_URL_MAX_LENGTH - prefix.length)).hostname, 'hooks.example.com');
});

test('public http and https URLs, with ports, paths and queries, are accepted and returned parsed', () => {
  const url = parseWebhookUrl('https://Hooks.Example.com:8443/causa/done?token=abc');
  assert.equal(url.protocol, 'https:');
  assert.equal(url.hostname, 'hooks.example.com');
  assert.equal(url.port, '8443');
  assert.equal(url.search, '?token=abc');
  assert.equal(parseWebhookUrl('http://8.8.8.8/hook').hostname, '8.8.8.8');
  assert.equal(parseWebhookUrl('http://[2606:4700:4700::1111]/hook').hostname, '[2606:4700:4700::1111]');
});

test('host names are accepted at submit, even internal-looking ones, because they are judged after resolution at delivery', () => {
  assert.equal(parseWebhookUrl('http://localhost:3000/hook').hostname, 'localhost');
  assert.equal(parseWebhookUrl('http://metadata.google.internal/').hostname, 'metadata.google.internal');
});

test('a non-public literal address is accepted when the operator allow-listed that host', () => {
  assert.equal(parseWebhookUrl('http://127.0.0.1:9000/hook', { allowHosts: ['127.0.0.1'] }).port, '9000');
  assert.equal(parseWebhookUrl('http://[::1]:9000/hook', { allowHosts: ['::1'] }).hostname, '[::1]');
  assert.equal(parseWebhookUrl('http://127.0.0.1:9000/hook', { allowHosts: ['127.0.0.1:9000'] }).port, '9000');
});

test('an allow-list entry for another host or another port does not admit a non-public literal address', () => {
  assertRefused('http://127.0.0.1:9000/hook', /not a public address/, { allowHosts: ['localhost', '10.0.0.1'] });
  assertRefused('http://127.0.0.1:9000/hook', /not a public address/, { allowHosts: ['127.0.0.1:9001'] });
});

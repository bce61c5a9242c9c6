import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { InvalidAllowHostEntry } from '../../src/webhooks/allow-hosts.js';
import { type ResolveHost, webhookEvent, type WebhookPayload, WebhookSender } from '../../src/webhooks/deliver.js';

interface Received {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  port: number;
  hits: Received[];
  /** Resolves when a request's connection has gone away (the sender hung up or the answer finished). */
  closed: Promise<void>[];
}

type Answer = (request: IncomingMessage, response: ServerResponse) => void;

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** A real HTTP receiver on 127.0.0.1 that records each request and answers with `answer` (200 by default). */
async function startReceiver(answer: Answer = (_req, res) => res.end('ok')): Promise<Receiver> {
  const receiver: Receiver = { port: 0, hits: [], closed: [] };
  const server = createServer((request, response) => {
    receiver.closed.push(once(request.socket, 'close').then(() => undefined));
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.hits.push({ method: request.method, url: request.url, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      answer(request, response);
    });
  });
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

const payload: WebhookPayload = {
  event: webhookEvent('simulation', 'failed'),
  runId: 'run_123',
  status: 'failed',
  workspaceId: 'ws_1',
  completedAt: '2025-01-02T03:04:05.000Z',
  error: { code: 'metric_type', message: 'a metric averages a text column' },
};

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A resolver that answers from a table and counts its calls. */
function fakeResolver(table: Record<string, LookupAddress[][]>): ResolveHost & { calls: string[] } {
  const calls: string[] = [];
  const resolve = async (hostname: string) => {
    const answers = table[hostname];
    const answer = answers?.[Math.min(calls.filter((name) => name === hostname).length, answers.length - 1)];
    calls.push(hostname);
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answer;
  };
  return Object.assign(resolve, { calls });
}

test('an allow-listed loopback receiver gets the payload exactly once, as JSON with the webhook headers', async () => {
  const receiver = await startReceiver();
  const sender = new WebhookSender({ allowHosts: ['127.0.0.1'] });
  const outcome = await sender.send(`http://127.0.0.1:${receiver.port}/hooks/causa?token=t0k`, payload);
  assert.deepEqual(outcome, { delivered: true, status: 200 });
  await settle(100);
  assert.equal(receiver.hits.length, 1);
  const [hit] = receiver.hits;
  assert.equal(hit?.method, 'POST');
  assert.equal(hit?.url, '/hooks/causa?token=t0k');
  assert.equal(hit?.headers['content-type'], 'application/json');
  assert.equal(hit?.headers['user-agent'], 'causa-webhooks/1');
  assert.equal(hit?.headers.host, `127.0.0.1:${receiver.port}`);
  assert.equal(hit?.headers['content-length'], String(Buffer.byteLength(hit?.body ?? '')));
  assert.deepEqual(JSON.parse(hit?.body ?? ''), payload);
});

test('an allow-listed localhost receiver is reached through the system resolver', async () => {
  const receiver = await startReceiver();
  const sender = new WebhookSender({ allowHosts: ['localhost'] });
  const outcome = await sender.send(`http://localhost:${receiver.port}/done`, payload);
  assert.deepEqual(outcome, { delivered: true, status: 200 });
  assert.equal(receiver.hits.length, 1);
  assert.equal(receiver.hits[0]?.headers.host, `localhost:${receiver.port}`);
});

test('an allow-list entry with a port admits that port only', async () => {
  const receiver = await startReceiver();
  const refused = await new WebhookSender({ allowHosts: [`localhost:${receiver.port + 1}`] }).send(`http://localhost:${receiver.port}/`, payload);
  assert.equal(refused.delivered, false);
  assert.match(refused.reason ?? '', /^refused: localhost resolves to .*not a public address/);
  const admitted = await new WebhookSender({ allowHosts: [`localhost:${receiver.port}`] }).send(`http://localhost:${receiver.port}/`, payload);
  assert.deepEqual(admitted, { delivered: true, status: 200 });
  assert.equal(receiver.hits.length, 1);
});

test('a loopback receiver that is not allow-listed is refused and receives nothing', async () => {
  const receiver = await startReceiver();
  const outcome = await new WebhookSender({ allowHosts: [] }).send(`http://127.0.0.1:${receiver.port}/hook`, payload);
  assert.equal(outcome.delivered, false);
  assert.equal(outcome.status, undefined);
  assert.match(outcome.reason ?? '', /^refused: .*127\.0\.0\.1, which is not a public address/);
  await settle(50);
  assert.equal(receiver.hits.length, 0);
});

for (const host of ['127.0.0.1', '10.0.0.1', '169.254.169.254', '100.64.0.1', '[fc00::1]', '[::ffff:127.0.0.1]', '[::1]']) {
  test(`a URL naming ${host} is refused without resolving or connecting`, async () => {
    const receiver = await startReceiver();
    const resolve = fakeResolver({});
    const outcome = await new WebhookSender({ allowHosts: ['localhost'], resolve, timeoutMs: 1000 }).send(`http://${host}:${receiver.port}/hook`, payload);
    assert.equal(outcome.delivered, false);
    assert.match(outcome.reason ?? '', /^refused: .*not a public address/);
    assert.deepEqual(resolve.calls, []);
    await settle(20);
    assert.equal(receiver.hits.length, 0);
  });
}

test('a host name that resolves to loopback is refused when it is not allow-listed', async () => {
  const receiver = await startReceiver();
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'] }).send(`http://localhost:${receiver.port}/hook`, payload);
  assert.equal(outcome.delivered, false);
  assert.match(outcome.reason ?? '', /^refused: localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/);
  await settle(50);
  assert.equal(receiver.hits.length, 0);
});

test('a host name is refused when any one of its addresses is not public', async () => {
  const resolve = fakeResolver({
    'hooks.example.test': [[{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }, { address: '10.0.0.5', family: 4 }]],
  });
  const outcome = await new WebhookSender({ allowHosts: [], resolve }).send('https://hooks.example.test/hook', payload);
  assert.deepEqual(outcome, { delivered: false, reason: 'refused: hooks.example.test resolves to 10.0.0.5, which is not a public address' });
  assert.deepEqual(resolve.calls, ['hooks.example.test']);
});

test('the connection goes to the address resolved once and checked, even if DNS answers differently later', async () => {
  const receiver = await startReceiver();
  // First answer: the receiver. Any later answer (a rebind) names an address where nothing listens.
  const resolve = fakeResolver({ 'hooks.example.test': [[{ address: '127.0.0.1', family: 4 }], [{ address: '127.0.0.2', family: 4 }]] });
  const sender = new WebhookSender({ allowHosts: ['hooks.example.test'], resolve });
  const outcome = await sender.send(`http://hooks.example.test:${receiver.port}/hook`, payload);
  assert.deepEqual(outcome, { delivered: true, status: 200 });
  assert.deepEqual(resolve.calls, ['hooks.example.test']);
  assert.equal(receiver.hits.length, 1);
  assert.equal(receiver.hits[0]?.headers.host, `hooks.example.test:${receiver.port}`, 'the Host header keeps the name');
});

test('a redirect is not followed, not even to another allow-listed receiver', async () => {
  const target = await startReceiver();
  const redirecting = await startReceiver((_req, res) => {
    res.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` });
    res.end();
  });
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'] }).send(`http://127.0.0.1:${redirecting.port}/hook`, payload);
  assert.equal(outcome.delivered, false);
  assert.equal(outcome.status, 302);
  assert.match(outcome.reason ?? '', new RegExp(`^receiver answered 302 redirect to http://127\\.0\\.0\\.1:${target.port}/internal; redirects are not followed$`));
  await settle(100);
  assert.equal(redirecting.hits.length, 1);
  assert.equal(target.hits.length, 0);
});

test('a receiver that does not answer in time is abandoned with its connection closed, and the outcome says it timed out', async () => {
  const receiver = await startReceiver(() => {
    // Never answers.
  });
  const started = Date.now();
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'], timeoutMs: 200 }).send(`http://127.0.0.1:${receiver.port}/slow`, payload);
  const elapsed = Date.now() - started;
  assert.deepEqual(outcome, { delivered: false, reason: 'timed out after 200 ms' });
  assert.ok(elapsed >= 150 && elapsed < 2000, `gave up after ${elapsed} ms`);
  assert.equal(receiver.hits.length, 1);
  await receiver.closed[0];
});

test('a name lookup that outlasts the timeout counts as a timeout', async () => {
  const sender = new WebhookSender({ allowHosts: [], timeoutMs: 100, resolve: () => new Promise(() => {}) });
  const outcome = await sender.send('https://hooks.example.test/hook', payload);
  assert.deepEqual(outcome, { delivered: false, reason: 'timed out after 100 ms resolving hooks.example.test' });
});

test('a receiver answering 500 is recorded as not delivered with its status, and is not retried', async () => {
  const receiver = await startReceiver((_req, res) => {
    res.statusCode = 500;
    res.end('boom');
  });
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'] }).send(`http://127.0.0.1:${receiver.port}/hook`, payload);
  assert.deepEqual(outcome, { delivered: false, status: 500, reason: 'receiver answered 500' });
  await settle(300);
  assert.equal(receiver.hits.length, 1);
});

test('a receiver streaming an endless body is answered on its status, the sender hanging up after a bounded read', async () => {
  let stop = false;
  const receiver = await startReceiver((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const pump = () => {
      if (stop || res.destroyed) return;
      res.write(chunk);
      setTimeout(pump, 5);
    };
    pump();
  });
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'], timeoutMs: 5000 }).send(`http://127.0.0.1:${receiver.port}/hook`, payload);
  stop = true;
  assert.deepEqual(outcome, { delivered: true, status: 200 });
  await receiver.closed[0];
});

test('a connection refused is recorded as a failed request', async () => {
  const receiver = await startReceiver();
  const port = receiver.port;
  servers.at(-1)?.close();
  await settle(20);
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'] }).send(`http://127.0.0.1:${port}/hook`, payload);
  assert.deepEqual(outcome, { delivered: false, reason: 'request failed: ECONNREFUSED' });
});

test('an https URL to a receiver that does not speak TLS fails the request rather than falling back to http', async () => {
  const receiver = await startReceiver();
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'], timeoutMs: 2000 }).send(`https://127.0.0.1:${receiver.port}/hook`, payload);
  assert.equal(outcome.delivered, false);
  assert.match(outcome.reason ?? '', /^request failed: /);
  assert.equal(receiver.hits.length, 0);
});

test('a host name that does not resolve is recorded as a failed lookup', async () => {
  const resolve = fakeResolver({});
  const outcome = await new WebhookSender({ allowHosts: [], resolve }).send('https://nowhere.example.test/hook', payload);
  assert.deepEqual(outcome, { delivered: false, reason: 'host name lookup of nowhere.example.test failed: ENOTFOUND' });
});

test('send refuses bad URLs with an outcome instead of throwing', async () => {
  const sender = new WebhookSender({ allowHosts: [] });
  assert.deepEqual(await sender.send('ftp://hooks.example.com/', payload), { delivered: false, reason: 'refused: the URL must use http or https' });
  assert.deepEqual(await sender.send('http://u:p@hooks.example.com/', payload), { delivered: false, reason: 'refused: the URL must not carry a user name or password' });
  assert.deepEqual(await sender.send('nonsense', payload), { delivered: false, reason: 'refused: the URL must be an absolute URL' });
});

test('outcomes are logged by host, never with the URL and its token, and a throwing logger does not make send throw', async () => {
  const receiver = await startReceiver();
  const lines: Array<{ level: string; obj: object; msg: string }> = [];
  const logger = {
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj, msg }),
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj, msg }),
  };
  const sender = new WebhookSender({ allowHosts: ['127.0.0.1'], logger });
  await sender.send(`http://127.0.0.1:${receiver.port}/hook?token=secret`, payload);
  await sender.send('http://10.0.0.1/hook?token=secret', payload);
  assert.deepEqual(
    lines.map((line) => [line.level, line.msg]),
    [
      ['info', 'webhook delivered'],
      ['warn', 'webhook not delivered'],
    ],
  );
  assert.equal((lines[0]?.obj as { webhookHost?: string }).webhookHost, `127.0.0.1:${receiver.port}`);
  assert.equal((lines[0]?.obj as { event?: string }).event, 'simulation.failed');
  assert.ok(!JSON.stringify(lines).includes('secret'));

  const throwing = { info: () => { throw new Error('logger down'); }, warn: () => { throw new Error('logger down'); } };
  const outcome = await new WebhookSender({ allowHosts: ['127.0.0.1'], logger: throwing }).send(`http://127.0.0.1:${receiver.port}/hook`, payload);
  assert.deepEqual(outcome, { delivered: true, status: 200 });
});

test('a malformed allow-list or timeout is a startup error', () => {
  assert.throws(() => new WebhookSender({ allowHosts: ['http://localhost/'] }), InvalidAllowHostEntry);
  assert.throws(() => new WebhookSender({ allowHosts: [], timeoutMs: 0 }), RangeError);
  assert.throws(() => new WebhookSender({ allowHosts: [], timeoutMs: Number.NaN }), RangeError);
});

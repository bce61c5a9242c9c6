import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { openEmbeddedMetaStore } from '../../src/store/meta/embedded.js';
import { testConfig } from '../helpers/app.js';

// The bound is the point: a connection in flight when the close began used to hold it for the keep-alive timeout (72 s).
test('closing the app drains in-flight requests, then closes the stores', { timeout: 20_000 }, async () => {
  const context = await createContext(testConfig(), { meta: await openEmbeddedMetaStore(':memory:') });
  const app = await buildApp(context, { logger: false });
  let entered: () => void = () => undefined;
  const handlerEntered = new Promise<void>((resolve) => (entered = resolve));
  app.get('/slow', { config: { public: true }, schema: { hide: true } }, async () => {
    entered();
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { finished: true };
  });
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const inFlight = fetch(`${address}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
  await handlerEntered;
  const closed = app.close();
  const response = await inFlight;
  assert.deepEqual(response, { status: 200, body: { finished: true } });
  await closed;
  await assert.rejects(context.meta.ping(), 'the metadata store is closed after the drain');
});

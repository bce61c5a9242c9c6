import type { TestContext } from 'node:test';
import { type IncomingMessage, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A loopback receiver counting the webhooks it gets. */
export async function receiver(t: TestContext): Promise<{ url: string; hits: Array<{ headers: IncomingMessage['headers']; body: any }>; waitFor(count: number): Promise<void> }> {
  const hits: Array<{ headers: IncomingMessage['headers']; body: any }> = [];
  const server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      hits.push({ headers: request.headers, body: JSON.parse(text) });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/causa`,
    hits,
    async waitFor(count) {
      const deadline = Date.now() + 10_000;
      while (hits.length < count && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    },
  };
}

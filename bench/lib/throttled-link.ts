/**
 * A TCP relay to a server that passes each connection's replies at most `bytesPerSecond`: a source reached over
 * a long link, where one TCP connection carries what its window allows per round trip (a 16 MiB/s connection is a
 * 1 MiB window at 60 ms), whatever the server could send. It runs in a child process, so its work is not counted
 * as the service's.
 *
 *   startThrottledLink({ host, port }, bytesPerSecond) -> { port, close() }
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { type Socket, connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export interface ThrottledLink {
  port: number;
  close(): Promise<void>;
}

export async function startThrottledLink(target: { host: string; port: number }, bytesPerSecond: number): Promise<ThrottledLink> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [target.host, String(target.port), String(bytesPerSecond)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [message] = (await once(child, 'message')) as [{ port: number }];
  return {
    port: message.port,
    async close() {
      child.kill();
      await once(child, 'exit');
    },
  };
}

/** Passes `from`'s bytes to `to` at most `bytesPerSecond` (an idle connection saves no more than 10 ms of credit). */
function throttle(from: Socket, to: Socket, bytesPerSecond: number): void {
  let due = Date.now();
  from.on('data', (chunk: Buffer) => {
    to.write(chunk);
    const now = Date.now();
    due = Math.max(due, now - 10) + (chunk.length / bytesPerSecond) * 1000;
    if (due - now < 1) return;
    from.pause();
    setTimeout(() => from.resume(), due - now);
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [host, port, rate] = process.argv.slice(2) as [string, string, string];
  const server = createServer((client) => {
    const upstream = connect(Number(port), host);
    client.pipe(upstream);
    throttle(upstream, client, Number(rate));
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
}

import type { FastifyReply } from 'fastify';

/** Aborts when the client goes away before the reply is written (long reads and tool calls stop with it). */
export function clientGone(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) controller.abort();
  });
  return controller.signal;
}

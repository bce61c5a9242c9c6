import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

/**
 * One structured line per request (method, url, status, time, request id), written when it completes: the
 * "incoming request" line fastify adds by default doubles the logging cost and says nothing the second one
 * does not.
 */
export class OneLinePerRequest extends LogController {
  constructor() {
    super({ requestIdLogLabel: 'requestId' });
  }

  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const entry = { method: request.method, url: request.url, statusCode: reply.statusCode, responseTime: reply.elapsedTime };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else reply.log.info(entry, 'request completed');
  }
}

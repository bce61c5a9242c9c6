import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay, { type HTTPVersion } from 'find-my-way';
import secureJson from 'secure-json-parse';
import { AppError, type FieldError, type ProblemCode } from '../errors.js';
import { tagRequest } from './auth.js';

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

const STATUS_CODES: Record<number, ProblemCode> = {
  400: 'invalid_request',
  401: 'unauthenticated',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'validation_failed',
  429: 'rate_limited',
  503: 'unavailable',
};

/** Maps anything thrown inside a request to a catalogue problem. */
export function toAppError(error: FastifyError & { validation?: unknown; validationContext?: string }): AppError {
  if (error instanceof AppError) return error;
  if (Array.isArray(error.validation)) {
    const context = error.validationContext ?? 'body';
    const errors: FieldError[] = (error.validation as Array<{ instancePath?: string; message?: string }>).map((e) => ({
      location: `${context}${e.instancePath ?? ''}`,
      message: e.message ?? 'invalid',
    }));
    const summary = errors.map((e) => `${e.location}: ${e.message}`).join('; ');
    // Spec, Errors: a validation failure of a body (create/update) is 422; a bad query or path is 400.
    return context === 'body'
      ? new AppError('validation_failed', `The request body is invalid: ${summary}`, { errors })
      : new AppError('invalid_request', `The request ${context} is invalid: ${summary}`, { errors });
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('malformed_json', 'The body is not valid JSON');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body exceeds the size limit of this operation');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type', `Content-Type is not accepted here; send application/json`);
  }
  if (error instanceof SyntaxError) return new AppError('malformed_json', `The body is not valid JSON: ${error.message}`);
  const status = error.statusCode ?? 500;
  const code = STATUS_CODES[status];
  if (status < 500 && code !== undefined) return new AppError(code, error.message);
  // The data engine stopped a query at its time budget: the request asked for more work than one answer may take.
  if (error.name === 'DataStoreError' && (error as unknown as { timedOut?: boolean }).timedOut === true) {
    return new AppError('unavailable', 'The data engine stopped the query at its time limit; narrow it (filters, fewer or selective joins) or export it');
  }
  return new AppError('internal', 'An internal error occurred; quote the request id when reporting it');
}

export function sendProblem(request: FastifyRequest, reply: FastifyReply, error: AppError): FastifyReply {
  for (const [name, value] of Object.entries(error.extras.headers ?? {})) reply.header(name, value);
  return reply
    .code(error.status)
    .type(PROBLEM_MEDIA_TYPE)
    .send(error.toProblem(request.url.split('?')[0], request.id));
}

/**
 * The JSON body parser (an empty body is no body). `deferred`: the request goes on to its handler a turn of the event
 * loop later, not inside the body's end event (the MCP endpoint: src/mcp/routes.ts says why).
 */
export function jsonBodyParser(options: { deferred?: boolean } = {}) {
  return (_request: unknown, body: string | Buffer, done: (error: Error | null, value?: unknown) => void): void => {
    const text = body.toString().trim();
    let value: unknown;
    try {
      value = text === '' ? undefined : secureJson.parse(text, { protoAction: 'error', constructorAction: 'error' });
    } catch (error) {
      return done(new AppError('malformed_json', `The body is not valid JSON: ${(error as Error).message}`), undefined);
    }
    if (options.deferred === true) setImmediate(done, null, value);
    else done(null, value);
  };
}

/**
 * Installs the problem rendering for every failure path: thrown errors, unknown routes (404) and known paths
 * with the wrong method (405 with Allow), plus a JSON body parser that treats an empty body as no body.
 */
export function installProblemHandling(app: FastifyInstance): void {
  const knownPaths = FindMyWay<HTTPVersion.V1>();
  const methods = new Set<string>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      methods.add(method);
      try {
        knownPaths.on(method as never, route.url, () => undefined);
      } catch {
        // A second registration of the same route (HEAD twins) is harmless here.
      }
    }
  });

  app.setNotFoundHandler((request, reply) => {
    tagRequest(request, reply);
    const path = request.url.split('?')[0] ?? '/';
    const allowed = [...methods].filter((method) => method !== request.method && knownPaths.find(method as never, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.sort().join(', '));
      return sendProblem(request, reply, new AppError('method_not_allowed', `${request.method} is not allowed on ${path}; use ${allowed.join(', ')}`));
    }
    return sendProblem(request, reply, new AppError('route_not_found', `No route ${request.method} ${path}`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const problem = toAppError(error);
    // An AppError is a refusal the service decided (a source out of reach, a store busy): an operator sees it as a
    // warning with its code, without a stack. Anything else is a defect and is logged with its stack.
    if (error instanceof AppError) {
      if (problem.status >= 500) request.log.warn({ code: problem.code, status: problem.status, detail: problem.message }, 'request refused');
    } else if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(request, reply, problem);
  });

  // Only JSON is accepted by default; operations that take files register their own parsers.
  app.removeAllContentTypeParsers();
  const parseJson = jsonBodyParser();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJson);
  app.addContentTypeParser(/^application\/[\w.+-]+\+json\s*(;.*)?$/i, { parseAs: 'string' }, parseJson);
}

import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ApiKeyService } from '../api-keys/service.js';
import { AppError } from '../errors.js';
import type { RateLimiter, RateDecision } from '../store/limiter/port.js';

const RATE_WINDOW_MS = 60_000;
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const UNAUTHENTICATED_HEADERS = { 'www-authenticate': 'Bearer realm="causa"' };

/**
 * onRequest, in this order: credential (401), IP allowlist (403), per-key rate limit (429), route scope (403).
 * Runs before the body is read, so an anonymous caller never gets a body parsed.
 */
export function installAuth(app: FastifyInstance, apiKeys: ApiKeyService, limiter: RateLimiter): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (request.is404 || config.public === true) return;
    const header = request.headers.authorization;
    if (header === undefined) {
      throw new AppError('unauthenticated', 'Send the header Authorization: Bearer <API key>', { headers: UNAUTHENTICATED_HEADERS });
    }
    const token = BEARER.exec(header)?.[1];
    if (token === undefined || !token.startsWith('pk_')) {
      throw new AppError('unauthenticated', 'The Authorization header must be Bearer <API key>', { headers: UNAUTHENTICATED_HEADERS });
    }
    const principal = await apiKeys.authenticate(token, request.ip).catch((error: unknown) => {
      if (error instanceof AppError && error.status === 401) {
        throw new AppError(error.code, error.detail, { headers: UNAUTHENTICATED_HEADERS });
      }
      throw error;
    });
    request.principal = principal;
    if (principal.rateLimit !== null && principal.keyId !== null) {
      const decision = await limiter.consume(principal.keyId, principal.rateLimit, RATE_WINDOW_MS);
      setRateHeaders(reply, decision);
      if (!decision.allowed) {
        const retryAfter = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
        throw new AppError('rate_limited', `This key allows ${decision.limit} requests per minute; retry in ${retryAfter} s`, {
          headers: { 'retry-after': retryAfter },
        });
      }
    }
    const scope = config.scope;
    if (scope !== undefined && scope !== null && !principal.scopes.has(scope)) {
      throw new AppError('missing_scope', `This operation needs the scope ${scope}`);
    }
  });
}

/** IETF draft-ietf-httpapi-ratelimit-headers (draft 7 field names, understood by most clients). */
function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  const reset = Math.max(0, Math.ceil(decision.resetMs / 1000));
  reply.header('ratelimit-limit', decision.limit);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', reset);
  reply.header('ratelimit-policy', `${decision.limit};w=${RATE_WINDOW_MS / 1000}`);
}

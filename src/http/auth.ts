import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { ApiKeyService } from '../api-keys/service.js';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { AppError } from '../errors.js';
import type { RateDecision, RateLimiter } from '../store/limiter/port.js';

const RATE_WINDOW_MS = 60_000;
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;
const UNAUTHENTICATED_HEADERS = { 'www-authenticate': 'Bearer realm="causa"' };

/**
 * Gives every route its own onRequest gate, the only hook a request meets before its handler: the request id
 * header; then, unless the route is public, in this order: credential (401), IP allowlist (403), per-key rate
 * limit (429), the route's scope (403). It runs before the body is read, so an anonymous caller never gets a body
 * parsed. The gate stays synchronous while the credential and the limiter answer from memory (the common case)
 * and only goes asynchronous when a store must be asked. (One hook instead of one per concern: each hook costs
 * fastify's hook runner a call on every request.)
 */
export function installGate(app: FastifyInstance, apiKeys: ApiKeyService, limiter: RateLimiter): void {
  app.decorateRequest('principal', null as never);
  app.addHook('onRoute', (route) => {
    const gate: onRequestHookHandler = route.config?.public === true ? (request, reply, done) => (tagRequest(request, reply), done()) : makeGate(apiKeys, limiter, route.config?.scope ?? null);
    route.onRequest = [gate, ...[route.onRequest ?? []].flat()];
  });
}

/**
 * How to check a request's credential again later (for an event stream that outlives its request): the same
 * authentication as the gate, answered from the credential cache, so a revoked or expired key stops passing.
 */
export function credentialRecheck(apiKeys: ApiKeyService): (request: FastifyRequest) => () => Principal | Promise<Principal> {
  return (request) => {
    const token = bearerToken(request);
    const address = request.ip;
    return () => apiKeys.authenticate(token, address);
  };
}

/** Every answer names its request (the caller's X-Request-Id when it sent a valid one: app.ts genReqId). */
export function tagRequest(request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
}

function makeGate(apiKeys: ApiKeyService, limiter: RateLimiter, scope: Scope | null): onRequestHookHandler {
  return function gate(request, reply, done) {
    tagRequest(request, reply);
    const admit = (decision: RateDecision) => {
      setRateHeaders(reply, decision);
      if (!decision.allowed) {
        const retryAfter = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
        return done(
          new AppError('rate_limited', `This key allows ${decision.limit} requests per minute; retry in ${retryAfter} s`, {
            headers: { 'retry-after': retryAfter },
          }),
        );
      }
      if (scope !== null && !request.principal.scopes.has(scope)) {
        return done(new AppError('missing_scope', `This operation needs the scope ${scope}`));
      }
      done();
    };
    const limit = (principal: Principal) => {
      request.principal = principal;
      if (principal.rateLimit === null || principal.keyId === null) return admit(UNLIMITED);
      const decision = limiter.consume(principal.keyId, principal.rateLimit, RATE_WINDOW_MS);
      if (decision instanceof Promise) decision.then(admit, done);
      else admit(decision);
    };
    try {
      const principal = apiKeys.authenticate(bearerToken(request), request.ip);
      if (principal instanceof Promise) principal.then(limit, (error: unknown) => done(withChallenge(error)));
      else limit(principal);
    } catch (error) {
      done(withChallenge(error));
    }
  };
}

const UNLIMITED: RateDecision = { allowed: true, limit: Number.POSITIVE_INFINITY, remaining: Number.POSITIVE_INFINITY, resetMs: 0 };

function bearerToken(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined) throw new AppError('unauthenticated', 'Send the header Authorization: Bearer <API key>');
  const token = BEARER.exec(header)?.[1];
  if (token === undefined || !token.startsWith('pk_')) {
    throw new AppError('unauthenticated', 'The Authorization header must be Bearer <API key>');
  }
  return token;
}

/** Every 401 carries the RFC 6750 challenge. */
function withChallenge(error: unknown): Error {
  if (error instanceof AppError && error.status === 401) return new AppError(error.code, error.detail, { headers: UNAUTHENTICATED_HEADERS });
  return error as Error;
}

/** IETF draft-ietf-httpapi-ratelimit-headers (draft 7 field names, understood by most clients). */
function setRateHeaders(reply: FastifyReply, decision: RateDecision): void {
  if (decision === UNLIMITED) return;
  reply.header('ratelimit-limit', decision.limit);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', Math.max(0, Math.ceil(decision.resetMs / 1000)));
  reply.header('ratelimit-policy', `${decision.limit};w=${RATE_WINDOW_MS / 1000}`);
}

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

/**
 * The gate of one route. On the common path (credential cached, limiter in memory) it runs straight through
 * without allocating a closure: the steps are functions made once per route, not once per request, and a step
 * only waits on a promise when the credential cache or the limiter could not answer from memory.
 */
function makeGate(apiKeys: ApiKeyService, limiter: RateLimiter, scope: Scope | null): onRequestHookHandler {
  /** The route's scope, checked last: a caller over its limit hears 429 before it hears about scopes. */
  const checkScope = (request: FastifyRequest, done: HookDone) => {
    if (scope !== null && !request.principal.scopes.has(scope)) return done(new AppError('missing_scope', `This operation needs the scope ${scope}`));
    done();
  };

  const admit = (decision: RateDecision, request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    setRateHeaders(reply, decision);
    if (!decision.allowed) {
      const retryAfter = String(Math.max(1, Math.ceil(decision.resetMs / 1000)));
      return done(
        new AppError('rate_limited', `This key allows ${decision.limit} requests per minute; retry in ${retryAfter} s`, {
          headers: { 'retry-after': retryAfter },
        }),
      );
    }
    checkScope(request, done);
  };

  const limit = (principal: Principal, request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
    request.principal = principal;
    if (principal.rateLimit === null || principal.keyId === null) return checkScope(request, done);
    let decision: RateDecision | Promise<RateDecision>;
    try {
      decision = limiter.consume(principal.keyId, principal.rateLimit, RATE_WINDOW_MS);
    } catch (error) {
      return done(error as Error);
    }
    if (decision instanceof Promise) decision.then((answered) => admit(answered, request, reply, done), done);
    else admit(decision, request, reply, done);
  };

  return function gate(request, reply, done) {
    tagRequest(request, reply);
    let principal: Principal | Promise<Principal>;
    try {
      principal = apiKeys.authenticate(bearerToken(request), request.ip);
    } catch (error) {
      return done(withChallenge(error));
    }
    if (principal instanceof Promise) principal.then((loaded) => limit(loaded, request, reply, done), (error: unknown) => done(withChallenge(error)));
    else limit(principal, request, reply, done);
  };
}

type HookDone = (error?: Error) => void;

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
  reply.header('ratelimit-limit', decision.limit);
  reply.header('ratelimit-remaining', decision.remaining);
  reply.header('ratelimit-reset', Math.max(0, Math.ceil(decision.resetMs / 1000)));
  reply.header('ratelimit-policy', policyOf(decision.limit));
}

/** The policy header of each limit in use, written once rather than formatted on every request. */
const policies = new Map<number, string>();
function policyOf(limit: number): string {
  let policy = policies.get(limit);
  if (policy === undefined) {
    policy = `${limit};w=${RATE_WINDOW_MS / 1000}`;
    // Limits are per key and few; a process that somehow sees very many simply starts over.
    if (policies.size >= 1_000) policies.clear();
    policies.set(limit, policy);
  }
  return policy;
}

import { createHash } from 'node:crypto';
import type { FastifyInstance, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import { AppError } from '../errors.js';
import { canonicalJson } from '../lib/canonical-json.js';
import type { IdempotencyRepo, IdempotencyRow } from './idempotency-repo.js';

/** Stripe semantics: a key is remembered for 24 hours. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim still pending after this long belongs to a request that died with its process: it may be taken over. */
const ABANDONED_CLAIM_MS = 60_000;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const REPLAYED_HEADERS = ['content-type', 'location'];

/**
 * Every POST may carry `Idempotency-Key`. The same key with the same request (credential, path, canonical body)
 * within 24 h replays the first response; with a different request it answers 409, as does a retry that
 * arrives while the first is still running. 5xx answers are not remembered, so a retry runs again.
 * The claim is taken after validation, so a rejected body never consumes a key.
 */
export function installIdempotency(app: FastifyInstance, repo: IdempotencyRepo): void {
  let lastSweep = 0;
  app.decorateRequest('idempotencyClaim', null);

  const claimKey: preHandlerAsyncHookHandler = async function (request, reply) {
    const key = request.headers['idempotency-key'];
    if (key === undefined || !request.principal) return;
    if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
      throw new AppError('invalid_idempotency_key', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
    }
    const organisationId = request.principal.organisationId;
    const fingerprint = createHash('sha256')
      .update(`${request.principal.keyId ?? request.principal.userId}\n${request.method} ${request.url}\n${canonicalJson(request.body ?? null)}`)
      .digest('hex');
    const now = Date.now();
    if (now - lastSweep > 60_000) {
      lastSweep = now;
      await repo.deleteOlderThan(new Date(now - IDEMPOTENCY_TTL_MS).toISOString());
    }
    const claim: IdempotencyRow = {
      organisation_id: organisationId,
      idempotency_key: key,
      fingerprint,
      state: 'pending',
      response_status: null,
      response_headers: null,
      response_body: null,
      created_at: new Date(now).toISOString(),
    };
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await repo.claim(claim)) {
        request.idempotencyClaim = { organisationId, key };
        return;
      }
      const existing = await repo.find(organisationId, key);
      if (existing === undefined) continue; // released between our insert and read: try again
      const age = now - Date.parse(existing.created_at);
      if (age > IDEMPOTENCY_TTL_MS || (existing.state === 'pending' && age > ABANDONED_CLAIM_MS)) {
        await repo.release(organisationId, key, existing.created_at);
        continue;
      }
      if (existing.fingerprint !== fingerprint) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was used with a different request in the last 24 hours');
      }
      if (existing.state === 'pending') {
        throw new AppError('idempotency_in_progress', 'The first request with this Idempotency-Key is still running; retry shortly');
      }
      const headers = JSON.parse(existing.response_headers ?? '{}') as Record<string, string>;
      reply.headers(headers).header('idempotent-replayed', 'true').code(existing.response_status ?? 200);
      return reply.serializer((payload: unknown) => payload as string).send(existing.response_body ?? '');
    }
    throw new AppError('idempotency_in_progress', 'The Idempotency-Key is contended; retry shortly');
  };

  const rememberResponse: onSendAsyncHookHandler<unknown> = async function (request, reply, payload) {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = null;
    const storable = payload === undefined || payload === null || typeof payload === 'string';
    if (reply.statusCode >= 500 || !storable) {
      await repo.release(claim.organisationId, claim.key);
      return payload;
    }
    const headers: Record<string, string> = {};
    for (const name of REPLAYED_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    await repo.complete(claim.organisationId, claim.key, reply.statusCode, headers, (payload as string | null) ?? '');
    return payload;
  };

  // Only authenticated POST routes carry the hooks: reads never pay for them.
  app.addHook('onRoute', (route) => {
    // Uploads carry their own identity (the sha256 of the bytes) and are never replayed from memory.
    if (route.method !== 'POST' || route.config?.public === true || route.config?.rawBody === true) return;
    route.preHandler = [...[route.preHandler ?? []].flat(), claimKey];
    route.onSend = [...[route.onSend ?? []].flat(), rememberResponse as never];
  });
}

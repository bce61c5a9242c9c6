import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The scope the credential must hold; null = any valid credential (GET /me). */
    scope?: Scope | null;
    /** No credential at all: health, metrics, docs. */
    public?: boolean;
    /** The handler reads the raw body stream itself (file uploads): no body parsing, no Idempotency-Key replay. */
    rawBody?: boolean;
    /** Extra problem statuses this operation can answer, beyond the ones every operation can. */
    problems?: number[];
  }
  interface FastifyRequest {
    /** Set by the auth hook on every non-public route. */
    principal: Principal;
    /** Set by the idempotency hook when this request holds an Idempotency-Key claim. */
    idempotencyClaim: { organisationId: string; key: string } | null;
  }
}

export {};

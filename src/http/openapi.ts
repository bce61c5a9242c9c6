import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { ProblemSchema, ref } from '../../schemas/common.js';
import { PROBLEMS } from '../errors.js';
import { PROBLEM_MEDIA_TYPE } from './problems.js';

export const API_PREFIX = '/api/v1';
export const API_VERSION = '1.0.0';

const LOGO_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="32" viewBox="0 0 120 32">' +
  '<text x="0" y="24" font-family="sans-serif" font-size="24" font-weight="700" fill="#fff">Causa</text></svg>';

export { ref } from '../../schemas/common.js';

const HEADERS_BY_STATUS: Record<number, Record<string, unknown>> = {
  401: { 'WWW-Authenticate': { type: 'string', description: 'Bearer realm="causa"' } },
  405: { Allow: { type: 'string', description: 'The methods the path accepts' } },
  429: {
    'Retry-After': { type: 'integer', description: 'Seconds until the rate window resets' },
    'RateLimit-Limit': { type: 'integer', description: 'Requests per minute of this key' },
    'RateLimit-Remaining': { type: 'integer', description: 'Requests left in this window' },
    'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets' },
  },
};

const problemResponse = (status: number, description: string) => ({
  description,
  ...(HEADERS_BY_STATUS[status] !== undefined && { headers: HEADERS_BY_STATUS[status] }),
  content: { [PROBLEM_MEDIA_TYPE]: { schema: ref(ProblemSchema) } },
});

const SUCCESS_TEXT: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };

/** Documented on every POST: retries with the same key replay the first answer (Stripe semantics). */
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x21-\\x7e]+$',
      description: 'Retry-safe POST: the same key with the same request within 24 h replays the first response; with a different request it answers 409.',
    }),
  ),
});

const STATUS_TEXT: Record<number, string> = Object.fromEntries(
  Object.values(PROBLEMS).map(({ status, title }) => [status, title]),
);
STATUS_TEXT[400] = 'Invalid request (query, path, cursor or header)';
STATUS_TEXT[403] = 'Missing scope or permission, or workspace outside the credential scope';
STATUS_TEXT[404] = 'Not found in the caller organisation or workspace';
STATUS_TEXT[409] = 'Conflict (duplicate, stale version, or Idempotency-Key reuse)';

/**
 * Completes every route's OpenAPI description from its config, so no operation can forget its security or its
 * problem responses: authenticated routes answer 401/403/429, all can answer 500, bodies add 413/415/422,
 * POSTs add 409 (Idempotency-Key), path parameters add 404.
 */
function describeRoute(route: RouteOptions): void {
  // HEAD twins of GET routes share the GET's schema object: describe it once.
  if (route.method === 'HEAD') return;
  if (route.url.startsWith(`${API_PREFIX}/docs`)) route.config = { ...route.config, public: true };
  const config = (route.config ?? {}) as { scope?: unknown; public?: boolean; rawBody?: boolean; problems?: number[] };
  const schema = route.schema as Record<string, unknown> | undefined;
  if (schema === undefined || schema.hide === true) return;
  if (config.public !== true && !('scope' in config)) {
    throw new Error(`route ${String(route.method)} ${route.url} must declare config.scope (null for none) or config.public`);
  }
  const statuses = new Set<number>([500, ...(config.problems ?? [])]);
  if (config.public !== true) [400, 401, 403, 429].forEach((s) => statuses.add(s));
  if (schema.querystring !== undefined) statuses.add(400);
  if (schema.params !== undefined) [400, 404].forEach((s) => statuses.add(s));
  if (schema.body !== undefined) [413, 415, 422].forEach((s) => statuses.add(s));
  if (route.method === 'POST' && config.public !== true) [400, 409].forEach((s) => statuses.add(s));
  if (route.method === 'POST' && config.public !== true && config.rawBody !== true && schema.headers === undefined) schema.headers = IdempotencyHeaders;
  const response = (schema.response ?? {}) as Record<string, Record<string, unknown>>;
  for (const [status, success] of Object.entries(response)) {
    if (SUCCESS_TEXT[status] !== undefined && success.description === undefined) success.description = SUCCESS_TEXT[status];
  }
  for (const status of [...statuses].sort()) {
    response[status] ??= problemResponse(status, STATUS_TEXT[status] ?? 'Error') as never;
  }
  schema.response = response;
  schema.security = config.public === true ? [] : [{ bearerAuth: [] }];
  if (typeof config.scope === 'string') {
    schema.description = `${(schema.description as string | undefined) ?? ''}\n\nRequired scope: \`${config.scope}\`.`.trim();
  }
}

/** Shared schemas and the route describer; must run before any other onRoute hook and any route. */
export function describeRoutes(app: FastifyInstance, schemas: TSchema[]): void {
  app.addSchema(ProblemSchema);
  for (const schema of schemas) app.addSchema(schema);
  app.addHook('onRoute', describeRoute);
}

export async function installOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Causa API',
        version: API_VERSION,
        summary: 'Causal analytics: data, digital twins and simulations',
        description:
          'Multi-tenant causal analytics service. Every operation needs `Authorization: Bearer <API key>`. ' +
          'Errors are RFC 9457 problem documents (`application/problem+json`). Every POST accepts an optional ' +
          '`Idempotency-Key` header: the same key with the same request within 24 hours replays the first response; ' +
          'with a different request it answers 409. Lists are paginated with opaque cursors. Identity comes from the credential and the ' +
          'path: `organisationId`, `workspaceId`, `userId` and `ownerId` in a body are ignored, except where an operation documents one as ' +
          'its own member (a key\'s or a link\'s `workspaceId`, a connector import\'s target workspace). Text that cannot be stored exactly ' +
          '(a NUL character, an unpaired UTF-16 surrogate) is refused with 422 naming the member. Integer query parameters must be written as ' +
          'integers (`limit=1.5` answers 400).',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
        contact: { name: 'Causa', email: 'api@causa.invalid' },
      },
      servers: [{ url: '/', description: 'This server' }],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key (pk_...) or an OAuth access token' },
        },
      },
      tags: [
        { name: 'Identity', description: 'The caller, users and API keys' },
        { name: 'Workspaces', description: 'Workspaces and their members' },
        { name: 'Sources', description: 'Organisation sources and their links to workspaces' },
        { name: 'Operations', description: 'Health, readiness and metrics (no credential)' },
        {
          name: 'Connectors',
          description:
            'Organisation connectors to PostgreSQL, MySQL, MariaDB, ClickHouse and file storage: browse, preview (read-only), test, import into a workspace (a job) and direct query. ' +
            'States: `unconfigured` (new, or new credentials) -> `connected` | `error` (with `errorMessage`), moved by test, browse and import. ' +
            'Credentials shapes are the components SqlCredentials, ConnectionStringCredentials, ClickHouseCredentials and StorageCredentials; they are encrypted at rest and never returned. ' +
            'A statement the source refuses answers 400 (`source-query-failed`, the source\'s message without secrets); a source that cannot be reached answers 502 (`source-unreachable`).',
        },
        {
          name: 'Simulations',
          description:
            'Questions to trained twin versions, run asynchronously: submit (202), poll the run, read results, sweeps and scores, export, cancel. ' +
            'The scenario families are the components PredictionScenario, InterventionScenario, OptimisationScenario, CounterfactualScenario, ' +
            'ExplanationScenario, RootCauseScenario and AnomalyScenario.',
        },
      ],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (json.$id as string | undefined) ?? `def-${i}` },
  });

  await app.register(swaggerUi, {
    routePrefix: `${API_PREFIX}/docs`,
    // No call to the public validator service: the reference works fully offline.
    uiConfig: { validatorUrl: null, deepLinking: true },
    // Same-origin only: the browser itself refuses any request to another host, so the reference is offline.
    staticCSP:
      "default-src 'self'; base-uri 'self'; font-src 'self' data:; frame-ancestors 'self'; img-src 'self' data:; " +
      "object-src 'none'; script-src 'self'; script-src-attr 'none'; style-src 'self' 'unsafe-inline'; connect-src 'self'",
    logo: { type: 'image/svg+xml', content: Buffer.from(LOGO_SVG), href: `${API_PREFIX}/docs`, target: '_self' },
  });

  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
}

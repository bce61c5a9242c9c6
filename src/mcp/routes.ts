/**
 * The MCP endpoint (spec "Model Context Protocol"): POST /mcp carries JSON-RPC messages (Streamable HTTP, answered
 * in the response; or, with `?stream=`, the legacy HTTP+SSE transport, answered on that stream), GET /mcp opens a
 * legacy event stream. The same Bearer credentials, rate limits and scopes as the REST API (the auth gate runs
 * first); the session is the organisation's (`Mcp-Session-Id: org-<orgId>`); browser origins are checked.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { clientGone } from '../http/client-gone.js';
import { API_PREFIX } from '../http/openapi.js';
import { jsonBodyParser } from '../http/problems.js';
import { acceptsGzip } from '../lib/gzip-prefix.js';
import { HEADERLESS_REVISION, REVISIONS, RPC, type Revision, type RpcResponse, features, isRevision, negotiate, rpcError } from './protocol.js';
import { type McpServer, encodeResponse } from './server.js';
import type { McpStreams, StreamOwner } from './streams.js';

const TAGS = ['MCP'];
const sessionOf = (organisationId: string) => `org-${organisationId}`;

/** Checks a credential again (the gate's check), for streams that outlive the request that opened them. */
export type Recheck = (request: FastifyRequest) => StreamOwner['recheck'];

export function mcpRoutes(app: FastifyInstance, server: McpServer, streams: McpStreams, allowedOrigins: readonly string[], recheck: Recheck): void {
  void app.register(async (scope) => mcpScope(scope, server, streams, allowedOrigins, recheck));
}

function mcpScope(app: FastifyInstance, server: McpServer, streams: McpStreams, allowedOrigins: readonly string[], recheck: Recheck): void {
  // An MCP POST is answered a turn of the event loop after its body ends, not inside the body's end event: under
  // many concurrent POSTs that halves the CPU node:http spends per MCP request (bench/mcp/calls.ts, one server
  // switching between the two at 50 connections: ping 2.97x vs 1.83x a GET /me; one client alone: 1.46x vs 1.63x, no
  // gain). Only here: the REST mix (bench/http/load.ts), one JSON POST in twenty requests, did not gain from it.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser({ deferred: true }));
  const api = app.withTypeProvider<TypeBoxTypeProvider>();

  api.post('/mcp', {
    config: { scope: null, problems: [400, 403, 404] },
    schema: {
      operationId: 'mcpPost',
      summary: 'Send Model Context Protocol messages (JSON-RPC 2.0)',
      description: 'A JSON-RPC request, notification or response; a batch (array) only on revision 2025-03-26. `initialize` negotiates the revision (2025-11-25, 2025-06-18, 2025-03-26; an unknown one '
        + 'gets 2025-11-25) and answers the session id `org-<orgId>` in `Mcp-Session-Id`; later requests name it in `MCP-Protocol-Version` (absent: 2025-03-26; not a supported revision: 400). '
        + 'Notifications and responses answer 202 with no body. A request whose `_meta` names a stateless revision (2026-07-28 or later) answers 400 with error -32022 and the supported revisions. '
        + 'With `stream` (the legacy HTTP+SSE transport, from GET /mcp\'s endpoint event) the answers go to that stream and the POST answers 202. A browser Origin answers 403 unless it is in '
        + 'CAUSA_MCP_ALLOWED_ORIGINS or it and the Host are both loopback (localhost); so does another organisation\'s session id. Methods: initialize, ping, tools/list (filtered by the credential\'s scopes; '
        + 'gzipped when Accept-Encoding allows), tools/call, resources/list, resources/templates/list, resources/read, resources/subscribe and resources/unsubscribe (changes announced as '
        + 'notifications/resources/updated on the session\'s open GET stream), prompts/list, prompts/get, logging/setLevel (notifications/message) and completion/complete.',
      tags: TAGS,
      querystring: Type.Object({ stream: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'A legacy event stream (GET /mcp\'s endpoint event)' })) }),
      body: Type.Unknown({ description: 'A JSON-RPC 2.0 message, or (2025-03-26) an array of them' }),
      response: {
        200: Type.Unknown({ description: 'The JSON-RPC response (an array for a batch)' }),
        202: Type.Null({ description: 'Notifications and responses only, or a message posted to a legacy stream' }),
      },
    },
  }, async (request, reply) => {
    const principal = request.principal;
    checkOrigin(request, allowedOrigins);
    const header = request.headers['mcp-protocol-version'];
    if (header !== undefined && !isRevision(header)) throw new AppError('invalid_request', `MCP-Protocol-Version ${String(header)} is not supported; supported: ${REVISIONS.join(', ')}`);
    const session = request.headers['mcp-session-id'];
    if (session !== undefined && session !== sessionOf(principal.organisationId)) throw new AppError('forbidden', 'This MCP session belongs to another organisation');
    const stream = request.query.stream === undefined ? undefined : streams.find(request.query.stream, principal.organisationId);
    if (request.query.stream !== undefined && stream === undefined) throw new AppError('not_found', 'No open MCP event stream has this id (open one with GET /mcp)');
    const body = request.body;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    const initialize = messages.find((m): m is { method: 'initialize'; params?: { protocolVersion?: unknown } } => (m as { method?: unknown } | null)?.method === 'initialize');
    const revision: Revision = initialize !== undefined ? negotiate(initialize.params?.protocolVersion) : isRevision(header) ? header : (stream?.revision ?? HEADERLESS_REVISION);
    if (batch && (!features(revision).batches || messages.length === 0)) {
      const message = messages.length === 0 ? 'An empty batch is not a request' : `JSON-RPC batches are honoured only on revision 2025-03-26; this request is on ${revision}: send one message per request`;
      return (reply as FastifyReply).code(400).send(rpcError(null, RPC.invalidRequest, message));
    }
    // The abort signal is made only for the calls that read it (tools): an AbortController costs more than a ping.
    let gone: AbortSignal | undefined;
    const base = { principal, revision, get signal() { return (gone ??= clientGone(reply)); } };
    if (stream === undefined && !batch && followsProgress(body) && String(request.headers.accept ?? '').includes('text/event-stream')) {
      // A long tool followed to its end: progress notifications, then the response, on an event stream.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': sessionOf(principal.organisationId) });
      const send = (message: unknown) => reply.raw.writableEnded || reply.raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
      const response = await server.handle(body, { ...base, signal: base.signal, notify: send });
      if (response !== null) send(response);
      reply.raw.end();
      return reply;
    }
    const notify = stream === undefined ? undefined : (message: unknown) => stream.send(message);
    const handled = messages.map((message) => server.handle(message, notify === undefined ? base : { principal, revision, get signal() { return base.signal; }, notify }));
    // Methods answered from memory (ping, tools/list) need no promise.
    const responses = (handled.some((h) => h instanceof Promise) ? await Promise.all(handled) : (handled as Array<RpcResponse | null>)).filter((r): r is RpcResponse => r !== null);
    if (initialize !== undefined) {
      reply.header('mcp-session-id', sessionOf(principal.organisationId));
      if (stream !== undefined) stream.revision = revision;
    }
    if (stream !== undefined) {
      for (const response of responses) stream.send(response);
      return (reply as FastifyReply).code(202).send();
    }
    if (responses.length === 0) return (reply as FastifyReply).code(202).send();
    const unsupported = !batch && 'error' in responses[0]! && responses[0].error.code === RPC.unsupportedProtocolVersion;
    if (batch) {
      const text = Buffer.concat([Buffer.from('['), ...responses.flatMap((r, i) => (i === 0 ? [encodeResponse(r).body] : [Buffer.from(','), encodeResponse(r).body])), Buffer.from(']')]);
      return (reply as FastifyReply).code(200).type('application/json; charset=utf-8').send(text);
    }
    // A large answer kept encoded (tools/list) goes gzipped to clients that accept it (fetch and httpx do by default).
    const { body: text, gzipped } = encodeResponse(responses[0]!, acceptsGzip(request.headers['accept-encoding']));
    if (gzipped) reply.header('content-encoding', 'gzip').header('vary', 'accept-encoding');
    return (reply as FastifyReply).code(unsupported ? 400 : 200).type('application/json; charset=utf-8').send(text);
  });

  api.get('/mcp', {
    config: { scope: null, problems: [403] },
    schema: {
      operationId: 'mcpEvents',
      summary: 'Open a Model Context Protocol event stream (legacy HTTP+SSE transport)',
      description: 'A `text/event-stream`: first an `endpoint` event whose data is the URI to POST messages to (`/api/v1/mcp?stream=<id>`), then a `message` event per answer to the messages posted '
        + 'there, and a keep-alive comment every 15 s; ended when the service shuts down.',
      tags: TAGS,
      response: { 200: Type.String({ description: 'text/event-stream' }) },
    },
  }, async (request, reply) => {
    checkOrigin(request, allowedOrigins);
    reply.hijack();
    reply.raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'mcp-session-id': sessionOf(request.principal.organisationId),
    });
    streams.start(reply.raw, { principal: request.principal, recheck: recheck(request) }, (id) => `${API_PREFIX}/mcp?stream=${id}`);
  });
}

/**
 * DNS-rebinding protection (MCP transports, "Security Warning"): a request carrying a browser's Origin is served
 * only when the operator allows that origin (CAUSA_MCP_ALLOWED_ORIGINS), or when both it and the Host it reached
 * are loopback addresses (a page and a service on the same machine). A rebound name (evil.example resolving to
 * this service) carries its own name in both, and is refused.
 */
function checkOrigin(request: FastifyRequest, allowed: readonly string[]): void {
  const origin = request.headers.origin;
  if (origin === undefined || allowed.includes(origin)) return;
  if (isLoopback(hostOf(origin)) && isLoopback(hostOf(`http://${request.headers.host ?? ''}`))) return;
  throw new AppError('forbidden', `Origin ${origin} may not call the MCP endpoint (the operator allows origins with CAUSA_MCP_ALLOWED_ORIGINS)`);
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return '';
  }
}

const isLoopback = (host: string) => host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);

/** A tools/call carrying a progress token: its answer may come after progress notifications. */
function followsProgress(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } } | null;
  const token = m?.params?._meta?.progressToken;
  return m?.method === 'tools/call' && (typeof token === 'string' || typeof token === 'number');
}

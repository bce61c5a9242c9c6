/**
 * The Model Context Protocol's wire rules as this service speaks them (spec "Model Context Protocol"): JSON-RPC 2.0
 * messages, the three revisions supported and how one is chosen, and the error codes.
 */

/** Newest first. */
export const REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export type Revision = (typeof REVISIONS)[number];
export const LATEST_REVISION: Revision = REVISIONS[0];
/** A request after initialize without the MCP-Protocol-Version header is read as this revision (2025-06-18 transports). */
export const HEADERLESS_REVISION: Revision = '2025-03-26';
/** Revisions from this one on are stateless (per-request `_meta`), which this service does not speak. */
export const FIRST_STATELESS_REVISION = '2026-07-28';
/** The per-request `_meta` member a stateless client names its revision in. */
export const META_REVISION = 'io.modelcontextprotocol/protocolVersion';

export const isRevision = (value: unknown): value is Revision => typeof value === 'string' && (REVISIONS as readonly string[]).includes(value);

/** initialize: the client's revision when supported, else the newest (the client then decides whether to go on). */
export const negotiate = (requested: unknown): Revision => (isRevision(requested) ? requested : LATEST_REVISION);

/** Revision-dependent behaviour a client can see. */
export const features = (revision: Revision) => ({
  /** JSON-RPC batches (arrays): only 2025-03-26. */
  batches: revision === '2025-03-26',
  /** Tools' outputSchema and results' structuredContent: from 2025-06-18. */
  structuredContent: revision !== '2025-03-26',
  /** Tools' titles: from 2025-06-18 (2025-03-26 has annotations.title only). */
  titles: revision !== '2025-03-26',
  /** Arguments that fail the input schema: a tool result with isError (2025-11-25), a JSON-RPC error before. */
  inputErrorsAsToolResults: revision === '2025-11-25',
});

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  unsupportedProtocolVersion: -32022,
} as const;

export type Id = string | number | null;

export interface RpcError {
  jsonrpc: '2.0';
  id: Id;
  error: { code: number; message: string; data?: unknown };
}

export interface RpcResult {
  jsonrpc: '2.0';
  id: Id;
  result: Record<string, unknown>;
}

export type RpcResponse = RpcError | RpcResult;

export const rpcError = (id: Id, code: number, message: string, data?: unknown): RpcError => ({ jsonrpc: '2.0', id, error: { code, message, ...(data === undefined ? {} : { data }) } });
export const rpcResult = (id: Id, result: Record<string, unknown>): RpcResult => ({ jsonrpc: '2.0', id, result });

/** A stateless revision named in a request's `_meta` (2026-07-28 or later), or null. */
export function statelessRevision(params: unknown): string | null {
  const meta = (params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  const named = meta?.[META_REVISION];
  return typeof named === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(named) && named >= FIRST_STATELESS_REVISION ? named : null;
}

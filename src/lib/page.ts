import { createHash } from 'node:crypto';
import type { Pagination } from '../../schemas/common.js';
import type { CursorCodec } from './cursor.js';

/** A request for one page: how many, and after which sort key (already verified). */
export interface PageRequest {
  limit: number;
  after: Array<string | number | boolean | null> | null;
}

export interface Page<T> {
  items: T[];
  pagination: Pagination;
}

export const DEFAULT_PAGE_SIZE = 50;

/** Digest of the filters a list was asked with; binds a cursor to them. */
export function filterScope(filters: Record<string, unknown>): string {
  return createHash('sha256').update(JSON.stringify(filters, Object.keys(filters).sort())).digest('base64url').slice(0, 16);
}

export function pageRequest(codec: CursorCodec, query: { limit?: number; cursor?: string }, scope: string): PageRequest {
  return {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    after: query.cursor === undefined ? null : codec.decode(query.cursor, scope).after,
  };
}

/**
 * Builds the page from `limit + 1` fetched rows: the extra row only tells whether more exist, and the
 * cursor is made from the last row actually served.
 */
export function toPage<Row, T>(
  codec: CursorCodec,
  rows: Row[],
  request: PageRequest,
  total: number,
  scope: string,
  sortKey: (row: Row) => Array<string | number>,
  present: (row: Row) => T,
): Page<T> {
  const hasMore = rows.length > request.limit;
  const served = hasMore ? rows.slice(0, request.limit) : rows;
  const last = served.at(-1);
  return {
    items: served.map(present),
    pagination: {
      cursor: hasMore && last !== undefined ? codec.encode({ after: sortKey(last), scope }) : null,
      hasMore,
      total,
    },
  };
}

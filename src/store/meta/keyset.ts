import type { SelectQueryBuilder } from 'kysely';
import type { PageRequest } from '../../lib/page.js';

/**
 * One keyset page of `base` (a filtered select of a table with `created_at` and `id`), newest first, and the
 * total count of `base`: the listing every workspace resource shares. The cursor is the last row's
 * (created_at, id).
 */
export async function newestFirstPage<Row>(base: SelectQueryBuilder<any, any, object>, page: PageRequest): Promise<{ rows: Row[]; total: number }> {
  let rows = base.selectAll();
  if (page.after !== null) {
    const [createdAt, id] = page.after as [string, string];
    rows = rows.where((eb) => eb(eb.refTuple('created_at', 'id'), '<', eb.tuple(createdAt, id)));
  }
  const result = await rows.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
  return { rows: result as Row[], total: await listingTotal(base, page, result.length) };
}

/**
 * The total count of a listing `base` whose page (`page`, read with limit + 1) came back with `read` rows: a first
 * page that holds every row is the total itself (most listings are one page), any other page asks for the count.
 */
export async function listingTotal(base: SelectQueryBuilder<any, any, object>, page: PageRequest, read: number): Promise<number> {
  if (page.after === null && read <= page.limit) return read;
  const { total } = await base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow();
  return Number(total);
}

import { sql } from 'kysely';
import type { PageRequest } from '../lib/page.js';
import type { MetaDb } from '../store/meta/port.js';
import type { SourcesTable } from '../store/meta/schema.js';
import { listingTotal } from '../store/meta/keyset.js';

export type SourceRow = SourcesTable;

/** Sort keys of the organisation list, mapped to columns (names sort case-insensitively). */
export const SORT_COLUMNS = {
  createdAt: 'created_at',
  name: 'name_key',
  lastSaved: 'last_saved',
  totalSize: 'total_size',
  documentCount: 'document_count',
} as const;
export type SortKey = keyof typeof SORT_COLUMNS;

export interface SourceFilter {
  organisationId: string;
  /** Only sources linked to one of these workspaces; null = every source of the organisation. */
  visibleIn: string[] | null;
  /** undefined = top-level only, 'all' = any depth, an id = the children of that source. */
  parentId?: string;
  format?: 'Tabular' | 'Folder';
  search?: string;
  excludeVirtual?: boolean;
}

export interface SourceOrder {
  key: SortKey;
  direction: 'asc' | 'desc';
}

/** An update named a version that is no longer current. */
export class StaleSourceError extends Error {}

export class SourceRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: SourceRow, linkedTo: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('sources').values(row).execute();
      await tx.insertInto('source_links').values({ source_id: row.id, workspace_id: linkedTo, created_at: row.created_at }).execute();
    });
  }

  find(organisationId: string, id: string): Promise<SourceRow | undefined> {
    return this.db.selectFrom('sources').selectAll().where('organisation_id', '=', organisationId).where('id', '=', id).executeTakeFirst();
  }

  /** Several sources of one organisation at once (missing ids are simply absent). */
  async findMany(organisationId: string, ids: string[]): Promise<SourceRow[]> {
    if (ids.length === 0) return [];
    return this.db.selectFrom('sources').selectAll().where('organisation_id', '=', organisationId).where('id', 'in', ids).execute();
  }

  /** Which of `ids` are linked to the workspace. */
  async linkedTo(workspaceId: string, ids: string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.db.selectFrom('source_links').select('source_id').where('workspace_id', '=', workspaceId).where('source_id', 'in', ids).execute();
    return new Set(rows.map((row) => row.source_id));
  }

  async linkedWorkspaceIds(sourceId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('source_links').select('workspace_id').where('source_id', '=', sourceId).orderBy('workspace_id').execute();
    return rows.map((row) => row.workspace_id);
  }

  /** Keyset page over (sort column, id); the total counts the same filtered set. */
  async list(filter: SourceFilter, order: SourceOrder, page: PageRequest): Promise<{ rows: SourceRow[]; total: number }> {
    let query = this.db.selectFrom('sources').where('organisation_id', '=', filter.organisationId);
    if (filter.visibleIn !== null) {
      const visible = filter.visibleIn;
      if (visible.length === 0) return { rows: [], total: 0 };
      // EXISTS looks each source up in the link's primary key; `id IN (subquery)` built a list of every linked source on each read.
      query = query.where((eb) => eb.exists(eb.selectFrom('source_links').select('source_links.source_id').whereRef('source_links.source_id', '=', 'sources.id').where('source_links.workspace_id', 'in', visible)));
    }
    if (filter.parentId === undefined) query = query.where('parent_source_id', 'is', null);
    else if (filter.parentId !== 'all') query = query.where('parent_source_id', '=', filter.parentId);
    if (filter.format !== undefined) query = query.where('data_format', '=', filter.format);
    if (filter.excludeVirtual === true) query = query.where('virtual', '=', 0);
    if (filter.search !== undefined && filter.search !== '') {
      const pattern = `%${filter.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      query = query.where(sql<boolean>`name_key like ${pattern} escape '\\'`);
    }
    const column = SORT_COLUMNS[order.key];
    let rows = query.selectAll();
    if (page.after !== null) {
      const [value, id] = page.after as [string | number, string];
      const comparison = order.direction === 'asc' ? '>' : '<';
      rows = rows.where((eb) => eb(eb.refTuple(column, 'id'), comparison, eb.tuple(value, id)));
    }
    const result = await rows.orderBy(column, order.direction).orderBy('id', order.direction).limit(page.limit + 1).execute();
    return { rows: result, total: await listingTotal(query, page, result.length) };
  }

  /**
   * Takes the source's write lease, unless another writer holds one that has not lapsed. Whoever does not get it
   * touches no rows.
   */
  async acquireLease(organisationId: string, id: string, token: string, now: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('sources')
      .set({ lease_token: token, lease_expires_at: until })
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_token', 'is', null), eb('lease_expires_at', '<', now)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /** Extends a held lease; false when it was lost (it lapsed and another writer took it). */
  async renewLease(organisationId: string, id: string, token: string, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('sources')
      .set({ lease_expires_at: until })
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  async releaseLease(organisationId: string, id: string, token: string): Promise<void> {
    await this.db
      .updateTable('sources')
      .set({ lease_token: null, lease_expires_at: null })
      .where('organisation_id', '=', organisationId)
      .where('id', '=', id)
      .where('lease_token', '=', token)
      .execute();
  }

  /** Stores what a write changed, only while `token` still holds the lease; releases it in the same statement. */
  async updateLeased(row: SourceRow, token: string): Promise<void> {
    const result = await this.db
      .updateTable('sources')
      .set({ document_count: row.document_count, total_size: row.total_size, last_saved: row.last_saved, details: row.details, version: row.version + 1, lease_token: null, lease_expires_at: null })
      .where('organisation_id', '=', row.organisation_id)
      .where('id', '=', row.id)
      .where('lease_token', '=', token)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) throw new StaleSourceError(`the write lease on source ${row.id} was lost`);
  }

  async hasChildren(organisationId: string, id: string): Promise<boolean> {
    const child = await this.db.selectFrom('sources').select('id').where('organisation_id', '=', organisationId).where('parent_source_id', '=', id).limit(1).executeTakeFirst();
    return child !== undefined;
  }

  async delete(organisationId: string, id: string): Promise<boolean> {
    const result = await this.db.deleteFrom('sources').where('organisation_id', '=', organisationId).where('id', '=', id).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }

  async link(sourceId: string, workspaceId: string, at: string): Promise<void> {
    await this.db
      .insertInto('source_links')
      .values({ source_id: sourceId, workspace_id: workspaceId, created_at: at })
      .onConflict((oc) => oc.columns(['source_id', 'workspace_id']).doNothing())
      .execute();
  }

  async unlink(sourceId: string, workspaceId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('source_links').where('source_id', '=', sourceId).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return Number(result.numDeletedRows) === 1;
  }
}

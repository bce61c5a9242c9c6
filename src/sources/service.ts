/**
 * The source resource: records, workspace links, who sees what, listings, deletion, and the listeners told of new
 * rows and of sources gone. Rows come in through batches.ts, under the same writers (lease.ts).
 */
import type { CreateSource, OrgSource, Source } from '../../schemas/sources.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { CursorCodec } from '../lib/cursor.js';
import { nowIso } from '../lib/ids.js';
import { filterScope, type Page, pageRequest, toPage } from '../lib/page.js';
import type { TableLoader } from '../tables/loader.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { WorkspaceRepo } from '../workspaces/repo.js';
import type { FolderFiles } from './folders.js';
import type { SourceWriters } from './lease.js';
import { type SourceDetails, newSourceRow, toSource } from './records.js';
import { type SourceFilter, type SourceOrder, type SourceRepo, type SourceRow, type SortKey, SORT_COLUMNS } from './repo.js';

/** Told of new rows in a source: the source as stored, the workspace they came through and who sent them. */
export type RowsAddedListener = (source: Source, workspaceId: string, createdBy: string) => Promise<void>;

/** Told that a source is gone: from every workspace (`workspaceId` undefined) or from one. */
export type SourceRemovedListener = (organisationId: string, sourceId: string, workspaceId: string | undefined) => Promise<void>;

export interface OrgListQuery {
  limit?: number;
  cursor?: string;
  parentId?: string;
  format?: 'Tabular' | 'Folder';
  search?: string;
  sortBy?: SortKey;
  sortDir?: 'asc' | 'desc';
}

/**
 * Sources belong to the organisation; a workspace sees one through a link. Who sees what: an organisation admin
 * with an org-wide credential sees every source, anyone else the sources linked to workspaces they can read.
 */
export class SourceService {
  constructor(
    private readonly repo: SourceRepo,
    private readonly workspaces: WorkspaceRepo,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly tables: TableLoader,
    /** The datasets reading a source (in one workspace, or anywhere): such a source is not deleted or unlinked. */
    private readonly datasetsUsing: (sourceId: string, workspaceId?: string) => Promise<string[]>,
    private readonly folders: FolderFiles,
    /** The writers of every source, shared with its batches (an ontology change queues behind an upload). */
    private readonly writers: SourceWriters,
  ) {}

  private readonly rowListeners: RowsAddedListener[] = [];

  /** Called after rows were stored in a tabular source (the ontology's extraction listens). */
  onRowsAdded(listener: RowsAddedListener): void {
    this.rowListeners.push(listener);
  }

  private readonly removalListeners: SourceRemovedListener[] = [];

  /** Called after a source was deleted (workspaceId undefined) or unlinked from a workspace. */
  onRemoved(listener: SourceRemovedListener): void {
    this.removalListeners.push(listener);
  }

  /** Whether a source is linked to a workspace (of the organisation). */
  async isLinked(organisationId: string, id: string, workspaceId: string): Promise<boolean> {
    const row = await this.repo.find(organisationId, id);
    return row !== undefined && (await this.repo.linkedWorkspaceIds(id)).includes(workspaceId);
  }

  /**
   * Tells the listeners that `source` has new rows (uploads call it themselves; an import once it is sure to keep
   * them). The rows are stored whatever a listener does: one that fails marks the source's ontology failed.
   */
  async rowsAdded(source: Source, workspaceId: string, createdBy: string): Promise<void> {
    for (const listener of this.rowListeners) {
      await listener(source, workspaceId, createdBy).catch(async (error: unknown) => {
        const message = `The extraction could not be queued: ${error instanceof Error ? error.message : String(error)}`;
        await this.recordOntology(source.organisationId, source.id, () => ({ ontologyStatus: 'failed', ontologyError: message }), 3).catch(() => undefined);
      });
    }
  }

  /** Tells the listeners a source is gone; it is gone whatever they do (their failures are theirs). */
  private async removed(organisationId: string, id: string, workspaceId: string | undefined): Promise<void> {
    for (const listener of this.removalListeners) await listener(organisationId, id, workspaceId).catch(() => undefined);
  }

  /**
   * Changes the ontology members of a source's record (status, schema entry aliases and descriptions, excluded
   * fields) as its writer: waits for an upload or change in progress (up to `attempts` tries, a second apart; no
   * more once `signal` is aborted, so a stopping job does not hold the shutdown).
   */
  async recordOntology(organisationId: string, id: string, change: (source: Source) => Partial<Pick<Source, 'ontologyStatus' | 'ontologyError' | 'schemaEntries' | 'ontologyExcludedFields'>>, attempts = 30, signal?: AbortSignal): Promise<Source | null> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.writers.run(organisationId, id, async (current, lease) => {
          const source = toSource(current);
          const details = JSON.parse(current.details) as SourceDetails;
          const updated: SourceRow = { ...current, details: JSON.stringify({ ...details, ...change(source) }) };
          await this.repo.updateLeased(updated, lease.token);
          return toSource({ ...updated, version: updated.version + 1 });
        });
      } catch (error) {
        if (error instanceof AppError && error.code === 'not_found') return null;
        if (!(error instanceof AppError && error.code === 'conflict') || attempt >= attempts || signal?.aborted === true) throw error;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  async create(principal: Principal, workspaceId: string, input: CreateSource): Promise<Source> {
    await this.access.require(principal, workspaceId, 'write');
    const parentId = input.parentSourceId ?? null;
    if (parentId !== null && !(await this.isVisible(principal, parentId))) {
      throw new AppError('validation_failed', `Source ${parentId} is not a source you can see`, {
        errors: [{ location: 'body/parentSourceId', message: 'unknown source' }],
      });
    }
    const row = newSourceRow(principal, workspaceId, { name: input.name, description: input.description ?? null, dataFormat: input.dataFormat ?? 'Tabular', parentId, dataSource: 'upload', ontologyMode: input.ontologyMode ?? 'auto' });
    await this.repo.insert(row, workspaceId);
    return toSource(row);
  }

  async listForOrganisation(principal: Principal, query: OrgListQuery): Promise<Page<Source>> {
    const order: SourceOrder = { key: query.sortBy ?? 'createdAt', direction: query.sortDir ?? 'desc' };
    const filter: SourceFilter = {
      organisationId: principal.organisationId,
      visibleIn: await this.visibleWorkspaces(principal),
      ...(query.parentId !== undefined && { parentId: query.parentId }),
      ...(query.format !== undefined && { format: query.format }),
      ...(query.search !== undefined && { search: query.search }),
    };
    return this.page(filter, order, query, { list: 'sources', ...filter, visibleIn: null, order });
  }

  async listForWorkspace(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string; parentId?: string; format?: 'Tabular' | 'Folder' }): Promise<Page<Source>> {
    await this.access.require(principal, workspaceId, 'read');
    const filter: SourceFilter = {
      organisationId: principal.organisationId,
      visibleIn: [workspaceId],
      parentId: query.parentId ?? 'all',
      excludeVirtual: true,
      ...(query.format !== undefined && { format: query.format }),
    };
    const order: SourceOrder = { key: 'createdAt', direction: 'desc' };
    return this.page(filter, order, query, { list: 'workspace-sources', ...filter, order });
  }

  async get(principal: Principal, id: string): Promise<OrgSource> {
    const { row, linked } = await this.visibleSource(principal, id);
    return { ...toSource(row), linkedWorkspaceIds: linked };
  }

  /** Deleting a source removes it from every workspace, so it needs full permission on each one it is linked to. */
  async delete(principal: Principal, workspaceId: string, id: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    const row = await this.repo.find(principal.organisationId, id);
    const linked = row === undefined ? [] : await this.repo.linkedWorkspaceIds(id);
    if (row === undefined || !linked.includes(workspaceId)) throw notFound('Source', id);
    for (const other of linked) await this.access.require(principal, other, 'full');
    if (await this.repo.hasChildren(principal.organisationId, id)) {
      throw new AppError('conflict', `Source ${id} has derived sources; delete them first`);
    }
    await this.refuseIfUsed(id);
    await this.repo.delete(principal.organisationId, id);
    try {
      if (row.data_format === 'Folder') await this.folders.removeAll(principal.organisationId, id);
      else if (row.document_count > 0) await this.tables.drop({ organisationId: principal.organisationId, tableId: id });
    } finally {
      await this.removed(principal.organisationId, id, undefined);
    }
  }

  async link(principal: Principal, id: string, workspaceId: string): Promise<OrgSource> {
    await this.visibleSource(principal, id);
    await this.access.require(principal, workspaceId, 'write');
    await this.repo.link(id, workspaceId, nowIso());
    return this.get(principal, id);
  }

  async unlink(principal: Principal, id: string, workspaceId: string): Promise<void> {
    await this.visibleSource(principal, id);
    await this.access.require(principal, workspaceId, 'full');
    await this.refuseIfUsed(id, workspaceId);
    if (!(await this.repo.unlink(id, workspaceId))) throw notFound('Link to workspace', workspaceId);
    await this.removed(principal.organisationId, id, workspaceId);
  }

  private async refuseIfUsed(id: string, workspaceId?: string): Promise<void> {
    const datasets = await this.datasetsUsing(id, workspaceId);
    if (datasets.length > 0) throw new AppError('conflict', `Source ${id} is used by dataset${datasets.length === 1 ? '' : 's'} ${datasets.join(', ')}; change or delete ${datasets.length === 1 ? 'it' : 'them'} first`);
  }

  private async page(filter: SourceFilter, order: SourceOrder, query: { limit?: number; cursor?: string }, scopeOf: Record<string, unknown>): Promise<Page<Source>> {
    const scope = filterScope({ ...scopeOf, order: `${order.key}:${order.direction}` });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(filter, order, page);
    const column = SORT_COLUMNS[order.key];
    return toPage(this.cursors, rows, page, total, scope, (row) => [row[column], row.id], toSource);
  }

  /** Workspace ids whose sources the principal may see; null = all of the organisation. */
  private async visibleWorkspaces(principal: Principal): Promise<string[] | null> {
    if (principal.workspaceId !== null) {
      return (await this.access.levelOf(principal, principal.workspaceId)) === undefined ? [] : [principal.workspaceId];
    }
    if (principal.isOrgAdmin) return null;
    return (await this.workspaces.listVisible(principal.organisationId, principal.userId)).map((w) => w.id);
  }

  private async isVisible(principal: Principal, id: string): Promise<boolean> {
    return this.visibleSource(principal, id).then(
      () => true,
      (error: unknown) => {
        if (error instanceof AppError) return false;
        throw error;
      },
    );
  }

  /** 404 outside the organisation; 403 inside it when no workspace the caller can read links it. */
  private async visibleSource(principal: Principal, id: string): Promise<{ row: SourceRow; linked: string[] }> {
    const row = await this.repo.find(principal.organisationId, id);
    if (row === undefined) throw notFound('Source', id);
    const linked = await this.repo.linkedWorkspaceIds(id);
    const visible = await this.visibleWorkspaces(principal);
    if (visible !== null && !linked.some((w) => visible.includes(w))) {
      throw new AppError('forbidden', `No workspace you can read links source ${id}`);
    }
    return { row, linked };
  }
}

import type { CatalogView } from '../../schemas/catalog.js';
import type { Principal } from '../auth/principal.js';
import type { DatasetService } from '../datasets/service.js';
import type { CursorCodec } from '../lib/cursor.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { SourceRepo } from '../sources/repo.js';
import { toSource } from '../sources/service.js';
import type { WorkspaceAccess } from '../workspaces/access.js';

/** Read-only catalog views of a workspace: its tabular sources as tables, its datasets as views. */
export class CatalogService {
  constructor(
    private readonly sources: SourceRepo,
    private readonly datasets: DatasetService,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
  ) {}

  async tables(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }) {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list: 'catalog-tables', workspaceId });
    const page = pageRequest(this.cursors, query, scope);
    const filter = { organisationId: principal.organisationId, visibleIn: [workspaceId], parentId: 'all', format: 'Tabular' as const, excludeVirtual: true };
    const { rows, total } = await this.sources.list(filter, { key: 'createdAt', direction: 'desc' }, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], (row) => {
      const source = toSource(row);
      return {
        id: source.id,
        name: source.name,
        namespace: workspaceId,
        schema: source.schemaEntries.map((entry) => ({ field: entry.field, type: entry.type, subtype: entry.subtype, description: entry.description })),
        documentCount: source.documentCount,
        format: source.extension,
        createdAt: source.createdAt,
      };
    });
  }

  async views(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }): Promise<Page<CatalogView>> {
    const page = await this.datasets.list(principal, workspaceId, query, 'catalog-views');
    const items: CatalogView[] = [];
    for (const dataset of page.items) {
      items.push({
        id: dataset.id,
        name: dataset.name,
        description: dataset.description,
        namespace: workspaceId,
        sources: dataset.sources.map((s) => ({ id: s.id, name: s.name })),
        operationCount: dataset.operations.length,
        rowCount: await this.datasets.rowCount(principal, workspaceId, dataset.id),
        createdAt: dataset.createdAt,
        updatedAt: dataset.updatedAt,
      });
    }
    return { items, pagination: page.pagination };
  }
}

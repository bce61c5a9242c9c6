import type { Static } from 'typebox';
import type { CatalogView } from '../../schemas/catalog.js';
import type { CatalogConceptSchema, CatalogGraphSchema } from '../../schemas/ontology.js';

type CatalogConcept = Static<typeof CatalogConceptSchema>;
type CatalogGraph = Static<typeof CatalogGraphSchema>;
import type { Principal } from '../auth/principal.js';
import type { DatasetService } from '../datasets/service.js';
import type { CursorCodec } from '../lib/cursor.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { SourceRepo } from '../sources/repo.js';
import { toSource } from '../sources/records.js';
import type { OntologyService } from '../ontology/service.js';
import type { WorkspaceAccess } from '../workspaces/access.js';

/** Read-only catalog views of a workspace: its tabular sources as tables, its datasets as views. */
export class CatalogService {
  constructor(
    private readonly sources: SourceRepo,
    private readonly datasets: DatasetService,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly ontology: OntologyService,
  ) {}

  /** The workspace's concepts in catalog shape (their field mappings as catalog table and field). */
  async concepts(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string; sourceId?: string }): Promise<Page<CatalogConcept>> {
    const page = await this.ontology.list(principal, workspaceId, query, 'catalog-concepts');
    return {
      items: page.items.map((concept) => ({
        id: concept.id,
        name: concept.name,
        description: concept.description,
        schemaFieldName: concept.schemaFieldName,
        schemaType: concept.schemaType,
        classification: concept.conceptClassification,
        fieldMappings: concept.fieldMappings.map((mapping) => ({ tableId: mapping.sourceId, field: mapping.field })),
        metadata: concept.metadata,
      })),
      pagination: page.pagination,
    };
  }

  /** Concepts as nodes; anchor links and time order between them as edges (one edge per pair and type). */
  async graph(principal: Principal, workspaceId: string): Promise<CatalogGraph> {
    const concepts = await this.ontology.all(principal, workspaceId);
    const ids = new Set(concepts.map((concept) => concept.id));
    const edges = new Map<string, CatalogGraph['edges'][number]>();
    const add = (type: 'anchor' | 'temporal_prerequisite', source: string, target: string, via: { sourceId: string; field: string }) => {
      if (!ids.has(target) || source === target) return;
      const key = `${type} ${source} ${target}`;
      const edge = edges.get(key) ?? { type, source, target, via: [] };
      if (!edge.via.some((v) => v.sourceId === via.sourceId && v.field === via.field)) edge.via.push(via);
      edges.set(key, edge);
    };
    for (const concept of concepts) {
      for (const link of concept.anchorConceptLinks) add('anchor', concept.id, link.anchorConceptId, { sourceId: link.sourceId, field: link.viaField });
      for (const order of concept.temporalPrerequisites) {
        if (order.conceptId === null) continue;
        const [from, to] = order.relation === 'precedes' ? [concept.id, order.conceptId] : [order.conceptId, concept.id];
        add('temporal_prerequisite', from, to, { sourceId: order.sourceId, field: order.relation === 'precedes' ? order.field : order.otherField });
      }
    }
    return {
      nodes: concepts.map((concept) => ({ id: concept.id, name: concept.name, schemaType: concept.schemaType, classification: concept.conceptClassification, suggestedRole: concept.suggestedRole })),
      edges: [...edges.values()],
    };
  }

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

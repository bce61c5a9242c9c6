import type { Concept } from '../../schemas/ontology.js';
import type { Source } from '../../schemas/sources.js';

export interface RecommendedDataset {
  name: string;
  description: string;
  reason: string;
  sources: Array<{ id: string; type: 'source'; name: string; conceptIds: string[]; conceptVersions: Record<string, number>; version: { kind: 'latest' } }>;
  operations: Array<{ id: string; sourceId: string; config: { type: 'join'; rightSourceId: string; how: 'left'; on: Array<{ left: string; right: string }> } }>;
}

const MAX_RECOMMENDATIONS = 50;

/** A source entry naming the concepts that map its fields (not rejected mappings), at their current versions. */
function entryOf(source: Source, concepts: Concept[]): RecommendedDataset['sources'][number] {
  const mapped = concepts.filter((concept) => concept.fieldMappings.some((m) => m.sourceId === source.id && m.status !== 'rejected'));
  return { id: source.id, type: 'source', name: source.name, conceptIds: mapped.map((c) => c.id), conceptVersions: Object.fromEntries(mapped.map((c) => [c.id, c.editVersion])), version: { kind: 'latest' } };
}

/** A field of `source` mapped to `concept` (with the given key role, when asked). */
const fieldOf = (concept: Concept, source: Source, keyRole?: 'primary') =>
  concept.fieldMappings.find((m) => m.sourceId === source.id && m.status !== 'rejected' && (keyRole === undefined || m.keyRole === keyRole))?.field;

/**
 * Dataset definitions worth starting from: every tabular source with rows on its own, then pairs of sources joined
 * through a shared anchor concept (an identifier concept mapping a field of one source and the key of the other),
 * then pairs that share a column name which identifies rows of one of them (where the ontology links them not).
 */
export function recommendDatasets(sources: Source[], concepts: Concept[] = []): RecommendedDataset[] {
  const withRows = sources.filter((source) => source.dataFormat === 'Tabular' && source.documentCount > 0 && source.schemaEntries.length > 0);
  const recommendations: RecommendedDataset[] = withRows.map((source) => ({
    name: source.name,
    description: `All ${source.documentCount} rows of ${source.name}`,
    reason: 'A tabular source with data',
    sources: [entryOf(source, concepts)],
    operations: [],
  }));
  const anchors = concepts.filter((concept) => concept.conceptClassification === 'identifier');
  const linked = new Set<string>();
  for (const left of withRows) {
    for (const right of withRows) {
      if (left.id === right.id) continue;
      for (const anchor of anchors) {
        const from = fieldOf(anchor, left);
        const to = fieldOf(anchor, right, 'primary');
        if (from === undefined || to === undefined || linked.has(`${left.id} ${right.id}`)) continue;
        // A join compares values of one type: keys stored as text in one source and numbers in the other are left to the user.
        if (left.schemaEntries.find((e) => e.field === from)?.type !== right.schemaEntries.find((e) => e.field === to)?.type) continue;
        linked.add(`${left.id} ${right.id}`);
        recommendations.push({
          name: `${left.name} with ${right.name}`,
          description: `${left.name} joined with ${right.name} through ${anchor.name}`,
          reason: `Both hold the anchor concept "${anchor.name}": ${left.name}.${from} refers to it and ${right.name}.${to} identifies its rows`,
          sources: [entryOf(left, concepts), entryOf(right, concepts)],
          operations: [{ id: `op_join_${right.id}`, sourceId: left.id, config: { type: 'join', rightSourceId: right.id, how: 'left', on: [{ left: from, right: to }] } }],
        });
      }
    }
  }
  for (const left of withRows) {
    for (const right of withRows) {
      if (left.id === right.id || linked.has(`${left.id} ${right.id}`)) continue;
      const key = right.schemaEntries.find((entry) => entry.isIndex && left.schemaEntries.some((other) => other.field === entry.field));
      if (key === undefined) continue;
      recommendations.push({
        name: `${left.name} with ${right.name}`,
        description: `${left.name} joined with ${right.name} on ${key.field}`,
        reason: `"${key.field}" identifies rows of ${right.name} and appears in ${left.name}`,
        sources: [entryOf(left, concepts), entryOf(right, concepts)],
        operations: [{ id: `op_join_${right.id}`, sourceId: left.id, config: { type: 'join', rightSourceId: right.id, how: 'left', on: [{ left: key.field, right: key.field }] } }],
      });
    }
  }
  return recommendations.slice(0, MAX_RECOMMENDATIONS);
}

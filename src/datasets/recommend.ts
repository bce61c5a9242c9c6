import type { Source } from '../../schemas/sources.js';

export interface RecommendedDataset {
  name: string;
  description: string;
  reason: string;
  sources: Array<{ id: string; type: 'source'; name: string; conceptIds: string[]; conceptVersions: Record<string, number>; version: { kind: 'latest' } }>;
  operations: Array<{ id: string; sourceId: string; config: { type: 'join'; rightSourceId: string; how: 'left'; on: Array<{ left: string; right: string }> } }>;
}

const MAX_RECOMMENDATIONS = 50;

const entryOf = (source: Source): RecommendedDataset['sources'][number] => ({ id: source.id, type: 'source', name: source.name, conceptIds: [], conceptVersions: {}, version: { kind: 'latest' } });

/**
 * Dataset definitions worth starting from: every tabular source with rows on its own, then pairs of sources that
 * share a column which identifies rows in one of them (a likely key), joined on it.
 */
export function recommendDatasets(sources: Source[]): RecommendedDataset[] {
  const withRows = sources.filter((source) => source.dataFormat === 'Tabular' && source.documentCount > 0 && source.schemaEntries.length > 0);
  const recommendations: RecommendedDataset[] = withRows.map((source) => ({
    name: source.name,
    description: `All ${source.documentCount} rows of ${source.name}`,
    reason: 'A tabular source with data',
    sources: [entryOf(source)],
    operations: [],
  }));
  for (const left of withRows) {
    for (const right of withRows) {
      if (left.id === right.id) continue;
      const key = right.schemaEntries.find((entry) => entry.isIndex && left.schemaEntries.some((other) => other.field === entry.field));
      if (key === undefined) continue;
      recommendations.push({
        name: `${left.name} with ${right.name}`,
        description: `${left.name} joined with ${right.name} on ${key.field}`,
        reason: `"${key.field}" identifies rows of ${right.name} and appears in ${left.name}`,
        sources: [entryOf(left), entryOf(right)],
        operations: [{ id: `op_join_${right.id}`, sourceId: left.id, config: { type: 'join', rightSourceId: right.id, how: 'left', on: [{ left: key.field, right: key.field }] } }],
      });
    }
  }
  return recommendations.slice(0, MAX_RECOMMENDATIONS);
}

import type { Changelog, ChangelogDiff, FixedSubGraph, Node, TwinVersion } from '../../schemas/twins.js';

const edgeKey = (e: { source: string; target: string }) => `${e.source} -> ${e.target}`;

/**
 * What a trained version changed against the version it derives from (or against nothing, for a first version):
 * edges, fixed pins, nodes and evaluation metrics added, removed or changed.
 */
export function buildChangelog(base: TwinVersion | null, next: Pick<TwinVersion, 'fixedSubGraph' | 'causalGraph' | 'nodes' | 'evaluation'> & Partial<Pick<TwinVersion, 'temporalDependencies'>>): Changelog {
  return {
    temporalDependenciesDiffs: diffBy(linksOf(base?.temporalDependencies ?? null), linksOf(next.temporalDependencies ?? null), (l) => `${edgeKey(l)} lag ${l.lag}`, () => true),
    fixedSubGraphDiffs: fixedDiffs(base?.fixedSubGraph ?? { relationships: [], antiRelationships: [] }, next.fixedSubGraph),
    causalGraphDiffs: diffBy(base?.causalGraph ?? [], next.causalGraph, edgeKey, (a, b) => a.strength !== null && b.strength !== null && Math.abs(a.strength - b.strength) < 0.01),
    nodesDiffs: diffBy(base?.nodes ?? [], next.nodes, (n: Node) => n.name, (a, b) => a.symbolicEquation === b.symbolicEquation),
    evaluationDiffs: metricDiffs(base?.evaluation?.nodeMetrics ?? {}, next.evaluation?.nodeMetrics ?? {}),
  };
}

function diffBy<T>(before: T[], after: T[], key: (item: T) => string, same: (a: T, b: T) => boolean): ChangelogDiff[] {
  const old = new Map(before.map((item) => [key(item), item]));
  const now = new Map(after.map((item) => [key(item), item]));
  const diffs: ChangelogDiff[] = [];
  for (const [k, item] of now) {
    const previous = old.get(k);
    if (previous === undefined) diffs.push({ type: 'added', key: k, before: null, after: item });
    else if (!same(previous, item)) diffs.push({ type: 'changed', key: k, before: previous, after: item });
  }
  for (const [k, item] of old) if (!now.has(k)) diffs.push({ type: 'removed', key: k, before: item, after: null });
  return diffs;
}

function fixedDiffs(before: FixedSubGraph, after: FixedSubGraph): ChangelogDiff[] {
  const tagged = (graph: FixedSubGraph) => [
    ...graph.relationships.map((e) => ({ ...e, pin: 'required' })),
    ...graph.antiRelationships.map((e) => ({ ...e, pin: 'forbidden' })),
  ];
  return diffBy(tagged(before), tagged(after), (e) => `${edgeKey(e)} ${e.pin}`, () => true);
}

function metricDiffs(before: Record<string, Record<string, number>>, after: Record<string, Record<string, number>>): ChangelogDiff[] {
  const diffs: ChangelogDiff[] = [];
  for (const [node, metrics] of Object.entries(after)) {
    for (const [metric, value] of Object.entries(metrics)) {
      const previous = before[node]?.[metric];
      const k = `${node}.${metric}`;
      if (previous === undefined) diffs.push({ type: 'added', key: k, before: null, after: value });
      else if (Math.abs(previous - value) > 1e-9) diffs.push({ type: 'changed', key: k, before: previous, after: value });
    }
  }
  for (const [node, metrics] of Object.entries(before)) {
    for (const [metric, value] of Object.entries(metrics)) if (after[node]?.[metric] === undefined) diffs.push({ type: 'removed', key: `${node}.${metric}`, before: value, after: null });
  }
  return diffs;
}


/** A temporal version's lagged and same-step links (temporalDependencies.links), for the changelog. */
function linksOf(dependencies: Record<string, unknown> | null): Array<{ source: string; target: string; lag: number }> {
  const links = dependencies?.links;
  return Array.isArray(links) ? (links as Array<{ source: string; target: string; lag: number }>).map(({ source, target, lag }) => ({ source, target, lag })) : [];
}

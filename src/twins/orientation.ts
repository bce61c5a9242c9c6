/** How each edge of a learned graph got its direction (schemas/twins.ts `orientation`), against the fixed graph it honoured. */
import type { FixedSubGraph, Relationship, TwinVersion } from '../../schemas/twins.js';
import { edgeOrientations } from '../engine/identification/class.js';

export function withOrientations<E extends Omit<Relationship, 'orientation'>>(graph: readonly E[], fixed: FixedSubGraph): (E & Pick<Relationship, 'orientation'>)[] {
  const names = [...new Set(graph.flatMap((e) => [e.source, e.target]))];
  const orientations = edgeOrientations(names, graph, { required: fixed.relationships, forbidden: fixed.antiRelationships });
  return graph.map((edge, i) => ({ ...edge, orientation: orientations[i]! }));
}

export const reversibleEdgeCount = (graph: readonly Relationship[]) => graph.filter((e) => e.orientation === 'reversible').length;

/** A version learned before edges carried their orientation gets it derived from its graph as stored. */
export function withIdentification(version: TwinVersion): TwinVersion {
  if (version.causalGraph.every((e) => e.orientation !== undefined) && version.reversibleEdgeCount !== undefined) return version;
  const causalGraph = withOrientations(version.causalGraph, version.fixedSubGraph);
  return { ...version, causalGraph, reversibleEdgeCount: reversibleEdgeCount(causalGraph) };
}

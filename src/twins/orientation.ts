/** How each edge of a learned graph got its direction (schemas/twins.ts `orientation`), against the fixed graph it honoured. */
import type { DiscoverySummary, FixedSubGraph, Relationship, TwinVersion } from '../../schemas/twins.js';
import { edgeOrientations } from '../engine/identification/class.js';

type Assumed = Required<Pick<Relationship, 'source' | 'target' | 'assumption'>>;
type Copies = NonNullable<DiscoverySummary['copies']>;

export interface OrientationInputs {
  /** The edges an assumption oriented (a discovery's answer); by default the graph's own edges labelled `assumed` (a graph learned before, trained again). */
  assumed?: readonly Assumed[];
  /** Columns that repeat another exactly (the discovery's `copies`): the edge joining the two is `reversible` unless pinned. */
  copies?: Copies;
}

export function withOrientations<E extends Omit<Relationship, 'orientation'>>(graph: readonly E[], fixed: FixedSubGraph, inputs: OrientationInputs = {}): (E & Pick<Relationship, 'orientation'>)[] {
  const { assumed = assumedIn(graph), copies = [] } = inputs;
  const names = [...new Set(graph.flatMap((e) => [e.source, e.target]))];
  const orientations = edgeOrientations(names, graph, { required: fixed.relationships, forbidden: fixed.antiRelationships }, assumed);
  const assumption = new Map(assumed.map((e) => [`${e.source}\u0000${e.target}`, e.assumption]));
  const copyPairs = new Set(copies.flatMap((c) => [`${c.column}\u0000${c.copyOf}`, `${c.copyOf}\u0000${c.column}`]));
  const first = assumed[0]?.assumption;
  return graph.map((edge, i) => {
    const { assumption: _old, ...rest } = edge as E & { assumption?: unknown };
    const derived = orientations[i]!;
    // Meek's rules may compel the edge into a copy, but only because the search put the other edges on the original.
    const orientation = derived !== 'fixed' && copyPairs.has(`${edge.source}\u0000${edge.target}`) ? 'reversible' : derived;
    // An edge Meek's rules derived from assumed ones rests on the same assumption (there is one kind so far).
    const named = orientation === 'assumed' ? assumption.get(`${edge.source}\u0000${edge.target}`) ?? first : undefined;
    return { ...(rest as E), orientation, ...(named === undefined ? {} : { assumption: named }) };
  });
}

function assumedIn(graph: readonly Omit<Relationship, 'orientation'>[]): Assumed[] {
  return graph.flatMap((e) => ((e as Partial<Relationship>).orientation === 'assumed' && e.assumption !== undefined ? [{ source: e.source, target: e.target, assumption: e.assumption }] : []));
}

/** The version's copies whose roles the data leave open: those without a pinned edge between the two (which names the one that acts). */
export function undecidedCopies(version: Pick<TwinVersion, 'discovery' | 'fixedSubGraph'>): Copies {
  const pinned = new Set(version.fixedSubGraph.relationships.flatMap((e) => [`${e.source}\u0000${e.target}`, `${e.target}\u0000${e.source}`]));
  return (version.discovery?.copies ?? []).filter((c) => !pinned.has(`${c.column}\u0000${c.copyOf}`));
}

export const reversibleEdgeCount = (graph: readonly Relationship[]) => graph.filter((e) => e.orientation === 'reversible').length;

/** A version learned before edges carried their orientation gets it derived from its graph as stored. */
export function withIdentification(version: TwinVersion): TwinVersion {
  if (version.causalGraph.every((e) => e.orientation !== undefined) && version.reversibleEdgeCount !== undefined) return version;
  const causalGraph = withOrientations(version.causalGraph, version.fixedSubGraph, { copies: version.discovery?.copies });
  return { ...version, causalGraph, reversibleEdgeCount: reversibleEdgeCount(causalGraph) };
}

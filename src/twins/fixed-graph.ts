import type { FixedSubGraph, PatchFixedGraph } from '../../schemas/twins.js';
import { AppError, type FieldError } from '../errors.js';

type Edge = { source: string; target: string; lag?: number };
const key = (edge: Edge) => `${edge.source}\u0000${edge.target}\u0000${edge.lag ?? ''}`;
const copy = (edge: Edge): Edge => ({ source: edge.source, target: edge.target, ...(edge.lag === undefined ? {} : { lag: edge.lag }) });

/**
 * Applies a PATCH of the fixed graph: `clearEdges` drops pins and forbids first, then `addEdges` pins edges
 * present and `removeEdges` forbids them. The result must be consistent: no edge both pinned and forbidden, no
 * self-loop, no cycle among pinned edges, and (when the variables are known) only variables of the twin.
 * Anything else answers 422 naming each offending edge; nothing is stored then.
 */
export function applyFixedGraphPatch(current: FixedSubGraph, patch: PatchFixedGraph, variables: string[] | null, temporal = false): FixedSubGraph {
  const cleared = new Set((patch.clearEdges ?? []).map(key));
  const pinned = new Map(current.relationships.filter((e) => !cleared.has(key(e))).map((e) => [key(e), e]));
  const forbidden = new Map(current.antiRelationships.filter((e) => !cleared.has(key(e))).map((e) => [key(e), e]));
  for (const edge of patch.addEdges ?? []) pinned.set(key(edge), copy(edge));
  for (const edge of patch.removeEdges ?? []) forbidden.set(key(edge), copy(edge));

  const errors: FieldError[] = [];
  const known = variables === null ? null : new Set(variables);
  (['addEdges', 'removeEdges', 'clearEdges'] as const).forEach((member) =>
    (patch[member] ?? []).forEach((edge, i) => {
      if (edge.lag !== undefined && !temporal) errors.push({ location: `body/${member}/${i}/lag`, message: 'a lag applies to temporal twins; this twin is static' });
      // Only a lagged link may join a variable to itself (its own past).
      if (edge.source === edge.target && !(temporal && (edge.lag ?? 0) > 0)) errors.push({ location: `body/${member}/${i}`, message: `an edge from ${edge.source} to itself${temporal ? ' needs a lag of at least 1' : ''}` });
      for (const end of [edge.source, edge.target]) {
        if (known !== null && !known.has(end)) errors.push({ location: `body/${member}/${i}`, message: `${end} is not a variable of this twin` });
      }
    }),
  );
  for (const [k, edge] of pinned) {
    if (forbidden.has(k)) errors.push({ location: 'body', message: `${edge.source} -> ${edge.target} would be both pinned present and forbidden` });
  }
  // Lagged links point from the past: only same-step pins can form a cycle.
  const cycle = findCycle([...pinned.values()].filter((edge) => (edge.lag ?? 0) === 0 && edge.source !== edge.target));
  if (cycle !== null) errors.push({ location: 'body/addEdges', message: `the pinned edges form a cycle: ${cycle.join(' -> ')}` });
  if (errors.length > 0) throw new AppError('validation_failed', `The fixed graph is inconsistent: ${errors.map((e) => e.message).join('; ')}`, { errors });
  return { relationships: [...pinned.values()], antiRelationships: [...forbidden.values()] };
}

/** A directed cycle among the edges (as the list of its nodes, first repeated last), or null. */
export function findCycle(edges: Edge[]): string[] | null {
  const children = new Map<string, string[]>();
  for (const { source, target } of edges) children.set(source, [...(children.get(source) ?? []), target]);
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | null => {
    state.set(node, 'open');
    path.push(node);
    for (const child of children.get(node) ?? []) {
      if (state.get(child) === 'open') return [...path.slice(path.indexOf(child)), child];
      if (state.get(child) === undefined) {
        const found = visit(child);
        if (found !== null) return found;
      }
    }
    path.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of children.keys()) {
    if (state.get(node) === undefined) {
      const found = visit(node);
      if (found !== null) return found;
    }
  }
  return null;
}

/**
 * The graph training fits: the discovered edges, minus forbidden ones, plus every pinned one; a discovered edge
 * that would close a cycle with the pins is dropped, weakest first.
 */
export function edgesForTraining(discovered: Array<Edge & { strength: number | null }>, fixed: FixedSubGraph): Edge[] {
  const forbidden = new Set(fixed.antiRelationships.map(key));
  const pinnedKeys = new Set(fixed.relationships.map(key));
  const chosen: Edge[] = fixed.relationships.map((e) => ({ source: e.source, target: e.target }));
  const candidates = discovered
    .filter((e) => !forbidden.has(key(e)) && !pinnedKeys.has(key(e)) && !pinnedKeys.has(key({ source: e.target, target: e.source })))
    .sort((a, b) => Math.abs(b.strength ?? 0) - Math.abs(a.strength ?? 0));
  for (const edge of candidates) {
    const next = [...chosen, { source: edge.source, target: edge.target }];
    if (findCycle(next) === null) chosen.push({ source: edge.source, target: edge.target });
  }
  return chosen;
}

/**
 * Mechanisms that change across environments in slope or noise scale only, found after the static search
 * (discover.ts). The search scores the indicator's edges by levels (a categorical parent of a continuous node enters
 * its regression as intercept shifts), so a variable whose slope on a parent differs across environments, at the same
 * level, does not get an edge from the indicator there. Here each continuous variable the indicator does not reach is
 * tested against it given every subset (up to two) of its neighbours, PC-style, with the context tests that see
 * slopes and spreads (discovery/context-tests.ts); an indicator it stays dependent on is joined to it. Each new
 * indicator edge orients the variable's reversible edges as CD-NOD's indicator does: indicator -> Y - X with the
 * indicator independent of X makes Y a collider (X -> Y), and Meek's rules carry it on; the DAG becomes the
 * consistent extension of that narrower class, so it stays in the class the search found among the variables.
 */
import type { Kernels } from '../../compute/kernels.js';
import { ciTesterFor, type CiTest } from '../discovery/ci-tests.js';
import { withContextTests } from '../discovery/context-tests.js';
import { prepareForDiscovery } from '../discovery/prepare.js';
import { consistentExtension } from '../graph/dag.js';
import { applyMeekRules } from '../graph/meek.js';
import { isDirected, isUndirected, setDirected } from '../graph/pdag.js';
import { type BackgroundKnowledge, restrictedClass } from '../identification/class.js';
import type { DiscoveredEdge, EdgeRef, Frame } from '../types.js';

/** Conditioning sets of the neighbours up to this size. */
const MAX_CONDITIONS = 2;

/**
 * `frame`: the variables and, last, the (coarsened) indicator named `indicator`; `edges` the DAG over the variables,
 * `changing` the variables the indicator already reaches. Answers the DAG re-oriented by the new indicator edges and
 * the variables they reach (both unchanged when there are none, or when their orientations conflict).
 */
export function slopeAndSpreadChanges(frame: Frame, indicator: string, edges: readonly DiscoveredEdge[], changing: readonly string[], options: { alpha: number; background: BackgroundKnowledge }, kernels: Kernels): { edges: DiscoveredEdge[]; changing: string[] } {
  const names = frame.columns.map((c) => c.name);
  const at = new Map(names.map((n, i) => [n, i]));
  const context = at.get(indicator)!;
  const neighbours = new Map(names.map((n) => [n, new Set<string>()]));
  for (const e of edges) {
    neighbours.get(e.source)!.add(e.target);
    neighbours.get(e.target)!.add(e.source);
  }
  const reached = new Set(changing);
  const candidates = frame.columns.filter((c) => c.kind === 'continuous' && !reached.has(c.name)).map((c) => c.name);
  if (candidates.length === 0) return { edges: [...edges], changing: [] };
  const tester = withContextTests(ciTesterFor(prepareForDiscovery(frame, kernels), kernels), frame, [context]);
  const tests: CiTest[] = [];
  const owners: string[] = [];
  for (const y of candidates) {
    for (const s of subsetsUpTo([...neighbours.get(y)!].map((n) => at.get(n)!), MAX_CONDITIONS)) {
      tests.push({ x: context, y: at.get(y)!, s });
      owners.push(y);
    }
  }
  const result = tester.run(tests);
  const independent = new Set(owners.filter((_, k) => result.pValue[k]! > options.alpha));
  const added = candidates.filter((y) => !independent.has(y));
  if (added.length === 0) return { edges: [...edges], changing: [] };

  // The class of the search's DAG with the indicator's edges, narrowed by the fixed graph's pins and forbidden edges
  // (they keep their direction), then the new colliders at the indicator's new children.
  const indicatorEdges: EdgeRef[] = [...reached].map((target) => ({ source: indicator, target }));
  const pdag = restrictedClass(names, [...edges, ...indicatorEdges], options.background, [indicator]).restricted;
  for (const y of added) setDirected(pdag, context, at.get(y)!);
  const reachedNow = new Set([...reached, ...added]);
  const others = [...new Set(added.flatMap((y) => [...neighbours.get(y)!].filter((x) => !reachedNow.has(x))))];
  const marginal = tester.run(others.map((x) => ({ x: context, y: at.get(x)!, s: [] })));
  const apart = new Set(others.filter((_, k) => marginal.pValue[k]! > options.alpha));
  for (const y of added) {
    const j = at.get(y)!;
    for (const x of neighbours.get(y)!) {
      const i = at.get(x)!;
      if (apart.has(x) && isUndirected(pdag, i, j)) setDirected(pdag, i, j);
    }
  }
  applyMeekRules(pdag, true);
  const dag = consistentExtension(pdag);
  if (dag === null) return { edges: [...edges], changing: [] };
  const reoriented = edges.map((e) => {
    const [i, j] = [at.get(e.source)!, at.get(e.target)!];
    return isDirected(dag, i, j) ? e : { ...e, source: e.target, target: e.source };
  });
  return { edges: reoriented, changing: added };
}

/** Every subset of `items` with at most `size` members, the empty set first. */
function subsetsUpTo(unsorted: readonly number[], size: number): number[][] {
  const items = [...unsorted].sort((a, b) => a - b);
  let level: number[][] = [[]];
  const out: number[][] = [[]];
  for (let k = 1; k <= Math.min(size, items.length); k++) {
    level = level.flatMap((s) => items.filter((v) => s.length === 0 || v > s[s.length - 1]!).map((v) => [...s, v]));
    out.push(...level);
  }
  return out;
}

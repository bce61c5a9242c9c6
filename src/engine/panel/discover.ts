/**
 * The pooled graph of a panel by CD-NOD (Huang, Zhang, Zhang, Ramsey, Sanchez-Romero, Glymour & Schoelkopf 2020,
 * "Causal discovery from heterogeneous/nonstationary data"): the environment enters the search as one more
 * (categorical) variable that nothing causes. A variable whose distribution changes across environments given its
 * causes is adjacent to it; those changes orient edges (environment -> X <- Y is a v-structure, and Meek's rules
 * carry it on), so a panel orients edges one environment's data leave open. The static search runs unchanged
 * (discover-static.ts: with the indicator the data are mixed and the degenerate-Gaussian test applies, i.e. tests
 * within environments); the indicator's edges are then reported as the variables whose mechanisms change.
 */
import type { Kernels } from '../../compute/kernels.js';
import { termsFor } from '../cbn/design.js';
import { DEFAULT_ALPHA, discoverStatic } from '../discovery/discover-static.js';
import { edgeOrientations, type Orientation } from '../identification/class.js';
import type { CategoricalColumn, DiscoveredEdge, DiscoveryOptions, DiscoveryResult, EdgeRef, Frame, WorkHooks } from '../types.js';
import { slopeAndSpreadChanges } from './context-edges.js';
import { judgeEdges } from './evidence.js';
import { familyMoments } from './moments.js';
import { separatedWithinEnvironments } from './separate.js';

/** The environment indicator's levels in the search at most (more environments are grouped). */
const MAX_INDICATOR_LEVELS = 24;

export interface PanelDiscovery {
  /** The pooled DAG over the variables (the indicator's edges left out). */
  edges: DiscoveredEdge[];
  /** Aligned with `edges`: how each direction was decided, the indicator counting as data. */
  orientations: Orientation[];
  /** Variables the indicator points to: their mechanisms differ across environments. */
  changing: string[];
  stats: DiscoveryResult['stats'];
}

/** The class a panel discovery found: an edge is directed unless its orientation is reversible (bootstrap confidence reads it). */
export function cpdagOf(found: PanelDiscovery): { cpdag: DiscoveryResult['cpdag'] } {
  return { cpdag: found.edges.map((e, i) => ({ source: e.source, target: e.target, directed: found.orientations[i] !== 'reversible' })) };
}

/** `frame`'s last column is the environment indicator (named `indicator`). */
export function discoverPanel(frame: Frame, indicator: string, options: DiscoveryOptions, kernels: Kernels, hooks: WorkHooks = {}): PanelDiscovery {
  const names = frame.columns.map((c) => c.name);
  const intoIndicator = names.filter((n) => n !== indicator).map((source) => ({ source, target: indicator }));
  const grouped = coarsened(frame, indicator);
  const result = discoverStatic(grouped, { ...options, forbidden: [...(options.forbidden ?? []), ...intoIndicator] }, kernels, hooks);
  const levels = result.edges.filter((e) => e.source === indicator).map((e) => e.target);
  const within = withinEnvironments(frame, indicator, options);
  const held = within.held(result.edges.filter((e) => e.source !== indicator));
  // Slopes and spreads re-orient only what the search and the fixed graph left reversible.
  const background = { required: options.required ?? [], forbidden: options.forbidden ?? [] };
  const found = slopeAndSpreadChanges(grouped, indicator, held, levels, { alpha: options.alpha ?? DEFAULT_ALPHA, background }, kernels);
  const changing = [...levels, ...found.changing];
  const edges = within.separated(found.edges, changing, found.changing);
  const all = [...edges, ...changing.map((target) => ({ source: indicator, target }))];
  const orientations = edgeOrientations(names, all, background, [], [indicator]);
  return { edges, orientations: orientations.slice(0, edges.length), changing, stats: result.stats };
}

/**
 * The indicator with at most MAX_INDICATOR_LEVELS levels: environments grouped by k-means on their standardised
 * variable means (farthest-point start, so it is deterministic). A function of the environment is as exogenous as
 * the environment itself, so CD-NOD stays valid; the degenerate-Gaussian tests cost grows with the cube of the
 * indicator's levels, and the per-environment judgement after (withinEnvironments, evidence.ts) uses every
 * environment.
 */
export function coarsened(frame: Frame, indicator: string): Frame {
  const column = frame.columns.find((c) => c.name === indicator) as CategoricalColumn;
  const levels = column.categories.length;
  if (levels <= MAX_INDICATOR_LEVELS) return frame;
  const numeric = frame.columns.filter((c) => c.kind === 'continuous');
  const points = Array.from({ length: levels }, () => numeric.map(() => ({ sum: 0, n: 0 })));
  numeric.forEach((c, j) => {
    for (let r = 0; r < frame.nRows; r++) {
      const e = column.codes[r]!;
      if (e < 0 || Number.isNaN(c.values[r]!)) continue;
      points[e]![j]!.sum += c.values[r]!;
      points[e]![j]!.n++;
    }
  });
  const means = points.map((p) => p.map((x) => (x.n > 0 ? x.sum / x.n : 0)));
  const scale = numeric.map((_, j) => {
    const values = means.map((m) => m[j]!);
    const mean = values.reduce((a, b) => a + b, 0) / levels;
    return Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / levels) || 1;
  });
  const standardised = means.map((m) => m.map((v, j) => v / scale[j]!));
  const assigned = kMeans(standardised, MAX_INDICATOR_LEVELS);
  // Groups numbered in order of first use, so none is empty.
  const used = [...new Set(assigned)];
  const group = assigned.map((g) => used.indexOf(g));
  const codes = Int32Array.from(column.codes, (e) => (e < 0 ? -1 : group[e]!));
  const categories = used.map((_, g) => `group ${g + 1}`);
  return { nRows: frame.nRows, columns: frame.columns.map((c) => (c.name === indicator ? { name: indicator, kind: 'categorical', codes, categories } : c)) };
}

function kMeans(points: number[][], k: number): number[] {
  const distance = (a: number[], b: number[]) => a.reduce((s, v, j) => s + (v - b[j]!) ** 2, 0);
  const centres = [points[0]!];
  while (centres.length < k) {
    let far = 0;
    let best = -1;
    points.forEach((p, i) => {
      const d = Math.min(...centres.map((c) => distance(p, c)));
      if (d > best) {
        best = d;
        far = i;
      }
    });
    centres.push(points[far]!);
  }
  let assignment = points.map(() => 0);
  for (let iteration = 0; iteration < 25; iteration++) {
    const next = points.map((p) => centres.reduce((bestAt, c, g) => (distance(p, c) < distance(p, centres[bestAt]!) ? g : bestAt), 0));
    for (let g = 0; g < k; g++) {
      const members = points.filter((_, i) => next[i] === g);
      if (members.length > 0) centres[g] = members[0]!.map((_, j) => members.reduce((s, m) => s + m[j]!, 0) / members.length);
    }
    if (next.every((g, i) => g === assignment[i])) break;
    assignment = next;
  }
  return assignment;
}

/**
 * The pooled search's edges judged within environments (pinned edges stay). `held`: the edges into continuous
 * variables that hold in no environment go (evidence.ts `absenceP` above alpha, twice at most: a drop changes other
 * families' conditioning): the pooled tests condition linearly with one slope for all environments, and where slopes
 * differ across environments a variable's other children look dependent on it (pooled residuals keep each
 * environment's slope difference). `separated`: adjacencies a stratified test separates given some of their
 * neighbours go too, and the graph is re-oriented around them (separate.ts), once every changing variable is known.
 */
function withinEnvironments(frame: Frame, indicator: string, options: DiscoveryOptions) {
  const column = frame.columns.find((c) => c.name === indicator) as CategoricalColumn;
  const variables: Frame = { nRows: frame.nRows, columns: frame.columns.filter((c) => c.name !== indicator) };
  const pinned = new Set((options.required ?? []).map((e) => `${e.source}\u0000${e.target}`));
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const count = column.categories.length;
  return {
    held: (edges: DiscoveredEdge[]) => heldSomewhere(variables, column.codes, count, edges, pinned, alpha),
    separated: (edges: DiscoveredEdge[], changing: readonly string[], slopes: readonly string[]) =>
      separatedWithinEnvironments(variables, column.codes, count, edges, changing, { required: options.required ?? [], forbidden: options.forbidden ?? [] }, alpha, slopes),
  };
}

/**
 * `edges` (into `frame`'s continuous columns, or into `targets` of them) less those the stratified test finds in no
 * environment; `pinned` (`source\0target`) always stay.
 */
export function heldSomewhere<E extends EdgeRef>(frame: Frame, environment: Int32Array, count: number, edges: readonly E[], pinned: ReadonlySet<string>, alpha: number, targets?: ReadonlySet<string>): E[] {
  const environments = Array.from({ length: count }, (_, e) => e);
  let kept = [...edges];
  for (let pass = 0; pass < 2; pass++) {
    const families = frame.columns.flatMap((c) => (c.kind === 'continuous' && (targets === undefined || targets.has(c.name)) ? [{ node: c.name, terms: termsFor(frame, kept.filter((e) => e.target === c.name).map((e) => e.source), false) }] : []));
    const judged = judgeEdges(kept, families, familyMoments(frame, environment, environments, families), alpha);
    const absent = new Set(judged.filter((j) => j.absenceP !== null && j.absenceP > alpha && !pinned.has(`${j.source}\u0000${j.target}`)).map((j) => `${j.source}\u0000${j.target}`));
    if (absent.size === 0) break;
    kept = kept.filter((e) => !absent.has(`${e.source}\u0000${e.target}`));
  }
  return kept;
}

/**
 * A temporal version's links as learning records them (`temporalDependencies`), the structure a model is fitted
 * on, and the causalGraph read from them; shared by temporal twins and temporal panels.
 */
import type { Relationship, TwinVersion } from '../../../../schemas/twins.js';
import type { TemporalDiscoveryResult, TemporalLink } from '../../../engine/temporal/discover.js';
import { linkKey } from '../../../engine/temporal/effects.js';
import type { TemporalStructure } from '../../../engine/temporal/model.js';
import type { SeasonalFinding } from '../../../engine/temporal/seasonality.js';

/** What a temporal version keeps in `temporalDependencies`. */
export interface Dependencies {
  maxLag: number;
  links: TemporalLink[];
  seasonal: Array<{ variable: string; period: number; strength: number }>;
}

/** Time column types a temporal twin reads: dates and datetimes on a time axis, integers on an index. */
export const TIME_TYPES: Record<string, 'time' | 'index'> = { date: 'time', datetime: 'time', integer: 'index' };

/** The default largest lag: from the series length, raised to a short seasonal period. */
export function defaultMaxLag(steps: number, seasonality: readonly SeasonalFinding[]): number {
  const byLength = steps < 500 ? 1 : steps < 5000 ? 2 : 3;
  const shortSeason = Math.max(0, ...seasonality.map((s) => s.period).filter((p) => p <= 7).map(Math.round));
  return Math.max(byLength, shortSeason);
}

/** What a temporal discovery records on the version (`discovery`): its settings and what the search did. */
export function discoverySummary(
  run: { alpha: number; maxLag: number; timeBudgetSeconds: number; windows: number; started: number },
  stats: TemporalDiscoveryResult['stats'],
): NonNullable<TwinVersion['discovery']> {
  return {
    alpha: run.alpha,
    maxDepth: null,
    maxLag: run.maxLag,
    timeBudgetSeconds: run.timeBudgetSeconds,
    bootstrapSamples: run.windows,
    orientationAssumptions: [],
    testsRun: stats.tests,
    depthReached: run.maxLag,
    timedOut: stats.timedOut,
    seconds: (Date.now() - run.started) / 1000,
    nRows: stats.rows,
  };
}

/** The version's discovered links, or (trained without a discovery) none beyond each variable's own past. */
export function dependenciesOf(version: TwinVersion, variables: readonly string[], seasonality: readonly SeasonalFinding[]): Dependencies {
  const stored = version.temporalDependencies as unknown as Dependencies | null;
  if (stored !== null && Array.isArray(stored.links)) return stored;
  const links = variables.map((name): TemporalLink => ({ source: name, target: name, lag: 1, pValue: 0, dependence: 0, orientation: 'time' }));
  return { maxLag: 1, links, seasonal: seasonality.map((s) => ({ ...s })) };
}

/**
 * The links the model is fitted on: the discovered ones minus forbidden ones, plus pins (a pin without a lag is
 * fitted at lag 1 unless a discovered link already joins the pair); same-step links that would close a cycle are
 * dropped, weakest first.
 */
export function structureFor(dependencies: Dependencies, version: TwinVersion): TemporalStructure {
  const forbidden = (l: { source: string; target: string; lag: number }) =>
    version.fixedSubGraph.antiRelationships.some((e) => e.source === l.source && e.target === l.target && (e.lag === undefined || e.lag === l.lag));
  const edges = dependencies.links.filter((l) => !forbidden(l)).map(({ source, target, lag }) => ({ source, target, lag }));
  for (const pin of version.fixedSubGraph.relationships) {
    const lag = pin.lag ?? (edges.some((e) => e.source === pin.source && e.target === pin.target) ? null : 1);
    if (lag !== null && !edges.some((e) => e.source === pin.source && e.target === pin.target && e.lag === lag)) edges.push({ source: pin.source, target: pin.target, lag });
  }
  const strength = (e: { source: string; target: string; lag: number }) => dependencies.links.find((l) => linkKey(l) === linkKey(e))?.dependence ?? Infinity;
  const same = edges.filter((e) => e.lag === 0).sort((a, b) => strength(b) - strength(a));
  const kept: typeof same = [];
  for (const edge of same) if (!reaches(kept, edge.target, edge.source)) kept.push(edge);
  return { edges: [...edges.filter((e) => e.lag > 0), ...kept], seasonal: dependencies.seasonal.map(({ variable, period }) => ({ variable, period })) };
}

function reaches(edges: ReadonlyArray<{ source: string; target: string }>, from: string, to: string): boolean {
  const seen = new Set([from]);
  const stack = [from];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node === to) return true;
    for (const e of edges) if (e.source === node && !seen.has(e.target)) (seen.add(e.target), stack.push(e.target));
  }
  return false;
}

/**
 * The version's causalGraph: one edge per (source, target) pair of distinct variables, with its lags in
 * `timeLagEffects`; a lagged link is compelled by time, a same-step one as discovery oriented it. A variable's own
 * past (autoregression) and its seasonal terms stay in temporalDependencies; `cyclicalEffects` on an edge carry the
 * seasonality of its target's mechanism.
 */
export function graphOf(dependencies: Dependencies, granularity: string, fitted: Map<string, number | null> | null): Relationship[] {
  const pairs = new Map<string, TemporalLink[]>();
  for (const link of dependencies.links) {
    if (link.source === link.target) continue;
    const key = `${link.source}\u0000${link.target}`;
    pairs.set(key, [...(pairs.get(key) ?? []), link]);
  }
  return [...pairs.values()].map((links) => {
    const strengthOf = (l: TemporalLink) => fitted?.get(linkKey(l)) ?? Number(l.dependence.toFixed(6));
    const strongest = links.reduce((a, b) => (Math.abs(strengthOf(b)) > Math.abs(strengthOf(a)) ? b : a));
    const sameStep = links.find((l) => l.lag === 0);
    const orientation: Relationship['orientation'] = links.some((l) => l.orientation === 'fixed') ? 'fixed' : sameStep === undefined || sameStep.orientation === 'compelled' || links.some((l) => l.lag > 0) ? 'compelled' : 'reversible';
    return {
      source: strongest.source,
      target: strongest.target,
      strength: strengthOf(strongest),
      strengthStatus: 'measured',
      timeLagEffects: links.sort((a, b) => a.lag - b.lag).map((l) => ({ lag: l.lag, strength: strengthOf(l), granularity })),
      cyclicalEffects: dependencies.seasonal.filter((s) => s.variable === strongest.target).map((s) => ({ frequency: Number((1 / s.period).toFixed(6)), strength: s.strength })),
      confidence: null,
      agreementRate: null,
      isEnvironmentGated: false,
      orientation,
    };
  });
}

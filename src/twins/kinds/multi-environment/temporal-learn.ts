/**
 * How a temporal panel (`multi-environment-temporal`) learns. Reading: rows labelled with their environment
 * (shared.ts), each environment's rows ordered by the time column and placed on its own grid (temporal/series.ts),
 * seasonal periods kept where they are found in at least half of the environments. Discovery: J-PCMCI+ on the pool
 * (engine/panel/temporal.ts: PCMCI+ over every environment's lagged design, the environment as a context that
 * orients same-step links), confidence from half-length windows of every series, then each link judged per
 * environment (agreement and gating, engine/panel/evidence.ts) from per-environment statistics gathered in
 * `shardCount` shards. Training: the pooled lagged mechanisms, each environment's partially pooled, the links
 * judged again, each environment's recent history kept, and the evaluation on each environment's time-ordered tail.
 */
import { createHash } from 'node:crypto';
import type { Relationship, TwinVersion } from '../../../../schemas/twins.js';
import { kindEngineRef } from '../../../compute/kind-engine.js';
import { type EdgeJudgement, judgeEdges } from '../../../engine/panel/evidence.js';
import { type ShardStatistics, statisticsPlan } from '../../../engine/panel/fit.js';
import { type TemporalPanelModel, assembleTemporalPanel, seasonalPhases } from '../../../engine/panel/temporal.js';
import { linkConfidence } from '../../../engine/temporal/confidence.js';
import type { LaggedEdgeRef } from '../../../engine/temporal/discover.js';
import { linkStrengths } from '../../../engine/temporal/effects.js';
import { laggedDesign, lagName } from '../../../engine/temporal/lagged.js';
import { type TemporalStructure, designEdges } from '../../../engine/temporal/model.js';
import { findSeasonality, type SeasonalFinding } from '../../../engine/temporal/seasonality.js';
import { type StepCombine, type TemporalSeries, buildSeries, formatTime } from '../../../engine/temporal/series.js';
import { type Timeline, calendarPeriods, stepLength } from '../../../engine/temporal/timeline.js';
import type { Frame } from '../../../engine/types.js';
import { selectRows } from '../../../engine/frame.js';
import { JobError } from '../../../jobs/runner.js';
import { nowIso } from '../../../lib/ids.js';
import { buildChangelog } from '../../changelog.js';
import type { EnvironmentProfile } from '../../environments/profile.js';
import { buildFrame, modelledColumns } from '../../frame.js';
import { describeNodes, variableRoles } from '../../model-summary.js';
import { reversibleEdgeCount } from '../../orientation.js';
import type { KindLearner, LearnIo, Learned } from '../kind.js';
import { LEARN_DEFAULTS, nodeRecords, rowBudget, withResamples } from '../shared.js';
import { type Dependencies, TIME_TYPES, defaultMaxLag, dependenciesOf, discoverySummary, graphOf, structureFor } from '../temporal/structure.js';
import { countNodesOf, entry, evidenceOf, familiesOf, familyCounts, labelRows, momentsByEnvironment, shardGroups, withCountNodes, withEnvironmentColumns } from './shared.js';
import type temporalPanelEngine from './temporal-engine.js';

const ENGINE = kindEngineRef<typeof temporalPanelEngine>(new URL('./temporal-engine.js', import.meta.url).href);
/** Half-length windows rediscovered for confidence, at most. */
const MAX_WINDOWS = 8;

export interface TemporalPanelData {
  keys: string[];
  series: TemporalSeries[];
  /** Each series' place in the seasonal cycle at its step 0 (seasonalPhases). */
  phases: number[];
  environmentColumns: string[];
  profile: EnvironmentProfile;
  seasonality: SeasonalFinding[];
  timeColumn: string;
  shardCount: number;
}

export const temporalPanelLearner: KindLearner<TemporalPanelData> = {
  async read(twin, schema, rows) {
    const timeColumn = twin.selectedTimeColumnName ?? '';
    const time = schema.find((c) => c.field === timeColumn);
    const axis = time === undefined ? undefined : TIME_TYPES[time.type];
    if (time === undefined || axis === undefined) throw new JobError(`The time column ${timeColumn} must hold dates, datetimes or integers${time === undefined ? '' : `; it holds ${time.type}`}`);
    const environmentColumns = twin.environmentColumns;
    const columns = modelledColumns(schema, [timeColumn, ...environmentColumns]);
    const all = await rows([...columns.map((c) => c.field), timeColumn, ...environmentColumns], rowBudget(columns.length + environmentColumns.length + 1));
    const { labelled, keys, valuesOf, environment } = labelRows(all, environmentColumns);
    const { frame, dropped, signature } = await buildFrame(labelled, columns);
    const rowsOf = keys.map((): number[] => []);
    environment.forEach((e, r) => rowsOf[e]!.push(r));
    const seriesOf = (e: number, grid?: Parameters<typeof buildSeries>[3]) => buildSeries(rowsOf[e]!.map((r) => labelled[r]![timeColumn]), selectRows(frame, rowsOf[e]!).columns, axis, grid);
    const series = onOneStep(keys.map((_, e) => seriesOf(e)), twin.stepAggregation ?? null, seriesOf);
    const seasonality = sharedSeasonality(series);
    const profile: EnvironmentProfile = {
      columns: environmentColumns,
      environments: keys.map((key, e) => ({
        ...entry(frame, environment, e, key, valuesOf.get(key)!),
        timeSpan: { start: String(series[e]!.profile.start), end: String(series[e]!.profile.end), steps: series[e]!.profile.steps },
      })),
      rowsWithoutEnvironment: all.length - labelled.length,
      edges: [],
    };
    const kept = new Set(frame.columns.map((c) => c.name));
    const first = series[0]!;
    const observedSteps = series.reduce((s, x) => s + x.profile.observedSteps, 0);
    return {
      data: { keys, series, phases: seasonalPhases(series.map((s) => s.timeline)), environmentColumns, profile, seasonality, timeColumn, shardCount: twin.shardCount },
      nRows: observedSteps,
      variables: frame.columns.length,
      dropped,
      signature,
      columns: columns.filter((c) => kept.has(c.field)),
      recorded: {
        environmentProfile: profile,
        granularity: first.timeline.every === 1 ? first.timeline.granularity : `${first.timeline.every} ${first.timeline.granularity}`,
        timeSeriesMetadata: {
          axis: first.timeline.axis,
          granularity: first.timeline.granularity,
          every: first.timeline.every,
          environments: keys.length,
          start: formatTime(first.timeline, Math.min(...series.map((s) => s.stepTimes[0] ?? Infinity))),
          end: formatTime(first.timeline, Math.max(...series.map((s) => s.stepTimes.at(-1) ?? -Infinity))),
          steps: series.reduce((s, x) => s + x.profile.steps, 0),
          observedSteps,
          stepsPerEnvironment: { min: Math.min(...series.map((s) => s.profile.steps)), median: median(series.map((s) => s.profile.steps)), max: Math.max(...series.map((s) => s.profile.steps)) },
          irregularEnvironments: series.filter((s) => s.profile.irregular).length,
          aggregation: first.profile.aggregation,
          seasonalPeriods: seasonality,
        },
      },
    };
  },
  discover,
  train,
};

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/**
 * The environments' series on one step length. Environments sampled at different step lengths are refused unless the
 * twin says how to combine a finer environment's steps (`stepAggregation`): each is then rebuilt on the coarsest
 * environment's grid, its steps in each coarse step combined by mean or sum.
 */
function onOneStep(series: TemporalSeries[], combine: StepCombine | null, rebuild: (e: number, grid: { timeline: Timeline; combine: StepCombine }) => TemporalSeries): TemporalSeries[] {
  const step = (t: Timeline) => `${t.every} ${t.granularity}`;
  const granularities = new Set(series.map((s) => step(s.timeline)));
  if (granularities.size <= 1) return series;
  if (combine === null) {
    throw new JobError(`The environments are sampled at different step lengths (${[...granularities].join(', ')}); a temporal panel needs one: set the twin's stepAggregation (mean or sum) to combine the finer ones onto the coarsest, or aggregate the data first`);
  }
  const length = (t: Timeline) => stepLength(t) ?? t.every;
  const coarsest = series.reduce((a, b) => (length(b.timeline) > length(a.timeline) ? b : a)).timeline;
  return series.map((s, e) => (step(s.timeline) === step(coarsest) ? s : rebuild(e, { timeline: coarsest, combine })));
}

/** Seasonal periods found in at least half of the environments, with their median strength. */
function sharedSeasonality(series: readonly TemporalSeries[]): SeasonalFinding[] {
  const found = new Map<string, { variable: string; period: number; strengths: number[] }>();
  for (const s of series) {
    for (const f of findSeasonality(s.frame, calendarPeriods(s.timeline))) {
      const key = `${f.variable}\u0000${f.period}`;
      const entry = found.get(key) ?? { variable: f.variable, period: f.period, strengths: [] };
      entry.strengths.push(f.strength);
      found.set(key, entry);
    }
  }
  return [...found.values()].filter((f) => f.strengths.length * 2 >= series.length).map((f) => ({ variable: f.variable, period: f.period, strength: median(f.strengths) }));
}

const framesOf = (data: TemporalPanelData): Frame[] => data.series.map((s) => s.frame);

async function discover(io: LearnIo, data: TemporalPanelData, version: TwinVersion, share: number): Promise<Learned> {
  const { params, signal } = io.context;
  const alpha = params.alpha ?? LEARN_DEFAULTS.alpha;
  const timeBudgetSeconds = params.timeBudgetSeconds ?? LEARN_DEFAULTS.timeBudgetSeconds;
  const first = data.series[0]!;
  const maxLag = Math.max(params.maxLag ?? defaultMaxLag(median(data.series.map((s) => s.profile.steps)), data.seasonality), ...version.fixedSubGraph.relationships.map((e) => e.lag ?? 0));
  const names = new Set(first.frame.columns.map((c) => c.name));
  const inSeries = (e: LaggedEdgeRef) => names.has(e.source) && names.has(e.target);
  const options = {
    maxLag,
    alpha,
    periods: [...new Set(data.seasonality.map((s) => s.period))],
    required: version.fixedSubGraph.relationships.filter(inSeries),
    forbidden: version.fixedSubGraph.antiRelationships.filter(inSeries),
    timeBudgetMs: timeBudgetSeconds * 1000,
  };
  const started = Date.now();
  const windows = Math.min(params.bootstrapSamples ?? LEARN_DEFAULTS.bootstrapSamples, MAX_WINDOWS);
  const series = framesOf(data);
  const [result, rediscovered] = await withResamples(
    io, share * 0.9, 'discovering lagged links across environments', windows,
    (onProgress) => io.compute().step(ENGINE, 'discover', { series, options, phases: data.phases }, { signal, onProgress }),
    (index) => io.compute().step(ENGINE, 'window', { series, options, phases: data.phases, index, count: windows }, { signal }),
    'window',
  );
  const dependencies: Dependencies = {
    maxLag,
    links: result.links,
    seasonal: result.seasonal.map(({ variable, period }) => ({ variable, period, strength: data.seasonality.find((s) => s.variable === variable && s.period === period)?.strength ?? 0 })),
  };
  io.context.progress(0.05 + share * 0.92, 'judging links per environment');
  const structure: TemporalStructure = { edges: dependencies.links.map(({ source, target, lag }) => ({ source, target, lag })), seasonal: dependencies.seasonal };
  const judgements = await judge(io, data, structure, statisticsFor(data, structure), alpha);
  const graph = graphOf(dependencies, first.timeline.granularity, null);
  const confidence = windows === 0 ? null : linkConfidence(rediscovered, graph);
  const causalGraph = withPanelMembers(graph, judgements).map((edge, i) => ({ ...edge, confidence: confidence === null ? null : Number(confidence[i]!.toFixed(4)) }));
  return {
    status: 'discovered',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    temporalDependencies: dependencies as unknown as Record<string, unknown>,
    nodes: withEnvironmentColumns(nodeRecords(first.frame.columns), new Set(result.changing), judgements, data.environmentColumns),
    variableRoles: variableRoles([...names], causalGraph),
    environmentProfile: { ...data.profile, edges: pairEvidence(causalGraph, judgements, data.keys.length) },
    discovery: discoverySummary({ alpha, maxLag, timeBudgetSeconds, windows, started }, result.stats),
    discoveredAt: nowIso(),
  };
}

async function train(io: LearnIo, data: TemporalPanelData, version: TwinVersion): Promise<Learned & { model: string }> {
  const { params, signal } = io.context;
  const testFraction = params.testFraction ?? LEARN_DEFAULTS.testFraction;
  const seed = params.seed ?? LEARN_DEFAULTS.seed;
  const alpha = version.discovery?.alpha ?? params.alpha ?? LEARN_DEFAULTS.alpha;
  const first = data.series[0]!;
  const dependencies = dependenciesOf(version, first.frame.columns.map((c) => c.name), data.seasonality);
  const structure = structureFor(dependencies, version);
  const series = framesOf(data);
  io.context.progress(0.7, 'fitting the pooled lagged model');
  const evaluated = io.compute().step(ENGINE, 'evaluate', { series, keys: data.keys, structure, testFraction, phases: data.phases }, { signal });
  const pooled = await io.compute().step(ENGINE, 'pooled', { series, structure, phases: data.phases }, { signal });
  io.context.progress(0.8, 'per-environment statistics');
  const plan = withCountNodes(statisticsPlan(pooled), statisticsFor(data, structure).cpts);
  const shards = await statisticsShards(io, data, structure, plan);
  const nRows = data.series.map((s) => s.profile.observedSteps);
  const judgements = judgeEdges(designEdges(first.frame, structure).edges.filter((e) => !e.source.startsWith('\u27e8season')), plan.families, momentsByEnvironment(data.keys.length, shards), alpha, familyCounts(plan.cpts, data.keys.length, shards));
  const model: TemporalPanelModel = {
    ...assembleTemporalPanel(pooled, shards, data.series.map((s, e) => ({ key: data.keys[e]!, frame: s.frame, stepTimes: s.stepTimes, timeline: s.timeline, observedSteps: s.profile.observedSteps, phase: data.phases[e]! })), structure, data.environmentColumns),
    timeColumn: data.timeColumn,
  };
  const fitted = linkStrengths({ ...model, kind: 'temporal', cbn: pooled, ...model.environments[0]!.history });
  const trainedDependencies: Dependencies = {
    ...dependencies,
    links: structure.edges.map((edge) => dependencies.links.find((l) => l.source === edge.source && l.target === edge.target && l.lag === edge.lag) ?? { ...edge, pValue: 0, dependence: 0, orientation: edge.lag > 0 ? 'time' : 'fixed' }),
  };
  const discovered = new Map(version.causalGraph.map((edge) => [`${edge.source}\u0000${edge.target}`, edge.confidence]));
  const causalGraph = withPanelMembers(graphOf(trainedDependencies, first.timeline.granularity, fitted), judgements)
    .map((edge) => ({ ...edge, confidence: discovered.get(`${edge.source}\u0000${edge.target}`) ?? null }));
  const changing = new Set(version.nodes.filter((n) => n.environmentColumns.length > 0).map((n) => n.name));
  const variables = new Set(model.variables.map((v) => v.name));
  const nodes = withEnvironmentColumns(describeNodes({ nodes: pooled.nodes.filter((node) => variables.has(node.name)) }), changing, judgements, data.environmentColumns);
  const { evaluation: oneStep, panelEvaluation } = await evaluated;
  const evaluation = { ...oneStep, nodeMetrics: oneStep.nodeMetrics as Record<string, Record<string, number>> };
  const temporalDependencies = trainedDependencies as unknown as Record<string, unknown>;
  return {
    status: 'trained',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    temporalDependencies,
    nodes,
    evaluation,
    panelEvaluation: panelEvaluation as unknown as Record<string, unknown>,
    environmentProfile: { ...data.profile, edges: pairEvidence(causalGraph, judgements, data.keys.length) },
    variableRoles: variableRoles([...variables], causalGraph),
    nTrainSamples: nRows.reduce((a, b) => a + b, 0),
    configSignature: `sha256:${createHash('sha256').update(JSON.stringify({ fixed: version.fixedSubGraph, testFraction, seed, structure, environments: data.environmentColumns })).digest('hex')}`,
    changelog: buildChangelog(await io.baseVersion(version), { fixedSubGraph: version.fixedSubGraph, causalGraph, nodes, evaluation, temporalDependencies }),
    trainedAt: nowIso(),
    model: JSON.stringify(model),
  };
}

/**
 * The variables' mechanisms over the lagged design that each link is judged in: continuous families and the
 * categorical nodes judged from counts, a continuous input binned at the quartiles of its values in every environment.
 */
function statisticsFor(data: TemporalPanelData, structure: TemporalStructure): ReturnType<typeof statisticsPlan> {
  const first = data.series[0]!.frame;
  const { maxLag, periods, edges, used } = designEdges(first, structure);
  const variables = new Set(first.columns.map((c) => c.name));
  const design = laggedDesign(first, maxLag, periods, { only: used }).frame;
  // A lagged input's values are its variable's, shifted: its cut points come from the variable in every environment.
  const variableOf = new Map(structure.edges.map((e) => [lagName(e.source, e.lag), e.source]));
  const pooledValues = (name: string) => {
    const parts = data.series.flatMap(({ frame }) => frame.columns.filter((c) => c.name === (variableOf.get(name) ?? name)).flatMap((c) => (c.kind === 'continuous' ? [c.values] : [])));
    const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, part) => (out.set(part, at), at + part.length), 0);
    return out;
  };
  return {
    families: familiesOf(design, edges).filter((f) => variables.has(f.node)),
    cpts: countNodesOf(design, edges, pooledValues).filter((c) => variables.has(c.node)),
  };
}

async function judge(io: LearnIo, data: TemporalPanelData, structure: TemporalStructure, plan: ReturnType<typeof statisticsPlan>, alpha: number): Promise<EdgeJudgement[]> {
  const shards = await statisticsShards(io, data, structure, plan);
  const edges = structure.edges.map((e) => ({ source: lagName(e.source, e.lag), target: e.target }));
  return judgeEdges(edges, plan.families, momentsByEnvironment(data.keys.length, shards), alpha, familyCounts(plan.cpts, data.keys.length, shards));
}

/** Environments split into `shardCount` groups of about equal steps, each gathered by one pool task. */
function statisticsShards(io: LearnIo, data: TemporalPanelData, structure: TemporalStructure, plan: ReturnType<typeof statisticsPlan>): Promise<ShardStatistics[]> {
  return Promise.all(shardGroups(data.series.map((s) => s.profile.steps), data.shardCount).map((environments) =>
    io.compute().step(ENGINE, 'statistics', { series: environments.map((e) => data.series[e]!.frame), environments, structure, plan, phases: environments.map((e) => data.phases[e]!) }, { signal: io.context.signal })));
}

/** The judgements of a pair's links (any lag, its own past left out). */
function linksOfPair(judgements: readonly EdgeJudgement[], edge: { source: string; target: string; timeLagEffects: Array<{ lag: number }> }): EdgeJudgement[] {
  const names = new Set(edge.timeLagEffects.map(({ lag }) => lagName(edge.source, lag)));
  return judgements.filter((j) => j.target === edge.target && names.has(j.source));
}

/**
 * A causalGraph edge joins a pair at one or more lags: it holds in an environment where any of its links holds,
 * its agreement is its best-supported link's, and it is gated when any of its links is.
 */
function withPanelMembers(graph: Relationship[], judgements: readonly EdgeJudgement[]): Relationship[] {
  return graph.map((edge) => {
    const links = linksOfPair(judgements, edge);
    const rates = links.map((j) => j.agreementRate).filter((r): r is number => r !== null);
    return { ...edge, agreementRate: rates.length === 0 ? null : Number(Math.max(...rates).toFixed(4)), isEnvironmentGated: links.some((j) => j.gated) };
  });
}

/** Per causalGraph edge and environment: whether any of its links holds there, and its strongest link's strength. */
function pairEvidence(graph: readonly Relationship[], judgements: readonly EdgeJudgement[], count: number): EnvironmentProfile['edges'] {
  return graph.map((edge) => {
    const links = evidenceOf(linksOfPair(judgements, edge));
    return {
      source: edge.source,
      target: edge.target,
      holds: Array.from({ length: count }, (_, e) => (links.every((l) => l.holds[e] === null) ? null : links.some((l) => l.holds[e] === true))),
      strength: Array.from({ length: count }, (_, e) => links.reduce<number | null>((best, l) => {
        const s = l.strength[e] ?? null;
        return s === null ? best : best === null || Math.abs(s) > Math.abs(best) ? s : best;
      }, null)),
    };
  });
}

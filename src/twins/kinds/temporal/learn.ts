/**
 * How a temporal twin learns: the rows ordered by the time column and placed on a regular grid (series.ts), the
 * seasonal periods found, PCMCI+-class discovery of lagged and same-step links on the pool, then the lagged model
 * fitted and evaluated one step and several steps ahead on the time-ordered tail.
 */
import { createHash } from 'node:crypto';
import type { TwinVersion } from '../../../../schemas/twins.js';
import type { LaggedEdgeRef } from '../../../engine/temporal/discover.js';
import { linkKey, linkStrengths } from '../../../engine/temporal/effects.js';
import { kindEngineRef } from '../../../compute/kind-engine.js';
import { linkConfidence, subsampleWindow } from '../../../engine/temporal/confidence.js';
import { findSeasonality, type SeasonalFinding } from '../../../engine/temporal/seasonality.js';
import { type TemporalSeries, buildSeries } from '../../../engine/temporal/series.js';
import { calendarPeriods } from '../../../engine/temporal/timeline.js';
import { JobError } from '../../../jobs/runner.js';
import { nowIso } from '../../../lib/ids.js';
import { buildChangelog } from '../../changelog.js';
import { buildFrame, modelledColumns } from '../../frame.js';
import { describeNodes, variableRoles } from '../../model-summary.js';
import { reversibleEdgeCount } from '../../orientation.js';
import type { KindLearner, LearnIo, Learned } from '../kind.js';
import type temporalEngine from './engine.js';
import { type Dependencies, TIME_TYPES, defaultMaxLag, dependenciesOf, discoverySummary, graphOf, structureFor } from './structure.js';
import { LEARN_DEFAULTS, nodeRecords, rowBudget, withResamples } from '../shared.js';

export interface TemporalData {
  series: TemporalSeries;
  seasonality: SeasonalFinding[];
  timeColumn: string;
}

/** Half-length windows rediscovered for confidence, at most (the discovery body's bootstrapSamples, capped). */
const MAX_WINDOWS = 8;

const ENGINE = kindEngineRef<typeof temporalEngine>(new URL('./engine.js', import.meta.url).href);

export const temporalLearner: KindLearner<TemporalData> = {
  async read(twin, schema, rows) {
    const timeColumn = twin.selectedTimeColumnName ?? '';
    const time = schema.find((c) => c.field === timeColumn);
    const axis = time === undefined ? undefined : TIME_TYPES[time.type];
    if (time === undefined || axis === undefined) throw new JobError(`The time column ${timeColumn} must hold dates, datetimes or integers${time === undefined ? '' : `; it holds ${time.type}`}`);
    const columns = modelledColumns(schema, [timeColumn, ...twin.environmentColumns]);
    const read = await rows([...columns.map((c) => c.field), timeColumn], rowBudget(columns.length + 1));
    const { frame, dropped, signature } = await buildFrame(read, columns);
    const series = buildSeries(read.map((row) => row[timeColumn]), frame.columns, axis);
    const seasonality = findSeasonality(series.frame, calendarPeriods(series.timeline));
    const kept = new Set(frame.columns.map((c) => c.name));
    return {
      data: { series, seasonality, timeColumn },
      nRows: series.profile.observedSteps,
      variables: frame.columns.length,
      dropped,
      signature,
      columns: columns.filter((c) => kept.has(c.field)),
      recorded: {
        granularity: series.timeline.every === 1 ? series.timeline.granularity : `${series.timeline.every} ${series.timeline.granularity}`,
        timeSeriesMetadata: { ...series.profile, seasonalPeriods: seasonality },
      },
    };
  },
  discover,
  train,
};

async function discover(io: LearnIo, data: TemporalData, version: TwinVersion, share: number): Promise<Learned> {
  const { params, signal } = io.context;
  const alpha = params.alpha ?? LEARN_DEFAULTS.alpha;
  const timeBudgetSeconds = params.timeBudgetSeconds ?? LEARN_DEFAULTS.timeBudgetSeconds;
  // The window covers every lag a pin names.
  const maxLag = Math.max(params.maxLag ?? defaultMaxLag(data.series.profile.steps, data.seasonality), ...version.fixedSubGraph.relationships.map((e) => e.lag ?? 0));
  const names = new Set(data.series.frame.columns.map((c) => c.name));
  const inSeries = (e: LaggedEdgeRef) => names.has(e.source) && names.has(e.target);
  const periods = [...new Set(data.seasonality.map((s) => s.period))];
  const started = Date.now();
  const options = {
    maxLag,
    alpha,
    periods,
    required: version.fixedSubGraph.relationships.filter(inSeries),
    forbidden: version.fixedSubGraph.antiRelationships.filter(inSeries),
    timeBudgetMs: timeBudgetSeconds * 1000,
  };
  const windows = Math.min(params.bootstrapSamples ?? LEARN_DEFAULTS.bootstrapSamples, MAX_WINDOWS);
  // Half-length windows of the series rediscovered in parallel: an edge's confidence is its share of them.
  const [result, rediscovered] = await withResamples(
    io, share, 'discovering lagged links', windows,
    (onProgress) => io.compute().step(ENGINE, 'discover', { series: data.series.frame, options }, { signal, onProgress }),
    (k) => io.compute().step(ENGINE, 'discover', { series: subsampleWindow(data.series.frame, k, windows), options }, { signal }),
    'window',
  );
  const dependencies: Dependencies = {
    maxLag,
    links: result.links,
    seasonal: result.seasonal.map(({ variable, period }) => ({ variable, period, strength: data.seasonality.find((s) => s.variable === variable && s.period === period)?.strength ?? 0 })),
  };
  const graph = graphOf(dependencies, data.series.timeline.granularity, null);
  const confidence = windows === 0 ? null : linkConfidence(rediscovered, graph);
  const causalGraph = graph.map((edge, i) => ({ ...edge, confidence: confidence === null ? null : Number(confidence[i]!.toFixed(4)) }));
  return {
    status: 'discovered',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    temporalDependencies: dependencies as unknown as Record<string, unknown>,
    nodes: nodeRecords(data.series.frame.columns),
    variableRoles: variableRoles([...names], causalGraph),
    discovery: discoverySummary({ alpha, maxLag, timeBudgetSeconds, windows, started }, result.stats),
    discoveredAt: nowIso(),
  };
}

async function train(io: LearnIo, data: TemporalData, version: TwinVersion): Promise<Learned & { model: string }> {
  const { params, signal } = io.context;
  const testFraction = params.testFraction ?? LEARN_DEFAULTS.testFraction;
  const seed = params.seed ?? LEARN_DEFAULTS.seed;
  const dependencies = dependenciesOf(version, data.series.frame.columns.map((c) => c.name), data.seasonality);
  const structure = structureFor(dependencies, version);
  io.context.progress(0.7, 'fitting the lagged model');
  const { series } = data;
  const outcome = await io.compute().step(ENGINE, 'fit', { series: series.frame, stepTimes: series.stepTimes, timeline: series.timeline, structure, options: { testFraction, seed } }, { signal });
  const fitted = linkStrengths(outcome.model);
  const trainedDependencies: Dependencies = {
    ...dependencies,
    links: structure.edges.map((edge) => {
      const found = dependencies.links.find((l) => linkKey(l) === linkKey(edge));
      return found ?? { ...edge, pValue: 0, dependence: 0, orientation: edge.lag > 0 ? 'time' : 'fixed' };
    }),
  };
  const discovered = new Map(version.causalGraph.map((edge) => [`${edge.source}\u0000${edge.target}`, edge.confidence]));
  const causalGraph = graphOf(trainedDependencies, series.timeline.granularity, fitted).map((edge) => ({ ...edge, confidence: discovered.get(`${edge.source}\u0000${edge.target}`) ?? null }));
  const nodes = describeNodes({ nodes: outcome.model.cbn.nodes.filter((node) => outcome.model.variables.some((v) => v.name === node.name)) });
  const evaluation = { ...outcome.evaluation, nodeMetrics: outcome.evaluation.nodeMetrics as Record<string, Record<string, number>> };
  const temporalDependencies = trainedDependencies as unknown as Record<string, unknown>;
  return {
    status: 'trained',
    causalGraph,
    reversibleEdgeCount: reversibleEdgeCount(causalGraph),
    temporalDependencies,
    nodes,
    evaluation,
    variableRoles: variableRoles(series.frame.columns.map((c) => c.name), causalGraph),
    nTrainSamples: series.profile.observedSteps,
    configSignature: `sha256:${createHash('sha256').update(JSON.stringify({ fixed: version.fixedSubGraph, testFraction, seed, structure })).digest('hex')}`,
    changelog: buildChangelog(await io.baseVersion(version), { fixedSubGraph: version.fixedSubGraph, causalGraph, nodes, evaluation, temporalDependencies }),
    trainedAt: nowIso(),
    model: JSON.stringify({ ...outcome.model, timeColumn: data.timeColumn }),
  };
}

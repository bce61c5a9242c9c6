/**
 * Temporal panels: the same process observed over time in many environments. The model is a panel (model.ts) over
 * the lagged design (temporal/lagged.ts): one graph of lagged and same-step links, the pooled mechanisms fitted on
 * every environment's design rows stacked (stacked.ts), each environment's parameters partially pooled towards
 * them (pooling.ts), and each environment's own place in time and recent history, so every question a temporal
 * twin answers can be asked of one environment (`environmentTemporalModel`).
 */
import type { Kernels } from '../../compute/kernels.js';
import { evaluateCbn } from '../cbn/evaluate.js';
import { fitCbn } from '../cbn/fit.js';
import { selectRows } from '../frame.js';
import { type TemporalDiscoveryOptions, type TemporalDiscoveryResult, discoverOnDesign } from '../temporal/discover.js';
import { lagName } from '../temporal/lagged.js';
import { type TemporalEdge, type TemporalModel, type TemporalStructure, type TemporalVariable, designEdges, historyOf, variablesOf } from '../temporal/model.js';
import { stepOf, type Timeline } from '../temporal/timeline.js';
import type { CbnModel, Evaluation, Frame, WorkHooks } from '../types.js';
import { coarsened, heldSomewhere } from './discover.js';
import { type PanelEvaluation, type ShardStatistics, assemblePanel, evaluatePanel, shardStatistics, statisticsPlan, tailSplit } from './fit.js';
import { environmentModel, type PanelEnvironment } from './model.js';
import type { PoolingMode } from './pooling.js';
import { stackedDesign } from './stacked.js';

/** Steps of history kept per environment (a temporal twin keeps 2,000; a panel keeps less per place). */
export const PANEL_TAIL_STEPS = 500;

export type EnvironmentHistory = Pick<TemporalModel, 'timeline' | 'steps' | 'stepTimes' | 'tail' | 'phase'>;

/**
 * Where each environment's step 0 falls in the seasonal cycle: its first step's distance, in steps, from the
 * earliest first step of the panel (fractional when the grids are offset). Seasonal terms count from there, so a
 * season shared by environments that start on different dates is one pattern, pooled, not one per start date.
 */
export function seasonalPhases(timelines: readonly Timeline[]): number[] {
  const anchor = Math.min(...timelines.map((t) => t.origin));
  return timelines.map((t) => stepOf({ ...t, origin: anchor }, t.origin));
}

export interface TemporalPanelModel {
  kind: 'temporal-panel';
  environmentColumns: string[];
  variables: TemporalVariable[];
  maxLag: number;
  edges: TemporalEdge[];
  seasonal: Array<{ variable: string; period: number }>;
  /** Over the lagged design, fitted on every environment's rows together. */
  pooled: CbnModel;
  environments: Array<PanelEnvironment & { history: EnvironmentHistory }>;
  timeColumn?: string;
}

export const isTemporalPanelModel = (model: unknown): model is TemporalPanelModel => (model as { kind?: unknown } | null)?.kind === 'temporal-panel';

/** One environment as a temporal model: the shared links with its own parameters and its own history. */
export function environmentTemporalModel(model: TemporalPanelModel, key: string): TemporalModel {
  const environment = model.environments.find((e) => e.key === key);
  if (environment === undefined) throw new Error(`environment ${key} is not in the panel`);
  return {
    kind: 'temporal',
    variables: model.variables,
    maxLag: model.maxLag,
    edges: model.edges,
    seasonal: model.seasonal,
    cbn: environmentModel(model, key),
    ...environment.history,
    ...(model.timeColumn === undefined ? {} : { timeColumn: model.timeColumn }),
  };
}

/** The indicator's name in the search: no variable has it. */
const INDICATOR = '\u27e8environment\u27e9';

/**
 * J-PCMCI+ over the environments' series: their lagged designs stacked, with the environment as a context column
 * (grouped to at most 24 levels as CD-NOD's indicator is, discover.ts `coarsened`).
 */
export function discoverTemporalPanel(series: readonly Frame[], options: TemporalDiscoveryOptions, kernels: Kernels, hooks: WorkHooks = {}, phases?: readonly number[]): TemporalDiscoveryResult {
  const names = series[0]?.columns.map((c) => c.name) ?? [];
  const stacked = stackedDesign(series, Math.max(1, options.maxLag), options.periods, { complete: true, ...(phases === undefined ? {} : { phases }) });
  const indicator = { name: INDICATOR, kind: 'categorical' as const, codes: stacked.environment, categories: series.map((_, e) => String(e)) };
  const design = coarsened({ nRows: stacked.frame.nRows, columns: [...stacked.frame.columns, indicator] }, INDICATOR);
  const found = discoverOnDesign(design, names, 1, options, kernels, hooks);
  // Links found only because a slope differs across environments hold in none of them (discover.ts heldSomewhere).
  const pinned = new Set((options.required ?? []).flatMap((e) => (e.lag === undefined ? Array.from({ length: options.maxLag + 1 }, (_, lag) => lagName(e.source, lag)) : [lagName(e.source, e.lag)]).map((source) => `${source}\u0000${e.target}`)));
  const named = found.links.map((link) => ({ source: lagName(link.source, link.lag), target: link.target, link }));
  const held = new Set(heldSomewhere(stacked.frame, stacked.environment, series.length, named, pinned, options.alpha, new Set(names)).map((e) => e.link));
  return { ...found, links: found.links.filter((link) => held.has(link)) };
}

/** The pooled mechanisms on every environment's design rows. */
export function fitPooledTemporal(series: readonly Frame[], structure: TemporalStructure, kernels: Kernels, phases?: readonly number[]): CbnModel {
  const { maxLag, periods, edges, used } = designEdges(series[0]!, structure);
  const stacked = stackedDesign(series, maxLag, periods, { only: used, ...(phases === undefined ? {} : { phases }) });
  return fitCbn(stacked.frame, edges, {}, kernels);
}

/** Per-environment statistics of a shard of environments (`environments`: their indices in the panel). */
export function temporalShardStatistics(series: readonly Frame[], environments: number[], structure: TemporalStructure, plan: ReturnType<typeof statisticsPlan>, phases?: readonly number[]): ShardStatistics {
  const { maxLag, periods, used } = designEdges(series[0]!, structure);
  const stacked = stackedDesign(series, maxLag, periods, { only: used, ...(phases === undefined ? {} : { phases }) });
  return shardStatistics(stacked.frame, Int32Array.from(stacked.environment, (local) => environments[local]!), environments, plan);
}

/**
 * The version's evaluation of a temporal panel on each environment's time-ordered tail: one step ahead, the pooled
 * mechanisms over every environment's held-out steps (`evaluation`), and per environment with the partially pooled
 * ones against the pooled and each environment fitted alone (`panelEvaluation`, fit.ts).
 */
export function evaluateTemporalPanel(series: readonly Frame[], keys: readonly string[], structure: TemporalStructure, testFraction: number, kernels: Kernels, phases?: readonly number[]): { evaluation: Evaluation; panelEvaluation: PanelEvaluation } {
  const { maxLag, periods, edges, used } = designEdges(series[0]!, structure);
  const stacked = stackedDesign(series, maxLag, periods, { only: used, ...(phases === undefined ? {} : { phases }) });
  const split = tailSplit(stacked.environment, keys.length, testFraction);
  const panelEvaluation = evaluatePanel(stacked.frame, stacked.environment, keys, edges, split, testFraction, kernels);
  const train = selectRows(stacked.frame, split.flatMap((s) => s.train).sort((a, b) => a - b));
  const test = selectRows(stacked.frame, split.flatMap((s) => s.test).sort((a, b) => a - b));
  const oneStep = evaluateCbn(fitCbn(train, edges, {}, kernels), test);
  const variables = new Set(series[0]!.columns.map((c) => c.name));
  const nodeMetrics: Evaluation['nodeMetrics'] = Object.fromEntries(Object.entries(oneStep.nodeMetrics).filter(([name]) => variables.has(name)));
  return {
    evaluation: {
      ...oneStep,
      modelType: 'temporal-panel-cbn',
      nodeMetrics,
      globalMetrics: { ...oneStep.globalMetrics, nodesEvaluated: Object.keys(nodeMetrics).length, environments: keys.length, testSteps: test.nRows },
      skipReasons: oneStep.skipReasons.filter((reason) => variables.has(reason.split(':')[0]!)),
    },
    panelEvaluation,
  };
}

/** An environment's series as the model keeps it: its frame, its steps' times and its timeline. */
export interface EnvironmentSeries {
  key: string;
  frame: Frame;
  stepTimes: number[];
  timeline: Timeline;
  /** Steps with data (an environment's weight in combined answers). */
  observedSteps: number;
  /** Its step 0's place in the seasonal cycle (seasonalPhases; default 0). */
  phase?: number;
}

/** The panel from its pooled mechanisms and per-environment statistics (gathered in shards by the learner). */
export function assembleTemporalPanel(pooled: CbnModel, shards: readonly ShardStatistics[], series: readonly EnvironmentSeries[], structure: TemporalStructure, environmentColumns: string[], mode: PoolingMode = 'partial'): TemporalPanelModel {
  const panel = assemblePanel(pooled, environmentColumns, series.map((s) => s.key), series.map((s) => s.observedSteps), shards, mode);
  return {
    kind: 'temporal-panel',
    environmentColumns,
    variables: variablesOf(series[0]!.frame),
    maxLag: Math.max(1, ...structure.edges.map((e) => e.lag)),
    edges: structure.edges,
    seasonal: structure.seasonal,
    pooled,
    environments: panel.environments.map((e, i) => ({
      ...e,
      history: { ...historyOf(series[i]!.frame, series[i]!.stepTimes, series[i]!.timeline, PANEL_TAIL_STEPS), ...(series[i]!.phase === undefined ? {} : { phase: series[i]!.phase }) },
    })),
  };
}

/** A temporal panel fitted in one task (tests and benches; the learner shards the statistics). */
export function fitTemporalPanel(series: readonly EnvironmentSeries[], structure: TemporalStructure, environmentColumns: string[], kernels: Kernels, mode: PoolingMode = 'partial'): TemporalPanelModel {
  const frames = series.map((s) => s.frame);
  const phases = series.map((s) => s.phase ?? 0);
  const pooled = fitPooledTemporal(frames, structure, kernels, phases);
  const shard = temporalShardStatistics(frames, series.map((_, e) => e), structure, statisticsPlan(pooled), phases);
  return assembleTemporalPanel(pooled, [shard], series, structure, environmentColumns, mode);
}

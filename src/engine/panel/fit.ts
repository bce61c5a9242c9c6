/**
 * A panel model from per-environment statistics (moments.ts, gathered in shards on the pool), and the panel
 * evaluation: each environment's mechanisms checked on its own held-out rows, partial pooling against the pooled
 * model and against fitting each environment alone.
 */
import type { Kernels } from '../../compute/kernels.js';
import { evaluateCbn } from '../cbn/evaluate.js';
import { fitCbn } from '../cbn/fit.js';
import { predictContinuous } from '../cbn/predict.js';
import { columnByName, selectRows } from '../frame.js';
import { Rng } from '../random.js';
import type { CbnModel, EdgeRef, Frame, NodeModel } from '../types.js';
import { environmentModel, type PanelEnvironment, type PanelModel } from './model.js';
import { cptCounts, type Family, type FamilyMoments, familyMoments } from './moments.js';
import { type PoolingMode, poolCategorical, poolContinuous } from './pooling.js';

/** The statistics per environment a panel fit needs, for the environments of one shard. */
export interface ShardStatistics {
  environments: number[];
  /** [environment][family] */
  moments: FamilyMoments[][];
  /** By CPT node: [environment][configuration][class]. */
  counts: Record<string, number[][][]>;
  /** By CPT node: its parents' category counts (the radix of its configurations) and its own. */
  cptLevels: Record<string, { parents: number[]; classes: number }>;
}

/**
 * A categorical node whose counts are gathered per environment: by the configurations of its parents, a continuous
 * parent by its bin among `cuts` (moments.ts cptCounts).
 */
export interface CountNode {
  node: string;
  parents: string[];
  cuts?: Record<string, number[]>;
}

/** The continuous families and CPT nodes of a fitted network: what per-environment statistics are gathered for. */
export function statisticsPlan(model: CbnModel): { families: Family[]; cpts: CountNode[] } {
  return {
    families: model.nodes.flatMap((n) => (n.kind === 'continuous' ? [{ node: n.name, terms: n.terms }] : [])),
    cpts: model.nodes.flatMap((n) => (n.kind === 'categorical' && n.cpt !== undefined ? [{ node: n.name, parents: n.parents }] : [])),
  };
}

export function shardStatistics(frame: Frame, environment: Int32Array, environments: number[], plan: ReturnType<typeof statisticsPlan>): ShardStatistics {
  const levelsOf = (name: string, cuts?: readonly number[]) => {
    const column = columnByName(frame, name);
    return column.kind === 'categorical' ? column.categories.length : (cuts?.length ?? 0) + 1;
  };
  return {
    environments,
    moments: familyMoments(frame, environment, environments, plan.families),
    counts: Object.fromEntries(plan.cpts.map((c) => [c.node, cptCounts(frame, environment, environments, c.node, c.parents, c.cuts)])),
    cptLevels: Object.fromEntries(plan.cpts.map((c) => [c.node, { parents: c.parents.map((p) => levelsOf(p, c.cuts?.[p])), classes: levelsOf(c.node) }])),
  };
}

/** The panel model: `pooled` with each environment's parameters pooled from the shards' statistics. */
export function assemblePanel(pooled: CbnModel, environmentColumns: string[], keys: readonly string[], nRows: readonly number[], shards: readonly ShardStatistics[], mode: PoolingMode = 'partial'): PanelModel {
  const slot = new Map<number, { shard: ShardStatistics; at: number }>();
  for (const shard of shards) shard.environments.forEach((e, at) => slot.set(e, { shard, at }));
  const plan = statisticsPlan(pooled);
  const located = keys.map((_, e) => {
    const found = slot.get(e);
    if (found === undefined) throw new Error(`no statistics for environment ${e}`);
    return found;
  });
  const overrides = keys.map((): PanelEnvironment['nodes'] => ({}));
  plan.families.forEach((family, f) => {
    const node = pooled.nodes.find((n) => n.name === family.node) as Extract<NodeModel, { kind: 'continuous' }>;
    poolContinuous(node, located.map(({ shard, at }) => shard.moments[at]![f]!), mode).forEach((o, e) => (overrides[e]![family.node] = o));
  });
  for (const { node: name } of plan.cpts) {
    const node = pooled.nodes.find((n) => n.name === name) as Extract<NodeModel, { kind: 'categorical' }>;
    poolCategorical(node, located.map(({ shard, at }) => shard.counts[name]![at]!), mode).forEach((o, e) => (overrides[e]![name] = o));
  }
  return { kind: 'panel', environmentColumns, pooled, environments: keys.map((key, e) => ({ key, nRows: nRows[e]!, nodes: overrides[e]! })) };
}

/** Fits a panel in one task (the evaluation's folds; the learner shards the statistics instead). */
export function fitPanel(frame: Frame, environment: Int32Array, keys: readonly string[], edges: readonly EdgeRef[], environmentColumns: string[], kernels: Kernels, mode: PoolingMode = 'partial'): PanelModel {
  const pooled = fitCbn(frame, edges, {}, kernels);
  const all = keys.map((_, e) => e);
  const nRows = keys.map(() => 0);
  for (const e of environment) if (e >= 0) nRows[e]!++;
  return assemblePanel(pooled, environmentColumns, keys, nRows, [shardStatistics(frame, environment, all, statisticsPlan(pooled))], mode);
}

export interface PanelEvaluation {
  testFraction: number;
  /** Per environment on its held-out rows: rows used, and node metrics where the test rows reach 20. */
  environments: Record<string, { nTrain: number; nTest: number; nodeMetrics: Record<string, Record<string, number>> }>;
  /** Per continuous node: the spread across environments of its held-out mse (environments with at least 5 test rows). */
  spread: Record<string, { mean: number; std: number; min: number; max: number; environments: number }>;
  /**
   * Per continuous node: held-out mse over every environment's test rows of the partially pooled mechanisms, the
   * pooled model, and each environment fitted alone; and the same over the small environments (training rows
   * below the median).
   */
  pooling: Record<string, { partial: number; pooled: number; separate: number; smallPartial: number | null; smallPooled: number | null; smallSeparate: number | null }>;
}

const SPREAD_MIN_TEST_ROWS = 5;

/** Each environment's rows split into training and held-out rows. */
export type PanelSplit = Array<{ train: number[]; test: number[] }>;

const rowsByEnvironment = (environment: Int32Array, count: number) => {
  const rowsOf = Array.from({ length: count }, (): number[] => []);
  environment.forEach((e, r) => e >= 0 && rowsOf[e]!.push(r));
  return rowsOf;
};

/** A random `testFraction` of each environment's rows held out (static panels). */
export function randomSplit(environment: Int32Array, count: number, testFraction: number, seed: number): PanelSplit {
  const rng = new Rng(seed);
  return rowsByEnvironment(environment, count).map((rows) => {
    const order = rng.shuffle([...rows]);
    const nTest = Math.round(rows.length * testFraction);
    return { test: order.slice(0, nTest).sort((a, b) => a - b), train: order.slice(nTest).sort((a, b) => a - b) };
  });
}

/** The last `testFraction` of each environment's rows held out (temporal panels: rows in time order within each environment). */
export function tailSplit(environment: Int32Array, count: number, testFraction: number): PanelSplit {
  return rowsByEnvironment(environment, count).map((rows) => {
    const nTrain = rows.length - Math.round(rows.length * testFraction);
    return { train: rows.slice(0, nTrain), test: rows.slice(nTrain) };
  });
}

export function evaluatePanel(frame: Frame, environment: Int32Array, keys: readonly string[], edges: readonly EdgeRef[], split: PanelSplit, testFraction: number, kernels: Kernels): PanelEvaluation {
  const trainRows = split.flatMap((s) => s.train).sort((a, b) => a - b);
  const train = selectRows(frame, trainRows);
  const trainEnvironment = Int32Array.from(trainRows, (r) => environment[r]!);
  const partial = fitPanel(train, trainEnvironment, keys, edges, [], kernels, 'partial');
  const separate = fitPanel(train, trainEnvironment, keys, edges, [], kernels, 'separate');
  const continuous = partial.pooled.nodes.filter((n) => n.kind === 'continuous');
  const errors = (model: CbnModel, test: Frame, node: string) => {
    const fitted = model.nodes.find((n) => n.name === node)!;
    const predicted = predictContinuous(fitted as Extract<NodeModel, { kind: 'continuous' }>, test);
    const actual = columnByName(test, node);
    let sse = 0;
    let n = 0;
    for (let r = 0; r < test.nRows; r++) {
      const y = actual.kind === 'continuous' ? actual.values[r]! : Number.NaN;
      if (Number.isNaN(y) || !Number.isFinite(predicted[r]!)) continue;
      sse += (y - predicted[r]!) ** 2;
      n++;
    }
    return { sse, n };
  };
  const medianTrain = [...split.map((s) => s.train.length)].sort((a, b) => a - b)[Math.floor(keys.length / 2)] ?? 0;
  const totals = new Map(continuous.map((n) => [n.name, { partial: [0, 0], pooled: [0, 0], separate: [0, 0], smallPartial: [0, 0], smallPooled: [0, 0], smallSeparate: [0, 0] }]));
  const perEnvironmentMse = new Map(continuous.map((n) => [n.name, [] as number[]]));
  const environments: PanelEvaluation['environments'] = {};
  keys.forEach((key, e) => {
    const test = selectRows(frame, split[e]!.test);
    const own = environmentModel(partial, key);
    const alone = environmentModel(separate, key);
    const evaluation = evaluateCbn(own, test);
    environments[key] = { nTrain: split[e]!.train.length, nTest: test.nRows, nodeMetrics: evaluation.nodeMetrics as Record<string, Record<string, number>> };
    if (test.nRows === 0) return;
    const small = split[e]!.train.length < medianTrain;
    for (const node of continuous) {
      const sum = totals.get(node.name)!;
      const add = (into: number[], x: { sse: number; n: number }) => {
        into[0]! += x.sse;
        into[1]! += x.n;
      };
      const mine = errors(own, test, node.name);
      const pooledErrors = errors(partial.pooled, test, node.name);
      const aloneErrors = errors(alone, test, node.name);
      add(sum.partial, mine);
      add(sum.pooled, pooledErrors);
      add(sum.separate, aloneErrors);
      if (small) {
        add(sum.smallPartial, mine);
        add(sum.smallPooled, pooledErrors);
        add(sum.smallSeparate, aloneErrors);
      }
      if (mine.n >= SPREAD_MIN_TEST_ROWS) perEnvironmentMse.get(node.name)!.push(mine.sse / mine.n);
    }
  });
  const mse = ([sse, n]: number[]) => (n! > 0 ? sse! / n! : null);
  const spread: PanelEvaluation['spread'] = {};
  for (const [node, values] of perEnvironmentMse) {
    if (values.length === 0) continue;
    const mean = values.reduce((a, b) => a + b, 0) / values.length;
    spread[node] = { mean, std: Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length), min: Math.min(...values), max: Math.max(...values), environments: values.length };
  }
  const pooling: PanelEvaluation['pooling'] = {};
  for (const [node, sum] of totals) {
    if (sum.partial[1] === 0) continue;
    pooling[node] = {
      partial: mse(sum.partial)!, pooled: mse(sum.pooled)!, separate: mse(sum.separate)!,
      smallPartial: mse(sum.smallPartial), smallPooled: mse(sum.smallPooled), smallSeparate: mse(sum.smallSeparate),
    };
  }
  return { testFraction, environments, spread, pooling };
}

/**
 * Evaluation of a temporal model on the time-ordered tail it was not fitted on: the spec's node metrics one step
 * ahead (each variable predicted from the observed past), and over a horizon: forecasts of 1..H steps from
 * several origins in the tail, their mean path against what happened (`mseHorizon`: the mean over h = 1..H of the
 * squared error; `accuracyHorizon` for categorical variables).
 */
import type { Kernels } from '../../compute/kernels.js';
import { evaluateCbn } from '../cbn/evaluate.js';
import type { Evaluation, Frame } from '../types.js';
import { simulateFuture } from './future.js';
import { laggedDesign } from './lagged.js';
import { type TemporalStructure, fitTemporal } from './model.js';
import type { Timeline } from './timeline.js';

const HORIZON = 10;
const ORIGINS = 20;
const PATHS = 200;

export function evaluateTemporal(
  series: Frame,
  stepTimes: readonly number[],
  timeline: Timeline,
  structure: TemporalStructure,
  options: { testFraction: number; seed: number },
  kernels: Kernels,
): Evaluation {
  const nTrain = Math.floor(series.nRows * (1 - options.testFraction));
  const model = fitTemporal(series, stepTimes, timeline, structure, { seed: options.seed, to: nTrain }, kernels);
  const used = new Set(model.cbn.nodes.map((n) => n.name));
  const periods = [...new Set(model.seasonal.map((s) => s.period))];
  const test = laggedDesign(series, model.maxLag, periods, { from: nTrain, only: used }).frame;
  const oneStep = evaluateCbn(model.cbn, test);
  const variables = new Set(model.variables.map((v) => v.name));
  const nodeMetrics: Evaluation['nodeMetrics'] = {};
  for (const [name, metrics] of Object.entries(oneStep.nodeMetrics)) if (variables.has(name)) nodeMetrics[name] = { ...metrics };
  const horizon = Math.min(HORIZON, Math.floor((series.nRows - nTrain) / 2));
  const first = Math.max(nTrain, model.tail.from + model.maxLag);
  const last = series.nRows - horizon;
  const origins = horizon < 1 || last < first ? [] : Array.from(new Set(Array.from({ length: ORIGINS }, (_, k) => Math.round(first + ((last - first) * k) / Math.max(1, ORIGINS - 1)))));
  const errors = new Map<string, { sum: number; count: number; hits: number }>();
  origins.forEach((origin, k) => {
    const paths = simulateFuture(model, { originStep: origin, horizon, samples: PATHS, seed: options.seed + k });
    for (const variable of model.variables) {
      const column = series.columns.find((c) => c.name === variable.name)!;
      const tally = errors.get(variable.name) ?? { sum: 0, count: 0, hits: 0 };
      for (let h = 0; h < horizon; h++) {
        const values = paths[variable.name]![h]!;
        const t = origin + h;
        if (column.kind === 'continuous') {
          const actual = column.values[t]!;
          if (Number.isNaN(actual)) continue;
          const mean = values.reduce((a, b) => a + b, 0) / values.length;
          tally.sum += (mean - actual) ** 2;
          tally.count++;
        } else {
          const actual = column.codes[t]!;
          if (actual < 0) continue;
          const counts = new Float64Array(column.categories.length);
          for (const v of values) counts[v]!++;
          tally.hits += counts.indexOf(Math.max(...counts)) === actual ? 1 : 0;
          tally.count++;
        }
      }
      errors.set(variable.name, tally);
    }
  });
  for (const variable of model.variables) {
    const tally = errors.get(variable.name);
    if (tally === undefined || tally.count === 0) continue;
    nodeMetrics[variable.name] = { ...nodeMetrics[variable.name], ...(variable.kind === 'continuous' ? { mseHorizon: tally.sum / tally.count } : { accuracyHorizon: tally.hits / tally.count }) };
  }
  return {
    modelType: 'temporal-cbn',
    nodeMetrics,
    globalMetrics: { ...oneStep.globalMetrics, nodesEvaluated: Object.keys(nodeMetrics).length, horizonSteps: horizon, forecastOrigins: origins.length, testSteps: series.nRows - nTrain },
    skippedReason: oneStep.skippedReason,
    skipReasons: oneStep.skipReasons.filter((reason) => variables.has(reason.split(':')[0]!)),
    nEvalPoints: test.nRows,
  };
}

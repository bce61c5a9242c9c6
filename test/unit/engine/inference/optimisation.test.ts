import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Term } from '../../../../src/engine/cbn/design.js';
import { DEFAULT_SAMPLES, runOptimisation } from '../../../../src/engine/inference/optimisation.js';
import { compileScm, drawNoise, propagate } from '../../../../src/engine/inference/scm.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import type { OptimisationScenario } from '../../../../src/engine/inference/scenario.js';
import type { CbnModel, Frame, NodeModel } from '../../../../src/engine/types.js';

const node = (name: string, terms: [Term, number][], intercept = 0, noiseStd = 1): NodeModel => ({
  name, kind: 'continuous', parents: [...new Set(terms.flatMap(([t]) => t.parents))], terms: terms.map(([t]) => t), intercept,
  coefficients: terms.map(([, b]) => b), noiseStd, residualQuantiles: [], mean: intercept, std: 1,
});
const lin = (p: string): Term => ({ kind: 'linear', parents: [p] });
const indicator = (p: string, category: string): Term => ({ kind: 'indicator', parents: [p], category });
const categorical = (name: string, categories: string[]): NodeModel => ({ name, kind: 'categorical', parents: [], categories, marginal: categories.map(() => 1 / categories.length) });

/** Metric SQL of the form `SELECT avg(column) AS value FROM df`, answered from the frame; calls are counted. */
function metricContext(seed = 3): InferenceContext & { calls: number } {
  const context = {
    seed, hooks: {}, calls: 0,
    evaluateMetric: (frame: Frame, sql: string) => {
      context.calls++;
      const name = /avg\((\w+)\)/.exec(sql)?.[1];
      const column = frame.columns.find((c) => c.name === name);
      if (!column || column.kind !== 'continuous') return Promise.reject(new Error(`cannot evaluate ${sql}`));
      return Promise.resolve(column.values.reduce((a, b) => a + b, 0) / frame.nRows);
    },
  };
  return context;
}

interface Details {
  recommendation: { variable: string; intervened: boolean; baselineValue: number | string; value: number | string; change: number | null }[];
  objectives: { baseline: number; optimised: number; improvement: number }[];
  constraints: { kind: string; satisfied: boolean; value: unknown }[];
  feasible: boolean;
  evaluations: number;
}
const valueOf = (d: Details, variable: string) => d.recommendation.find((r) => r.variable === variable)!;

/** Y = 2 X1 - 1.5 X2 + 0.5 X3 + e. */
const linearModel: CbnModel = {
  nodes: [node('X1', []), node('X2', []), node('X3', []), node('Y', [[lin('X1'), 2], [lin('X2'), -1.5], [lin('X3'), 0.5]])],
};
const box = (variable: string, minValue: number, maxValue: number) => ({ variable, type: 'range' as const, minValue, maxValue });

test('a linear objective in a box sends every lever to the bound of its coefficient sign (and back when minimising)', async () => {
  const scenario: OptimisationScenario = {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X1', 'X2', 'X3'],
    variableConstraints: [box('X1', -1, 2), box('X2', -1, 2), box('X3', -1, 2)],
  };
  const up = (await runOptimisation(linearModel, scenario, metricContext())).details as unknown as Details;
  assert.deepEqual(['X1', 'X2', 'X3'].map((v) => valueOf(up, v).value), [2, -1, 2]);
  // The optimised mean moves by exactly the coefficients times the moves from the baseline means (common random numbers).
  const expected = ['X1', 'X2', 'X3'].reduce((s, v, i) => s + [2, -1.5, 0.5][i]! * (valueOf(up, v).change as number), 0);
  assert.ok(Math.abs(up.objectives[0]!.improvement - expected) < 1e-9, `${up.objectives[0]!.improvement} vs ${expected}`);
  assert.equal(up.feasible, true);
  const down = (await runOptimisation(linearModel, { ...scenario, objectives: [{ direction: 'minimise', variable: 'Y' }] }, metricContext())).details as unknown as Details;
  assert.deepEqual(['X1', 'X2', 'X3'].map((v) => valueOf(down, v).value), [-1, 2, -1]);
});

test('a curved objective has its interior optimum: E[Y] = 2x - 0.5 (x^2 + 1) peaks at x = 2', async () => {
  const model: CbnModel = {
    nodes: [node('X', []), node('M', [[lin('X'), 1]]), node('Y', [[lin('M'), 2], [{ kind: 'square', parents: ['M'] }, -0.5]])],
  };
  const out = await runOptimisation(model, { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X'] }, metricContext());
  const d = out.details as unknown as Details;
  // The population's M noise has a sample mean m: the exact optimum of mean(2(x + e) - 0.5 (x + e)^2) is x = 2 - m.
  const scm = compileScm(model);
  const population = propagate(scm, drawNoise(scm, DEFAULT_SAMPLES, 3));
  const [xs, ms] = [population.columns[0]!, population.columns[1]!];
  assert.ok(xs.kind === 'continuous' && ms.kind === 'continuous');
  const m = ms.values.reduce((s, v, r) => s + v - xs.values[r]!, 0) / ms.values.length;
  const x = valueOf(d, 'X').value as number;
  assert.ok(Math.abs(x - (2 - m)) < 1e-3, `X -> ${x}, optimum ${2 - m}`);
  assert.ok(d.objectives[0]!.improvement > 0);
});

test('a metric constraint binds: maximise Y = 2 X1 subject to mean(Z) <= 3 with Z = X1 - X2 + e', async () => {
  const model: CbnModel = {
    nodes: [node('X1', [], 2), node('X2', []), node('Y', [[lin('X1'), 2]]), node('Z', [[lin('X1'), 1], [lin('X2'), -1]])],
  };
  const scenario: OptimisationScenario = {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X1', 'X2'],
    variableConstraints: [box('X1', 0, 5), box('X2', -2, 2)],
    metricConstraints: [{ metricName: 'z', sqlQuery: 'SELECT avg(Z) AS value FROM df', constraintType: 'max_value', value: 3 }],
  };
  const context = metricContext();
  const d = (await runOptimisation(model, scenario, context)).details as unknown as Details;
  assert.equal(d.feasible, true);
  const metric = d.constraints.find((c) => c.kind === 'metric')!;
  assert.ok((metric.value as number) <= 3);
  // Optimum: X2 at its top (2), X1 as high as mean(Z) = X1 - 2 + m <= 3 allows, m the units' mean Z noise.
  const x1 = valueOf(d, 'X1');
  const x2 = valueOf(d, 'X2');
  const m = (metric as unknown as { baseline: number }).baseline - ((x1.baselineValue as number) - (x2.baselineValue as number));
  assert.ok(Math.abs((x1.value as number) - (5 - m)) < 0.01, `X1 -> ${x1.value}, optimum ${5 - m}`);
  assert.ok((x2.value as number) > 1.99, `X2 -> ${x2.value}`);
  // Metric SQL is expensive: the search keeps to a few hundred evaluations.
  assert.ok(d.evaluations <= 200 && context.calls <= 2 * 202, `${d.evaluations} evaluations, ${context.calls} SQL calls`);
});

test('maxChangePercent keeps a lever within that share of its baseline mean', async () => {
  const model: CbnModel = { nodes: [node('X', [], 10), node('Y', [[lin('X'), 1]])] };
  const out = await runOptimisation(model, {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X'], variableConstraints: [{ variable: 'X', type: 'range', maxChangePercent: 10 }],
  }, metricContext());
  const x = valueOf(out.details as unknown as Details, 'X');
  assert.ok(Math.abs((x.value as number) - 1.1 * (x.baselineValue as number)) < 1e-9, JSON.stringify(x));
});

test('a categorical lever is enumerated, and a set constraint removes categories', async () => {
  const model: CbnModel = {
    nodes: [categorical('G', ['a', 'b', 'c']), node('X', []), node('Y', [[indicator('G', 'b'), 3], [indicator('G', 'c'), -1], [lin('X'), 1]], 1)],
  };
  const scenario: OptimisationScenario = { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['G', 'X'], variableConstraints: [box('X', 0, 1)] };
  const free = (await runOptimisation(model, scenario, metricContext())).details as unknown as Details;
  assert.equal(valueOf(free, 'G').value, 'b');
  assert.equal(valueOf(free, 'X').value, 1);
  const limited = (await runOptimisation(model, { ...scenario, variableConstraints: [box('X', 0, 1), { variable: 'G', type: 'set', allowedValues: ['a', 'c'] }] }, metricContext())).details as unknown as Details;
  assert.equal(valueOf(limited, 'G').value, 'a');
});

test('maxInterventions 1 sets only the lever with the larger gain; the other keeps its natural values', async () => {
  const scenario: OptimisationScenario = {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X1', 'X2', 'X3'],
    variableConstraints: [box('X1', -1, 2), box('X2', -1, 2), box('X3', -1, 2)], interventionCountConfig: { maxInterventions: 1 },
  };
  const d = (await runOptimisation(linearModel, scenario, metricContext())).details as unknown as Details;
  assert.deepEqual(d.recommendation.map((r) => r.intervened), [true, false, false]);
  assert.equal(valueOf(d, 'X1').value, 2);
  assert.equal(valueOf(d, 'X2').change, 0);
});

test('conditional allowed values clamp the units that meet the condition: X = 5 for most, at most 1 where G = b', async () => {
  const model: CbnModel = { nodes: [categorical('G', ['a', 'b']), node('X', []), node('Y', [[lin('X'), 1]])] };
  const out = await runOptimisation(model, {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X'],
    variableConstraints: [{ ...box('X', 0, 5), conditionalAllowedValues: [{ condition: { variable: 'G', operator: 'eq', value: 'b' }, maxValue: 1 }] }],
  }, metricContext());
  assert.equal(valueOf(out.details as unknown as Details, 'X').value, 5);
  // The same simulated units: G's share of b among them.
  const scm = compileScm(model);
  const g = propagate(scm, drawNoise(scm, DEFAULT_SAMPLES, 3)).columns[0]!;
  assert.ok(g.kind === 'categorical');
  const shareB = g.codes.filter((c) => c === 1).length / g.codes.length;
  assert.ok(Math.abs((out.results.X![0]!.prediction as number) - (5 * (1 - shareB) + 1 * shareB)) < 1e-9);
});

test('a metric objective is scored by its SQL; a categorical variable objective without SQL is refused', async () => {
  const context = metricContext();
  const out = await runOptimisation(linearModel, {
    type: 'optimisation', objectives: [{ direction: 'maximise', metricSqlQuery: 'SELECT avg(Y) AS value FROM df' }], decisionVars: ['X1'], variableConstraints: [box('X1', -1, 2)],
  }, context);
  assert.equal(valueOf(out.details as unknown as Details, 'X1').value, 2);
  const model: CbnModel = { nodes: [node('X', []), { name: 'C', kind: 'categorical', parents: ['X'], categories: ['no', 'yes'], marginal: [0.5, 0.5], logistic: { terms: [lin('X') as { kind: 'linear'; parents: string[] }], weights: [[0, 0], [0, 1]] } }] };
  await assert.rejects(runOptimisation(model, { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'C' }], decisionVars: ['X'] }, context), /metricSqlQuery/);
});

test('an abort stops the search', async () => {
  let calls = 0;
  const context = { ...metricContext(), hooks: { aborted: () => ++calls > 5 } };
  await assert.rejects(runOptimisation(linearModel, { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: ['X1'] }, context), (e: Error) => e.name === 'AbortError');
});

test('with many levers and optimizeCount the subset grows greedily and stops when another lever adds nothing', async () => {
  const weights = [3, -0.1, 0.2, 2.5, 0.1, -0.2];
  const names = weights.map((_, i) => `X${i + 1}`);
  const model: CbnModel = { nodes: [...names.map((n) => node(n, [])), node('Y', names.map((n, i): [Term, number] => [lin(n), weights[i]!]))] };
  const d = (await runOptimisation(model, {
    type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'Y' }], decisionVars: names,
    variableConstraints: names.map((n) => box(n, 0, 1)), interventionCountConfig: { maxInterventions: 2, optimizeCount: true },
  }, metricContext())).details as unknown as Details;
  // 6 + 15 allowed subsets are too many to enumerate: X1 then X4 are added, both at their upper bound.
  assert.deepEqual(d.recommendation.filter((r) => r.intervened).map((r) => [r.variable, r.value]), [['X1', 1], ['X4', 1]]);
});

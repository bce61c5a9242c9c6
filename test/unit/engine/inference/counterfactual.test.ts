import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { continuousColumn, frameOf } from '../../../../src/engine/frame.js';
import { runCounterfactual } from '../../../../src/engine/inference/counterfactual.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import type { CounterfactualScenario } from '../../../../src/engine/inference/scenario.js';
import { compileScm, frameFromRecords, propagate } from '../../../../src/engine/inference/scm.js';
import { abductNeutral } from '../../../../src/engine/inference/unit-probe.js';
import { Rng } from '../../../../src/engine/random.js';
import type { CbnModel, NodeModel } from '../../../../src/engine/types.js';

/** A linear-Gaussian node with standard-normal noise (no stored residuals). */
const linear = (name: string, parents: string[], coefficients: number[], noiseStd: number, std: number, intercept = 0): NodeModel => ({
  name, kind: 'continuous', parents, terms: parents.map((p) => ({ kind: 'linear', parents: [p] })), intercept, coefficients, noiseStd,
  residualQuantiles: [], mean: 0, std,
});

const context: InferenceContext = { seed: 7, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics here')) };

/** X -> M -> Y and X -> Y: M = 2X + e, Y = M + 0.5X + Z + e; total effects on Y: X 2.5, M 1, Z 1. */
const chain: CbnModel = {
  nodes: [
    linear('X', [], [], 1, 1),
    linear('Z', [], [], 2, 2),
    linear('M', ['X'], [2], 1, Math.sqrt(5)),
    linear('Y', ['M', 'X', 'Z'], [1, 0.5, 1], 1, Math.sqrt(6.25 + 4 + 1 + 1)),
  ],
};

interface SampleDetail {
  achieved: boolean;
  changes: { variable: string; from: number | string; to: number | string }[];
  targets: { variable: string; baseline: number | string; counterfactual: number | string; met: boolean }[];
}
const samplesOf = (details: Record<string, unknown>) => details.samples as SampleDetail[];

const scenario = (over: Partial<CounterfactualScenario>): CounterfactualScenario => ({
  type: 'counterfactual', samples: [{ X: 1, Z: 0, M: 2.5, Y: 4 }], targets: [{ variable: 'Y', value: 10 }], ...over,
});

test('one change: the lever with the smallest standardised change, solved exactly (closed form 1 + 6 / 2.5)', async () => {
  const out = await runCounterfactual(chain, scenario({}), context);
  const [sample] = samplesOf(out.details);
  // X moves 2.4 std, M would move 6 / sqrt(5) = 2.68 std and Z 6 / 2 = 3 std.
  assert.equal(sample!.achieved, true);
  assert.equal(sample!.changes.length, 1);
  assert.equal(sample!.changes[0]!.variable, 'X');
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - 3.4) < 1e-9, `X -> ${sample!.changes[0]!.to}`);
  assert.ok(Math.abs((sample!.targets[0]!.counterfactual as number) - 10) < 1e-9);
  assert.equal(sample!.targets[0]!.baseline, 4);
  assert.equal(out.results.Y!.length, 1);
  assert.ok(Math.abs((out.results.Y![0]!.prediction as number) - 10) < 1e-9);
});

test('a fixed variable never changes: the next best lever takes over', async () => {
  const out = await runCounterfactual(chain, scenario({ constraints: { X: { type: 'fixed' } } }), context);
  const [sample] = samplesOf(out.details);
  assert.deepEqual(sample!.changes.map((c) => c.variable), ['M']);
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - 8.5) < 1e-9);
});

test('two targets no single lever can meet are met by two changes: M = 3 needs X = 1.25, then Y = 10 needs Z = 5.375', async () => {
  const out = await runCounterfactual(chain, scenario({ targets: [{ variable: 'M', value: 3 }, { variable: 'Y', value: 10 }] }), context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  const to = Object.fromEntries(sample!.changes.map((c) => [c.variable, c.to as number]));
  assert.deepEqual(Object.keys(to).sort(), ['X', 'Z']);
  assert.ok(Math.abs(to.X! - 1.25) < 1e-6 && Math.abs(to.Z! - 5.375) < 1e-6, JSON.stringify(to));
});

test('maxChanges 1 refuses to combine changes and reports the closest single change as not achieved', async () => {
  const out = await runCounterfactual(chain, scenario({ targets: [{ variable: 'M', value: 3 }, { variable: 'Y', value: 10 }], maxChanges: 1 }), context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, false);
  assert.ok(sample!.changes.length <= 1);
  assert.ok(sample!.targets.some((t) => !t.met));
});

test('orMore lands on the bound, orLess already met needs no change', async () => {
  const more = samplesOf((await runCounterfactual(chain, scenario({ targets: [{ variable: 'Y', value: 10, matchMode: 'orMore' }] }), context)).details)[0]!;
  assert.equal(more.achieved, true);
  assert.ok((more.targets[0]!.counterfactual as number) >= 10);
  assert.ok(Math.abs((more.changes[0]!.to as number) - 3.4) < 1e-5);
  const less = samplesOf((await runCounterfactual(chain, scenario({ targets: [{ variable: 'Y', value: 5, matchMode: 'orLess' }] }), context)).details)[0]!;
  assert.equal(less.achieved, true);
  assert.deepEqual(less.changes, []);
});

test('an unreachable target is reported honestly: the closest attempt, re-simulated, not achieved', async () => {
  const out = await runCounterfactual(chain, scenario({ targets: [{ variable: 'Y', value: 1000 }], maxChanges: 1 }), context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, false);
  assert.equal(sample!.targets[0]!.met, false);
  // Independent re-simulation of the reported change with the unit's abducted noise.
  const scm = compileScm(chain);
  const noise = abductNeutral(scm, frameFromRecords(scm, scenario({}).samples), context.seed);
  const change = sample!.changes[0]!;
  const world = propagate(scm, noise, [{ node: change.variable, kind: 'set', value: change.to as number }]);
  const y = world.columns[3]!;
  assert.ok(y.kind === 'continuous' && Math.abs(y.values[0]! - (sample!.targets[0]!.counterfactual as number)) < 1e-9);
});

test('a missing value is abducted neutrally: M at its conditional mean 2X, so Y = 10 needs X = 1 + (10 - 5) / 2.5', async () => {
  const out = await runCounterfactual(chain, scenario({ samples: [{ X: 1, Z: 0, Y: 5 }] }), context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.changes[0]!.variable, 'X');
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - 3) < 1e-9);
});

test('a curved mechanism is solved numerically: Y = 1 + 0.5 X^2 + e reaches 9 at X = sqrt(15), the root nearest the unit', async () => {
  const model: CbnModel = {
    nodes: [
      linear('X', [], [], 1, 1),
      { name: 'Y', kind: 'continuous', parents: ['X'], terms: [{ kind: 'square', parents: ['X'] }], intercept: 1, coefficients: [0.5], noiseStd: 1, residualQuantiles: [], mean: 1.5, std: 1 },
    ],
  };
  const out = await runCounterfactual(model, { type: 'counterfactual', samples: [{ X: 1, Y: 2 }], targets: [{ variable: 'Y', value: 9 }] }, context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - Math.sqrt(15)) < 1e-6, `X -> ${sample!.changes[0]!.to}`);
});

test('a categorical target flips at the boundary its own uniform sets: X* = logit(1 - u) / 2 for P(yes) = sigmoid(2X)', async () => {
  const model: CbnModel = {
    nodes: [
      linear('X', [], [], 1, 1),
      { name: 'C', kind: 'categorical', parents: ['X'], categories: ['no', 'yes'], marginal: [0.5, 0.5], logistic: { terms: [{ kind: 'linear', parents: ['X'] }], weights: [[0, 0], [0, 2]] } },
    ],
  };
  const samples = [{ X: -1, C: 'no' }];
  const out = await runCounterfactual(model, { type: 'counterfactual', samples, targets: [{ variable: 'C', value: 'yes' }] }, context);
  const scm = compileScm(model);
  const u = abductNeutral(scm, frameFromRecords(scm, samples), context.seed)[1]![0]!;
  const expected = Math.log((1 - u) / u) / 2;
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  assert.equal(sample!.targets[0]!.counterfactual, 'yes');
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - expected) < 1e-6, `X -> ${sample!.changes[0]!.to}, expected ${expected}`);
  assert.equal(out.results.C![0]!.prediction, 'yes');
  assert.equal(out.results.C![0]!.probabilities!.length, 2);
});

test('a categorical lever is enumerated: switching G from a to b adds 3 to Y', async () => {
  const model: CbnModel = {
    nodes: [
      { name: 'G', kind: 'categorical', parents: [], categories: ['a', 'b'], marginal: [0.5, 0.5] },
      { name: 'Y', kind: 'continuous', parents: ['G'], terms: [{ kind: 'indicator', parents: ['G'], category: 'b' }], intercept: 1, coefficients: [3], noiseStd: 1, residualQuantiles: [], mean: 2.5, std: 1.8 },
    ],
  };
  const out = await runCounterfactual(model, { type: 'counterfactual', samples: [{ G: 'a', Y: 1.2 }], targets: [{ variable: 'Y', value: 3, matchMode: 'orMore' }] }, context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  assert.deepEqual(sample!.changes, [{ variable: 'G', from: 'a', to: 'b' }]);
  assert.ok(Math.abs((sample!.targets[0]!.counterfactual as number) - 4.2) < 1e-9);
});

test('on a model fitted from data the answer matches the true SCM closed form within 5%', async () => {
  // Truth: X ~ N(0,1), M = 2X + N(0,1), Y = M + 0.5X + N(0,1); a unit at X = 0.5, M = 1.5, Y = 2 wants Y = 6.
  const rng = new Rng(3);
  const x: number[] = [];
  const m: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < 5000; i++) {
    x.push(rng.normal());
    m.push(2 * x[i]! + rng.normal());
    y.push(m[i]! + 0.5 * x[i]! + rng.normal());
  }
  const frame = frameOf([continuousColumn('X', x), continuousColumn('M', m), continuousColumn('Y', y)]);
  const model = fitCbn(frame, [{ source: 'X', target: 'M' }, { source: 'M', target: 'Y' }, { source: 'X', target: 'Y' }], {}, kernels);
  const out = await runCounterfactual(model, { type: 'counterfactual', samples: [{ X: 0.5, M: 1.5, Y: 2 }], targets: [{ variable: 'Y', value: 6 }] }, context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  assert.equal(sample!.changes[0]!.variable, 'X');
  const truth = 0.5 + 4 / 2.5;
  assert.ok(Math.abs((sample!.changes[0]!.to as number) - truth) / truth < 0.05, `X -> ${sample!.changes[0]!.to}, truth ${truth}`);
});

test('an unknown target or constraint variable is refused', async () => {
  await assert.rejects(runCounterfactual(chain, scenario({ targets: [{ variable: 'Q', value: 1 }] }), context), /not a variable/);
  await assert.rejects(runCounterfactual(chain, scenario({ constraints: { Q: { type: 'fixed' } } }), context), /not a variable/);
});

test('progress is reported as samples are answered and an abort stops the search', async () => {
  const fractions: number[] = [];
  await runCounterfactual(chain, scenario({ samples: [{ X: 1, Z: 0, M: 2.5, Y: 4 }, { X: 0, Z: 1, M: 0, Y: 1 }] }), { ...context, hooks: { progress: (f) => fractions.push(f) } });
  assert.equal(fractions[0], 0);
  assert.equal(fractions.at(-1), 1);
  assert.ok(fractions.every((f, i) => i === 0 || f >= fractions[i - 1]!), JSON.stringify(fractions));
  await assert.rejects(runCounterfactual(chain, scenario({}), { ...context, hooks: { aborted: () => true } }), (e: Error) => e.name === 'AbortError');
});

test('two curved targets are met jointly by Newton steps: M = X1^2 + e to 5 and Y = X2 + e to 3', async () => {
  const model: CbnModel = {
    nodes: [
      linear('X1', [], [], 1, 1),
      linear('X2', [], [], 1, 1),
      { name: 'M', kind: 'continuous', parents: ['X1'], terms: [{ kind: 'square', parents: ['X1'] }], intercept: 0, coefficients: [1], noiseStd: 1, residualQuantiles: [], mean: 1, std: 1.7 },
      linear('Y', ['X2'], [1], 1, 1.4),
    ],
  };
  // Abducted noise: M = 1 + 0.5 (X1 = 1), Y = 0.5 + 0.2 (X2 = 0.5); so X1 = sqrt(5 - 0.5), X2 = 3 - 0.2.
  const out = await runCounterfactual(model, {
    type: 'counterfactual', samples: [{ X1: 1, X2: 0.5, M: 1.5, Y: 0.7 }], targets: [{ variable: 'M', value: 5 }, { variable: 'Y', value: 3 }],
  }, context);
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  const to = Object.fromEntries(sample!.changes.map((c) => [c.variable, c.to as number]));
  assert.ok(Math.abs(to.X1! - Math.sqrt(4.5)) < 1e-6 && Math.abs(to.X2! - 2.8) < 1e-6, JSON.stringify(to));
});

test('a categorical target out of one lever\'s reach is met by two levers on its boundary: 2 X1 + 2 X2 - 12 = logit(1 - u)', async () => {
  const model: CbnModel = {
    nodes: [
      linear('X1', [], [], 1, 1),
      linear('X2', [], [], 1, 1),
      { name: 'C', kind: 'categorical', parents: ['X1', 'X2'], categories: ['no', 'yes'], marginal: [0.5, 0.5], logistic: { terms: [{ kind: 'linear', parents: ['X1'] }, { kind: 'linear', parents: ['X2'] }], weights: [[0, 0, 0], [-12, 2, 2]] } },
    ],
  };
  const samples = [{ X1: 0, X2: 0, C: 'no' }];
  const out = await runCounterfactual(model, { type: 'counterfactual', samples, targets: [{ variable: 'C', value: 'yes' }] }, context);
  const scm = compileScm(model);
  const u = abductNeutral(scm, frameFromRecords(scm, samples), context.seed)[2]![0]!;
  const [sample] = samplesOf(out.details);
  assert.equal(sample!.achieved, true);
  const to = Object.fromEntries(sample!.changes.map((c) => [c.variable, c.to as number]));
  assert.deepEqual(Object.keys(to).sort(), ['X1', 'X2']);
  const margin = 2 * to.X1! + 2 * to.X2! - 12 - Math.log((1 - u) / u);
  assert.ok(margin >= 0 && margin < 1e-4, `margin ${margin}`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { runPrediction } from '../../../../src/engine/inference/prediction.js';
import { predictByWeighting } from '../../../../src/engine/inference/prediction-weighting.js';
import { compileScm, frameFromRecords } from '../../../../src/engine/inference/scm.js';
import { Rng } from '../../../../src/engine/random.js';
import { modelEdges, randomModel, sampleModel } from '../../../../src/engine/simulate.js';
import type { InferenceContext, ResultRecord } from '../../../../src/engine/inference/outcome.js';
import type { CbnModel, NodeModel } from '../../../../src/engine/types.js';
import { AppError } from '../../../../src/errors.js';

type Continuous = Extract<NodeModel, { kind: 'continuous' }>;

const context: InferenceContext = { seed: 3, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics in prediction')) };

function linear(name: string, intercept: number, parents: [string, number][], noiseStd: number): Continuous {
  return {
    name, kind: 'continuous', parents: parents.map(([p]) => p), terms: parents.map(([p]) => ({ kind: 'linear', parents: [p] })),
    intercept, coefficients: parents.map(([, b]) => b), noiseStd, residualQuantiles: [], mean: 0, std: 1,
  };
}

/** X ~ N(0, 1); Y = 2X + N(0, 1); Z = Y + N(0, 1). */
const chain: CbnModel = { nodes: [linear('X', 0, [], 1), linear('Y', 0, [['X', 2]], 1), linear('Z', 0, [['Y', 1]], 1)] };

const near = (actual: number, expected: number, tolerance: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} vs ${expected} (tolerance ${tolerance})`);

test('a linear-Gaussian twin conditions exactly on ancestors and descendants, row by row', async () => {
  const out = await runPrediction(chain, {
    type: 'prediction', targetVars: ['X', 'Y'],
    sample: [{ Z: 3 }, { X: 1, Z: 4 }, { Z: null, Y: 100 }, {}],
  }, context);
  assert.equal(out.details.method, 'gaussian_conditioning');
  const [x, y] = [out.results.X!, out.results.Y!];
  assert.equal(x.length, 4);
  // Row 0: Var Z = 6, Cov(X, Z) = 2 -> X | Z ~ N(z / 3, 1/3); Cov(Y, Z) = 5 -> Y | Z ~ N(5z / 6, 5 - 25/6).
  near(x[0]!.prediction as number, 1, 1e-9, 'E[X | Z=3]');
  near(x[0]!.std!, Math.sqrt(1 / 3), 1e-9, 'sd[X | Z]');
  near(y[0]!.prediction as number, 2.5, 1e-9, 'E[Y | Z=3]');
  near(y[0]!.std!, Math.sqrt(5 / 6), 1e-9, 'sd[Y | Z]');
  near(x[0]!.lowerBound as number, 1 - 1.959964 * Math.sqrt(1 / 3), 1e-5, '95% lower bound');
  // Row 1: X is a target, so its provided value is ignored: the same law as row 0 at z = 4.
  near(x[1]!.prediction as number, 4 / 3, 1e-9, 'E[X | Z=4], provided X ignored');
  // Row 2: a provided target (Y) is no evidence and Z is null: the prior.
  near(y[2]!.prediction as number, 0, 1e-9, 'E[Y] with nothing observed');
  near(y[2]!.std!, Math.sqrt(5), 1e-9, 'sd[Y]');
  near(x[3]!.std!, 1, 1e-9, 'sd[X] of an empty row');
  assert.equal(x[0]!.timestamp, null);
  assert.equal(x[0]!.confidenceLevel, 0.95);
  assert.ok(out.summary.summary.startsWith('Predicted X, Y for 4 rows'));
  assert.ok(out.summary.keyPoints.length >= 2 && out.summary.keyPoints.length <= 5);
});

test('the confidence level sets the width of the bounds', async () => {
  const out = await runPrediction(chain, { type: 'prediction', targetVars: ['Y'], sample: [{ X: 1 }], confidenceLevel: 0.8 }, context);
  const r = out.results.Y![0]!;
  near(r.prediction as number, 2, 1e-9, 'E[Y | X=1]');
  near((r.upperBound as number) - (r.prediction as number), 1.281552, 1e-5, '80% half-width');
});

/** G in {a, b} (P(b) = 0.3) -> Y = 1 + 2 [G = b] + N(0, 1) -> H in {no, yes} with P(yes) = sigmoid(Y - 2). */
const mixed: CbnModel = {
  nodes: [
    { name: 'G', kind: 'categorical', parents: [], categories: ['a', 'b'], marginal: [0.7, 0.3], cpt: { parentCategories: [], table: [[0.7, 0.3]] } },
    { name: 'Y', kind: 'continuous', parents: ['G'], terms: [{ kind: 'indicator', parents: ['G'], category: 'b' }], intercept: 1, coefficients: [2],
      noiseStd: 1, residualQuantiles: [], mean: 1.6, std: 1.3 },
    { name: 'H', kind: 'categorical', parents: ['Y'], categories: ['no', 'yes'], marginal: [0.5, 0.5],
      logistic: { terms: [{ kind: 'linear', parents: ['Y'] }], weights: [[0, 0], [-2, 1]] } },
  ],
};
const phi = (x: number) => Math.exp(-0.5 * x * x);

test('likelihood weighting recovers the exact posterior of a categorical cause from a continuous effect', async () => {
  const ys = [0, 2, 3.5];
  const out = await runPrediction(mixed, { type: 'prediction', targetVars: ['G'], sample: ys.map((Y) => ({ Y })) }, context);
  assert.equal(out.details.method, 'likelihood_weighting');
  ys.forEach((y, r) => {
    const pb = (0.3 * phi(y - 3)) / (0.3 * phi(y - 3) + 0.7 * phi(y - 1));
    const rec = out.results.G![r]!;
    assert.deepEqual(rec.categories, ['a', 'b']);
    near(rec.probabilities![1]!, pb, 0.02, `P(G=b | Y=${y})`);
    assert.equal(rec.prediction, pb > 0.5 ? 'b' : 'a');
    const [lo, hi] = [rec.lowerBound as number[], rec.upperBound as number[]];
    assert.ok(lo[1]! <= rec.probabilities![1]! && rec.probabilities![1]! <= hi[1]!, 'the bounds hold the estimate');
    assert.ok(hi[1]! - lo[1]! < 0.1, 'the bounds narrow with thousands of particles');
  });
});

test('likelihood weighting predicts a continuous target between a categorical cause and a categorical effect', async () => {
  const out = await runPrediction(mixed, { type: 'prediction', targetVars: ['Y'], sample: [{ G: 'b' }, { G: 'a', H: 'yes' }] }, context);
  const [given, both] = out.results.Y!;
  near(given!.prediction as number, 3, 0.05, 'E[Y | G=b]');
  near(given!.std!, 1, 0.05, 'sd[Y | G=b]');
  near(given!.lowerBound as number, 3 - 1.96, 0.1, 'lower 2.5% quantile');
  // E[Y | G=a, H=yes] by numerical integration of N(y; 1, 1) sigmoid(y - 2).
  let num = 0;
  let den = 0;
  for (let y = -8; y <= 10; y += 0.001) {
    const w = phi(y - 1) / (1 + Math.exp(2 - y));
    num += w * y;
    den += w;
  }
  near(both!.prediction as number, num / den, 0.05, 'E[Y | G=a, H=yes]');
});

test('impossible questions are refused with a validation problem', async () => {
  await assert.rejects(runPrediction(chain, { type: 'prediction', targetVars: ['Q'], sample: [{}] }, context), (e) => e instanceof AppError && e.status === 422);
  await assert.rejects(runPrediction(chain, { type: 'prediction', targetVars: [], sample: [{}] }, context), AppError);
  await assert.rejects(runPrediction(chain, { type: 'prediction', targetVars: ['X'], sample: [{}], confidenceLevel: 1.5 }, context), AppError);
});

test('the same seed gives the same weighted predictions', async () => {
  const scenario = { type: 'prediction' as const, targetVars: ['G'], sample: [{ Y: 2 }] };
  const a = await runPrediction(mixed, scenario, context);
  const b = await runPrediction(mixed, scenario, context);
  assert.deepEqual(a.results, b.results);
});

/** P(target | evidence) by summing the full joint of a small discrete model (the definition, for checking). */
function enumerate(model: CbnModel, target: number, evidence: Map<number, number>): number[] {
  const nodes = model.nodes as Extract<NodeModel, { kind: 'categorical' }>[];
  const index = new Map(nodes.map((n, i) => [n.name, i]));
  const cards = nodes.map((n) => n.categories.length);
  const out = new Array<number>(cards[target]!).fill(0);
  const assignment = new Array<number>(nodes.length).fill(0);
  const total = cards.reduce((a, b) => a * b, 1);
  for (let flat = 0; flat < total; flat++) {
    let rest = flat;
    for (let i = nodes.length - 1; i >= 0; i--) {
      assignment[i] = rest % cards[i]!;
      rest = Math.floor(rest / cards[i]!);
    }
    if ([...evidence].some(([i, c]) => assignment[i] !== c)) continue;
    let p = 1;
    nodes.forEach((n, i) => {
      const config = n.parents.reduce((acc, name) => acc * cards[index.get(name)!]! + assignment[index.get(name)!]!, 0);
      p *= (n.cpt ? n.cpt.table[config]! : n.marginal)[assignment[i]!]!;
    });
    out[assignment[target]!]! += p;
  }
  const sum = out.reduce((a, b) => a + b, 0);
  return out.map((v) => v / sum);
}

test('a discrete twin answers exactly by variable elimination, and likelihood weighting agrees', async () => {
  const truth = randomModel(7, 2.5, 21, { categoricalShare: 1, maxLevels: 3 });
  const model = fitCbn(sampleModel(truth, 3000, 22), modelEdges(truth), {}, kernels);
  const [target, a, b] = [model.nodes[2]!.name, model.nodes[0]!.name, model.nodes[6]!.name];
  const catsOf = (name: string) => (model.nodes.find((n) => n.name === name) as Extract<NodeModel, { kind: 'categorical' }>).categories;
  const sample = [{}, { [a]: catsOf(a)[0]! }, { [a]: catsOf(a)[1]!, [b]: catsOf(b)[0]! }, { [b]: catsOf(b)[1]! }];
  const out = await runPrediction(model, { type: 'prediction', targetVars: [target], sample }, context);
  assert.equal(out.details.method, 'variable_elimination');
  const ti = model.nodes.findIndex((n) => n.name === target);
  // Likelihood weighting on the same model (called directly: runPrediction picks the exact method).
  const scm = compileScm(model);
  const frame = frameFromRecords(scm, sample);
  const weighted = new Map([[ti, new Array<ResultRecord>(sample.length)]]);
  sample.forEach((row, r) => {
    const observed = Object.keys(row).map((name) => scm.indexOf(name));
    predictByWeighting({ scm, frame, rows: [r], observed, targets: [ti], particles: 20_000, z: 1.96, confidenceLevel: 0.95, rng: new Rng(r), hooks: {} }, weighted);
  });
  sample.forEach((row, r) => {
    const evidence = new Map(Object.entries(row).map(([name, label]) => {
      const i = model.nodes.findIndex((n) => n.name === name);
      return [i, catsOf(name).indexOf(label)];
    }));
    const exact = enumerate(model, ti, evidence);
    const record = out.results[target]![r]!;
    record.probabilities!.forEach((p, k) => near(p, exact[k]!, 1e-12, `row ${r} class ${k}`));
    assert.deepEqual(record.lowerBound, record.probabilities);
    const tv = 0.5 * exact.reduce((t, p, k) => t + Math.abs(p - weighted.get(ti)![r]!.probabilities![k]!), 0);
    assert.ok(tv < 0.02, `row ${r}: likelihood weighting is ${tv} in total variation from exact`);
  });
});

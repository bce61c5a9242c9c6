import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { AbortError } from '../../../../src/engine/discovery/budget.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../../src/engine/frame.js';
import { conditionMask } from '../../../../src/engine/inference/conditions.js';
import type { VariableEffect } from '../../../../src/engine/inference/intervention-effects.js';
import type { MetricEffect } from '../../../../src/engine/inference/intervention-metrics.js';
import { runIntervention } from '../../../../src/engine/inference/intervention.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import type { Condition, InterventionScenario } from '../../../../src/engine/inference/scenario.js';
import { compileScm } from '../../../../src/engine/inference/scm.js';
import { Rng } from '../../../../src/engine/random.js';
import { type SimulatedModel, modelEdges, randomModel, sampleModel, totalEffects } from '../../../../src/engine/simulate.js';
import type { CbnModel, Frame } from '../../../../src/engine/types.js';
import { AppError } from '../../../../src/errors.js';

/** A stand-in for the service's SQL engine: `AVG(col)` or `AVG(CASE WHEN col = 'label' ...)` over the frame. */
function fakeContext(seed: number, calls: { n: number } = { n: 0 }, hooks: InferenceContext['hooks'] = {}): InferenceContext {
  return {
    seed, hooks,
    evaluateMetric: async (frame: Frame, sql: string) => {
      calls.n++;
      const share = /AVG\(CASE WHEN (\w+) = '(\w+)'/i.exec(sql);
      const column = frame.columns.find((c) => c.name === (share ? share[1] : /AVG\((\w+)\)/i.exec(sql)?.[1]));
      if (!column) throw new Error(`cannot evaluate ${sql}`);
      let sum = 0;
      for (let r = 0; r < frame.nRows; r++) {
        if (column.kind === 'continuous') sum += column.values[r]!;
        else if (share) sum += column.categories[column.codes[r]!] === share[2] ? 1 : 0;
        else throw new Error('averaging a text column');
      }
      return sum / frame.nRows;
    },
  };
}


/** The ordered pair with the largest total effect. */
function strongestPair(truth: SimulatedModel): { x: string; y: string; effect: number } | null {
  let best: { x: string; y: string; effect: number } | null = null;
  truth.nodes.forEach((nx, x) => totalEffects(truth, x).forEach((e, y) => {
    if (y !== x && e !== 0 && (!best || Math.abs(e) > Math.abs(best.effect))) best = { x: nx.name, y: truth.nodes[y]!.name, effect: e };
  }));
  return best;
}

const shift = (variable: string, value: number): InterventionScenario['interventions'][number] => ({ variable, valueSpec: { type: 'relative_change', mode: 'absolute', value } });
const variables = (details: Record<string, unknown>) => details.variables as VariableEffect[];
const continuousEffect = (v: VariableEffect) => v.effect as { difference: number; lowerBound: number; upperBound: number; relativeChange: number | null };

test('a +1 shift on a linear SCM moves the strongest descendant by its true total effect (within 5%)', async () => {
  for (const seed of [1, 2, 3]) {
    const truth = randomModel(8, 2.5, 100 + seed);
    const pair = strongestPair(truth)!;
    const model = fitCbn(sampleModel(truth, 5000, 200 + seed), modelEdges(truth), {}, kernels);
    const out = await runIntervention(model, { type: 'intervention', interventions: [shift(pair.x, 1)], targetVars: [pair.y] }, fakeContext(seed));
    const e = continuousEffect(variables(out.details)[0]!);
    const relative = Math.abs(e.difference - pair.effect) / Math.abs(pair.effect);
    assert.ok(relative <= 0.05, `seed ${seed}: ${pair.x} -> ${pair.y} effect ${e.difference} vs truth ${pair.effect}`);
    assert.ok(e.lowerBound < e.difference && e.difference < e.upperBound);
  }
});

test('effect intervals carry parameter uncertainty: 95% intervals cover the true effect in most of 50 seeds', async () => {
  let covered = 0;
  let runs = 0;
  for (let seed = 1; seed <= 50; seed++) {
    const truth = randomModel(6, 2, 1000 + seed);
    const pair = strongestPair(truth);
    if (!pair) continue;
    const model = fitCbn(sampleModel(truth, 2000, 2000 + seed), modelEdges(truth), {}, kernels);
    const out = await runIntervention(model, { type: 'intervention', interventions: [shift(pair.x, 1)], targetVars: [pair.y], samples: 1000 }, fakeContext(seed));
    const e = continuousEffect(variables(out.details)[0]!);
    runs++;
    if (e.lowerBound <= pair.effect && pair.effect <= e.upperBound) covered++;
  }
  const coverage = covered / runs;
  assert.ok(runs >= 45 && coverage >= 0.85 && coverage <= 1, `coverage ${coverage} over ${runs} seeds`);
});

test('without the fit\'s uncertainty statistics an old model still runs, with Monte Carlo intervals only', async () => {
  const truth = randomModel(5, 2, 7);
  const pair = strongestPair(truth)!;
  const fitted = fitCbn(sampleModel(truth, 2000, 8), modelEdges(truth), {}, kernels);
  const old: CbnModel = JSON.parse(JSON.stringify(fitted, (key, value) => (key === 'coefficientCovariance' || key === 'rowCounts' ? undefined : value)));
  const scenario: InterventionScenario = { type: 'intervention', interventions: [shift(pair.x, 1)], targetVars: [pair.y] };
  const before = await runIntervention(old, scenario, fakeContext(1));
  const after = await runIntervention(fitted, scenario, fakeContext(1));
  assert.equal(before.details.parameterDraws, 0);
  assert.equal(after.details.parameterDraws, 30);
  const [a, b] = [continuousEffect(variables(before.details)[0]!), continuousEffect(variables(after.details)[0]!)];
  assert.equal(a.difference, b.difference, 'the point estimate is the fitted model\'s');
  // Common random numbers make a linear effect exact per unit: no Monte Carlo width at all.
  assert.ok(a.upperBound - a.lowerBound < 1e-9 && b.upperBound - b.lowerBound > 0.01);
});

/** Z -> X, Z -> Y, X -> Y: confounded, with exact P(Y | do(X)) = sum_z P(z) P(Y | X, z). */
const pz = [0.6, 0.4];
const px = [[0.8, 0.1, 0.1], [0.2, 0.3, 0.5]];
const py = [[[0.9, 0.1], [0.3, 0.7]], [[0.6, 0.4], [0.2, 0.8]], [[0.5, 0.5], [0.1, 0.9]]];
function draw(rng: Rng, p: number[]): number {
  let u = rng.uniform();
  for (let k = 0; k < p.length - 1; k++) if ((u -= p[k]!) < 0) return k;
  return p.length - 1;
}
function discreteFrame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const z: string[] = [];
  const x: string[] = [];
  const y: string[] = [];
  for (let i = 0; i < n; i++) {
    const zi = draw(rng, pz);
    const xi = draw(rng, px[zi]!);
    z.push(`z${zi}`);
    x.push(`x${xi}`);
    y.push(`y${draw(rng, py[xi]![zi]!)}`);
  }
  return frameOf([categoricalColumn('Z', z, ['z0', 'z1']), categoricalColumn('X', x, ['x0', 'x1', 'x2']), categoricalColumn('Y', y, ['y0', 'y1'])]);
}
const discreteEdges = [{ source: 'Z', target: 'X' }, { source: 'Z', target: 'Y' }, { source: 'X', target: 'Y' }];

test('P(Y | do(X)) on a confounded discrete network matches enumeration within 0.02 total variation', async () => {
  const model = fitCbn(discreteFrame(10_000, 5), discreteEdges, {}, kernels);
  for (const x of [0, 1, 2]) {
    const out = await runIntervention(model, {
      type: 'intervention', interventions: [{ variable: 'X', valueSpec: { type: 'set_value', value: `x${x}` } }], targetVars: ['Y'], samples: 20_000,
    }, fakeContext(x + 1));
    const exact = [0, 1].map((y) => pz.reduce((s, p, z) => s + p * py[x]![z]![y]!, 0));
    const record = out.results.Y![0]!;
    assert.deepEqual(record.categories, ['y0', 'y1']);
    const tv = 0.5 * exact.reduce((s, p, y) => s + Math.abs(p - record.probabilities![y]!), 0);
    assert.ok(tv <= 0.02, `do(X=x${x}): TV ${tv} (${record.probabilities} vs ${exact})`);
    const lo = record.lowerBound as number[];
    const hi = record.upperBound as number[];
    assert.ok(lo[1]! < record.probabilities![1]! && record.probabilities![1]! < hi[1]!);
  }
});

test('probability valueSpecs reshape a categorical variable\'s distribution as specified', async () => {
  const model = fitCbn(discreteFrame(10_000, 6), discreteEdges, {}, kernels);
  const run = async (valueSpec: InterventionScenario['interventions'][number]['valueSpec']) =>
    (await runIntervention(model, { type: 'intervention', interventions: [{ variable: 'X', valueSpec }], targetVars: ['X'] }, fakeContext(9))).results.X![0]!.probabilities!;
  const base = variables((await runIntervention(model, { type: 'intervention', interventions: [{ variable: 'X', valueSpec: { type: 'adjust_probability', category: 'x1', delta: 0 } }], targetVars: ['X'] }, fakeContext(9))).details)[0]!.baseline.probabilities!;
  const set = await run({ type: 'set_probability', category: 'x2', probability: 0.5 });
  assert.ok(Math.abs(set[2]! - 0.5) < 0.015, `P(x2) ${set[2]}`);
  // Per unit the others keep their proportions: P(x0) = 0.5 E_z[p(x0 | z) / (p(x0 | z) + p(x1 | z))].
  const x0 = 0.5 * pz.reduce((s, p, z) => s + (p * px[z]![0]!) / (px[z]![0]! + px[z]![1]!), 0);
  assert.ok(Math.abs(set[0]! - x0) < 0.02, `P(x0) ${set[0]} vs ${x0}`);
  const adjusted = await run({ type: 'adjust_probability', category: 'x0', delta: 10 });
  assert.ok(Math.abs(adjusted[0]! - base[0]! - 0.1) < 0.015, `P(x0) ${base[0]} -> ${adjusted[0]}`);
  const included = await run({ type: 'set_members', include: ['x0', 'x1'] });
  assert.equal(included[2], 0);
  const excluded = await run({ type: 'set_members', exclude: ['x0'] });
  assert.equal(excluded[0], 0);
  // size keeps the most likely categories by the model's marginal (x0 is the commonest here).
  const sized = await run({ type: 'set_members', size: 1 });
  assert.deepEqual(sized, [1, 0, 0]);
  await assert.rejects(run({ type: 'set_members', include: ['x9'] }), AppError);
  await assert.rejects(run({ type: 'relative_change', mode: 'percentage', value: 10 }), /categorical/);
  await assert.rejects(run({ type: 'set_probability', category: 'x1', probability: 2 }), AppError);
});

/** X ~ N(10, 1); Y = 2X + N(0, 1); G in {lo, hi} by a threshold-like logistic on Y (for conditions). */
function linearTwin(): CbnModel {
  const rng = new Rng(41);
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < 4000; i++) {
    x.push(10 + rng.normal());
    y.push(2 * x[i]! + rng.normal());
  }
  const frame = frameOf([{ name: 'X', kind: 'continuous', values: Float64Array.from(x) }, { name: 'Y', kind: 'continuous', values: Float64Array.from(y) }]);
  return fitCbn(frame, [{ source: 'X', target: 'Y' }], {}, kernels);
}

test('conditions select units on their baseline values; other units keep theirs', async () => {
  const model = linearTwin();
  const out = await runIntervention(model, {
    type: 'intervention', samples: 20_000,
    interventions: [{ variable: 'X', valueSpec: { type: 'relative_change', mode: 'percentage', value: 10 }, conditions: [{ variable: 'X', operator: 'gt', value: 10 }] }],
  }, fakeContext(4));
  const [x, y] = variables(out.details);
  assert.deepEqual([x!.variable, y!.variable], ['X', 'Y']);
  // E[X; X > 10] * 10% = 0.1 * (10 P(X > 10) + phi(0)) with X ~ N(10, 1) (fitted, so roughly).
  const expected = 0.1 * (10 * 0.5 + 1 / Math.sqrt(2 * Math.PI));
  assert.ok(Math.abs(continuousEffect(x!).difference - expected) < 0.03, `effect on X ${continuousEffect(x!).difference} vs ${expected}`);
  assert.ok(Math.abs(continuousEffect(y!).difference - 2 * expected) < 0.08, `effect on Y ${continuousEffect(y!).difference}`);
  assert.match(out.summary.summary, /X changed by \+10% where X > 10 \(5\d(\.\d)?% of units\)/);
});

test('a range sweeps its grid: one curve per metric and per outcome, the effects at its last point', async () => {
  const model = linearTwin();
  const calls = { n: 0 };
  const progress: number[] = [];
  const out = await runIntervention(model, {
    type: 'intervention', samples: 5000,
    interventions: [{ variable: 'X', valueSpec: { type: 'range', from: 8, to: 12, steps: 5 } }],
    metrics: [{ name: 'mean Y', sqlQuery: 'SELECT AVG(Y) AS value FROM df', unit: 'units', higherIsBetter: false }],
  }, fakeContext(5, calls, { progress: (f) => progress.push(f) }));
  const sweep = out.sweep!;
  assert.equal(sweep.variable, 'X');
  assert.equal(sweep.steps, 5);
  assert.deepEqual(sweep.curves.map((c) => c.metric), ['mean Y', 'X', 'Y']);
  const y = sweep.curves.find((c) => c.metric === 'Y')!;
  assert.deepEqual(y.points.map((p) => p.value), [8, 9, 10, 11, 12]);
  const slope = model.nodes[1]!.kind === 'continuous' ? model.nodes[1]!.coefficients[0]! : Number.NaN;
  for (let k = 1; k < 5; k++) assert.ok(Math.abs(y.points[k]!.mean - y.points[k - 1]!.mean - slope) < 1e-9, 'the dose-response slope is the fitted one');
  for (const p of y.points) assert.ok(p.lowerBound < p.mean && p.mean < p.upperBound && p.std > 0);
  const metricCurve = sweep.curves[0]!;
  assert.equal(metricCurve.unit, 'units');
  for (let k = 0; k < 5; k++) assert.ok(Math.abs(metricCurve.points[k]!.mean - y.points[k]!.mean) < 1e-9, 'the metric is the mean of Y');
  assert.equal((out.details.grid as unknown[]).length, 5);
  const metric = (out.details.metrics as MetricEffect[])[0]!;
  assert.equal(metric.improved, metric.difference < 0);
  assert.ok(calls.n <= 200, `${calls.n} metric calls`);
  assert.ok(progress.length >= 5 && progress[progress.length - 1] === 1);
  assert.equal(out.results.Y![0]!.prediction, y.points[4]!.mean);
});

test('metrics are evaluated on the sampled frames with an interval around the paired difference', async () => {
  const model = linearTwin();
  const calls = { n: 0 };
  const out = await runIntervention(model, {
    type: 'intervention', interventions: [shift('X', 1)],
    metrics: [{ name: 'avg Y', sqlQuery: 'SELECT AVG(Y) AS value FROM df' }],
  }, fakeContext(6, calls));
  const metric = (out.details.metrics as MetricEffect[])[0]!;
  const y = variables(out.details).find((v) => v.variable === 'Y')!;
  assert.ok(Math.abs(metric.difference - continuousEffect(y).difference) < 1e-9);
  assert.ok(Math.abs(metric.baseline - y.baseline.mean!) < 1e-9);
  assert.ok(metric.lowerBound < 2 && 2 < metric.upperBound, `interval ${metric.lowerBound}..${metric.upperBound} holds the true effect 2`);
  assert.equal(metric.improved, true);
  assert.ok(calls.n <= 42, `${calls.n} metric calls`);
  assert.ok(out.summary.keyPoints.some((k) => k.startsWith('avg Y:')));
});

test('impossible scenarios are refused and an abort stops the run', async () => {
  const model = linearTwin();
  const run = (scenario: Omit<InterventionScenario, 'type'>, context = fakeContext(1)) => runIntervention(model, { type: 'intervention', ...scenario }, context);
  const range = { type: 'range' as const, from: 0, to: 1, steps: 3 };
  await assert.rejects(run({ interventions: [{ variable: 'X', valueSpec: range }, { variable: 'Y', valueSpec: range }] }), /at most one range/);
  await assert.rejects(run({ interventions: [{ variable: 'Q', valueSpec: { type: 'set_value', value: 1 } }] }), (e) => e instanceof AppError && e.status === 422);
  await assert.rejects(run({ interventions: [{ variable: 'X', valueSpec: { type: 'set_value', value: 'ten' } }] }), AppError);
  await assert.rejects(run({ interventions: [] }), AppError);
  await assert.rejects(run({ interventions: [shift('X', 1)], targetVars: ['nope'] }), AppError);
  await assert.rejects(run({ interventions: [shift('X', 1)] }, fakeContext(1, { n: 0 }, { aborted: () => true })), AbortError);
});

test('the same seed reproduces a run', async () => {
  const model = linearTwin();
  const scenario: InterventionScenario = { type: 'intervention', interventions: [{ variable: 'X', valueSpec: { type: 'set_value', value: 11 } }], samples: 2000 };
  assert.deepEqual(await runIntervention(model, scenario, fakeContext(8)), await runIntervention(model, scenario, fakeContext(8)));
});

test('the eight condition operators select rows by number or label; a missing cell satisfies none', () => {
  const frame = frameOf([continuousColumn('X', [1, 2, 3, null]), categoricalColumn('G', ['a', 'b', null, 'c'], ['a', 'b', 'c']), categoricalColumn('R', ['1', '5', '3', '2'], ['1', '2', '3', '5'])]);
  const scm = compileScm({ nodes: frame.columns.map((c) => c.kind === 'continuous'
    ? { name: c.name, kind: 'continuous', parents: [], terms: [], intercept: 0, coefficients: [], noiseStd: 1, residualQuantiles: [], mean: 0, std: 1 }
    : { name: c.name, kind: 'categorical', parents: [], categories: c.categories, marginal: c.categories.map(() => 1 / c.categories.length) }) });
  const mask = (...conditions: Condition[]) => Array.from(conditionMask(frame, scm, conditions));
  assert.deepEqual(mask({ variable: 'X', operator: 'eq', value: 2 }), [0, 1, 0, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'ne', value: 2 }), [1, 0, 1, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'gt', value: 1 }), [0, 1, 1, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'ge', value: 2 }), [0, 1, 1, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'lt', value: 3 }), [1, 1, 0, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'le', value: 1 }), [1, 0, 0, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'in', value: [1, 3] }), [1, 0, 1, 0]);
  assert.deepEqual(mask({ variable: 'X', operator: 'not_in', value: [1, 3] }), [0, 1, 0, 0]);
  assert.deepEqual(mask({ variable: 'G', operator: 'eq', value: 'b' }), [0, 1, 0, 0]);
  assert.deepEqual(mask({ variable: 'G', operator: 'ne', value: 'b' }), [1, 0, 0, 1]);
  assert.deepEqual(mask({ variable: 'G', operator: 'in', value: ['a', 'c'] }), [1, 0, 0, 1]);
  assert.deepEqual(mask({ variable: 'G', operator: 'not_in', value: ['a'] }), [0, 1, 0, 1]);
  assert.deepEqual(mask({ variable: 'R', operator: 'ge', value: 3 }), [0, 1, 1, 0], 'numeric labels order numerically');
  assert.deepEqual(mask({ variable: 'X', operator: 'gt', value: 1 }, { variable: 'G', operator: 'eq', value: 'b' }), [0, 1, 0, 0], 'conditions combine with AND');
  assert.deepEqual(mask(), [1, 1, 1, 1]);
  assert.throws(() => mask({ variable: 'G', operator: 'gt', value: 'a' }), AppError);
  assert.throws(() => mask({ variable: 'G', operator: 'eq', value: 'zzz' }), /no category/);
  assert.throws(() => mask({ variable: 'X', operator: 'eq', value: 'two' }), AppError);
  assert.throws(() => mask({ variable: 'Q', operator: 'eq', value: 1 }), AppError);
});

test('set_value fixes a category for the selected units only', async () => {
  const model = fitCbn(discreteFrame(5000, 7), discreteEdges, {}, kernels);
  const out = await runIntervention(model, {
    type: 'intervention', samples: 10_000,
    interventions: [{ variable: 'X', valueSpec: { type: 'set_value', value: 'x2' }, conditions: [{ variable: 'Z', operator: 'eq', value: 'z1' }] }],
  }, fakeContext(10));
  const [x, y] = [out.results.X![0]!, out.results.Y![0]!];
  const baseline = variables(out.details).find((v) => v.variable === 'X')!.baseline.probabilities!;
  // Units with Z = z1 (about 40%) all take x2; the others keep their own: P(x2) = P(z1) + P(z0) p(x2 | z0).
  assert.ok(Math.abs(x.probabilities![2]! - (0.4 + 0.6 * 0.1)) < 0.03, `P(x2) ${x.probabilities![2]}`);
  assert.ok(baseline[2]! < x.probabilities![2]!);
  assert.ok(Math.abs(y.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-12, 'Y, a descendant, is reported');
});

test('the fit records the OLS coefficient covariance and each CPT row\'s training count', () => {
  const rng = new Rng(77);
  const x = Array.from({ length: 300 }, () => 5 + 2 * rng.normal());
  const frame = frameOf([continuousColumn('X', x), continuousColumn('Y', x.map((v) => 1 + 2 * v + rng.normal()))]);
  const y = fitCbn(frame, [{ source: 'X', target: 'Y' }], {}, kernels).nodes[1]! as Extract<CbnModel['nodes'][number], { kind: 'continuous' }>;
  // Simple regression: Var(b) = s^2 / Sxx, Var(a) = s^2 (1/n + mean^2 / Sxx), Cov(a, b) = -mean s^2 / Sxx.
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  const sxx = x.reduce((s, v) => s + (v - mean) ** 2, 0);
  const s2 = y.noiseStd ** 2;
  const expected = [s2 * (1 / x.length + (mean * mean) / sxx), (-mean * s2) / sxx, s2 / sxx];
  assert.equal(y.coefficientCovariance!.length, 3);
  y.coefficientCovariance!.forEach((c, i) => assert.ok(Math.abs(c - expected[i]!) < 1e-6 * Math.abs(expected[i]!), `entry ${i}: ${c} vs ${expected[i]}`));
  const discrete = fitCbn(discreteFrame(1000, 3), discreteEdges, { smoothing: 0.5 }, kernels);
  const cpt = discrete.nodes.find((n) => n.name === 'Y')!.kind === 'categorical' ? (discrete.nodes.find((n) => n.name === 'Y') as Extract<CbnModel['nodes'][number], { kind: 'categorical' }>).cpt : undefined;
  assert.equal(cpt!.rowCounts!.reduce((a, b) => a + b, 0), 1000);
  assert.equal(cpt!.smoothing, 0.5);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import type { Term } from '../../../../src/engine/cbn/design.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { EXPLANATION_SAMPLES, runExplanation } from '../../../../src/engine/inference/explanation.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import { compileScm, drawNoise, propagate } from '../../../../src/engine/inference/scm.js';
import { modelEdges, randomModel, sampleModel, type SimulatedModel } from '../../../../src/engine/simulate.js';
import type { CbnModel, Frame, NodeModel } from '../../../../src/engine/types.js';

const context: InferenceContext = { seed: 5, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics here')) };

const node = (name: string, terms: [Term, number][], intercept = 0): NodeModel => ({
  name, kind: 'continuous', parents: [...new Set(terms.flatMap(([t]) => t.parents))], terms: terms.map(([t]) => t), intercept,
  coefficients: terms.map(([, b]) => b), noiseStd: 1, residualQuantiles: [], mean: 0, std: 1,
});
const lin = (p: string) => ({ kind: 'linear' as const, parents: [p] });

/** The simulated population the runner uses (same seed and size), to compute exact expectations. */
function population(model: CbnModel): Frame {
  const scm = compileScm(model);
  return propagate(scm, drawNoise(scm, EXPLANATION_SAMPLES, context.seed));
}
const column = (frame: Frame, name: string) => {
  const c = frame.columns.find((x) => x.name === name)!;
  assert.ok(c.kind === 'continuous');
  return c.values;
};
const meanStd = (v: Float64Array) => {
  const mean = v.reduce((a, b) => a + b, 0) / v.length;
  return { mean, std: Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / (v.length - 1)) };
};

/** True total effects on `target` of every node: sums over directed paths of weight products. */
function trueTotalEffects(model: SimulatedModel, target: number): Map<number, number> {
  const effect = new Map<number, number>([[target, 1]]);
  const order = [...model.order].reverse();
  for (const j of order) {
    if (j === target) continue;
    let sum = 0;
    model.nodes.forEach((child, c) => {
      const t = child.parents.indexOf(j);
      if (t >= 0 && effect.has(c)) sum += child.weights[t]! * effect.get(c)!;
    });
    if (sum !== 0) effect.set(j, sum);
  }
  effect.delete(target);
  return effect;
}

interface Ranked { variable: string; effect: number; perUnit: number | null; share: number; direction: string; high?: string; low?: string }

/** Total effects on `target` in a fitted linear CBN: sums over paths of its fitted coefficient products. */
function fittedTotalEffects(model: CbnModel, target: string): Map<string, number> {
  const effect = new Map<string, number>([[target, 1]]);
  for (const n of [...model.nodes].reverse()) {
    if (n.name === target) continue;
    let sum = 0;
    for (const child of model.nodes) {
      if (child.kind !== 'continuous' || !effect.has(child.name)) continue;
      child.terms.forEach((t, i) => {
        if (t.kind === 'linear' && t.parents[0] === n.name) sum += child.coefficients[i]! * effect.get(child.name)!;
      });
    }
    if (sum !== 0) effect.set(n.name, sum);
  }
  effect.delete(target);
  return effect;
}

test('discovery on a fitted linear SCM: total effects per unit are the path sums of weight products (fitted: exact; true: within 5%)', async () => {
  const truth = randomModel(10, 3, 21);
  const data = sampleModel(truth, 20_000, 22);
  const model = fitCbn(data, modelEdges(truth), {}, kernels);
  // The effect variable: the node with the most ancestors in the truth.
  const effects = truth.nodes.map((_, j) => trueTotalEffects(truth, j));
  const target = effects.reduce((best, e, j) => (e.size > effects[best]!.size ? j : best), 0);
  const expected = effects[target]!;
  const fitted = fittedTotalEffects(model, truth.nodes[target]!.name);
  const out = await runExplanation(model, { type: 'explanation', explanationMode: 'discovery', effectVariable: truth.nodes[target]!.name }, context);
  const causes = out.details.causes as Ranked[];
  assert.equal(causes.length, expected.size);
  let compared = 0;
  for (const c of causes) {
    assert.ok(Math.abs(c.perUnit! - fitted.get(c.variable)!) < 1e-9, `${c.variable}: ${c.perUnit} vs fitted path sum ${fitted.get(c.variable)}`);
    const te = expected.get(truth.nodes.findIndex((n) => n.name === c.variable))!;
    // A small total effect made of large cancelling paths carries the fit's error of each path: judged from 0.5 up.
    if (Math.abs(te) < 0.5) continue;
    compared++;
    assert.ok(Math.abs(c.perUnit! - te) / Math.abs(te) <= 0.05, `${c.variable}: ${c.perUnit} vs true ${te}`);
  }
  assert.ok(compared >= 5, `${compared} causes compared with the truth`);
  // Ranked by |effect per std|, shares sum to 1.
  for (let i = 1; i < causes.length; i++) assert.ok(Math.abs(causes[i - 1]!.effect) >= Math.abs(causes[i]!.effect));
  assert.ok(Math.abs(causes.reduce((s, c) => s + c.share, 0) - 1) < 1e-9);
});

/** A, C roots; B = 1.5A + e; D = 0.6A - 0.8B + 2C + e; E = 0.5D + e. */
const linearModel: CbnModel = {
  nodes: [
    node('A', []), node('C', []),
    node('B', [[lin('A'), 1.5]]),
    node('D', [[lin('A'), 0.6], [lin('B'), -0.8], [lin('C'), 2]]),
    node('E', [[lin('D'), 0.5]]),
  ],
};

test('directional on a linear SCM: path contributions are coefficient products x std(A) and add up to the total', async () => {
  const out = await runExplanation(linearModel, { type: 'explanation', explanationMode: 'directional', causeVariable: 'A', effectVariable: 'E' }, context);
  const sigma = meanStd(column(population(linearModel), 'A')).std;
  const d = out.details as { totalEffect: { effect: number; perUnit: number }; directEffect: number; remainder: number; paths: { path: string[]; contribution: number; method: string }[] };
  // A -> D -> E: 0.6 x 0.5; A -> B -> D -> E: 1.5 x -0.8 x 0.5.
  const byPath = Object.fromEntries(d.paths.map((p) => [p.path.join('>'), p]));
  assert.ok(Math.abs(byPath['A>D>E']!.contribution - 0.3 * sigma) < 1e-9);
  assert.ok(Math.abs(byPath['A>B>D>E']!.contribution + 0.6 * sigma) < 1e-9);
  assert.equal(byPath['A>D>E']!.method, 'coefficients');
  assert.ok(Math.abs(d.totalEffect.perUnit - -0.3) < 1e-9, `total per unit ${d.totalEffect.perUnit}`);
  assert.ok(Math.abs(d.remainder) < 1e-9);
  assert.equal(d.directEffect, 0);
});

test('impact ranks the descendants of A by effect in their own std; effects per unit are the total effects', async () => {
  const out = await runExplanation(linearModel, { type: 'explanation', explanationMode: 'impact', causeVariable: 'A' }, context);
  const effects = out.details.effects as (Ranked & { standardisedEffect: number })[];
  assert.deepEqual(effects.map((e) => e.variable).sort(), ['B', 'D', 'E']);
  const perUnit = Object.fromEntries(effects.map((e) => [e.variable, e.perUnit!]));
  assert.ok(Math.abs(perUnit.B! - 1.5) < 1e-9 && Math.abs(perUnit.D! + 0.6) < 1e-9 && Math.abs(perUnit.E! + 0.3) < 1e-9, JSON.stringify(perUnit));
  for (let i = 1; i < effects.length; i++) assert.ok(Math.abs(effects[i - 1]!.standardisedEffect) >= Math.abs(effects[i]!.standardisedEffect));
  assert.equal(effects[0]!.variable, 'B');
  assert.ok(Math.abs(out.results.B![0]!.prediction as number) > 0);
});

test('a nonlinear path is split by intervention: Y = A + M^2, M = A + e; the mediated effect is exact on the simulated units', async () => {
  const model: CbnModel = {
    nodes: [node('A', []), node('M', [[lin('A'), 1]]), node('Y', [[lin('A'), 1], [{ kind: 'square', parents: ['M'] }, 1]])],
  };
  const out = await runExplanation(model, { type: 'explanation', explanationMode: 'directional', causeVariable: 'A', effectVariable: 'Y' }, context);
  const frame = population(model);
  const { mean, std } = meanStd(column(frame, 'A'));
  const a = column(frame, 'A');
  const m = column(frame, 'M');
  // In the low arm M = (mean - std) + e_M; the path A -> M -> Y adds (M + 2 std)^2 - M^2, halved per std.
  let mediated = 0;
  for (let r = 0; r < m.length; r++) {
    const low = mean - std + (m[r]! - a[r]!);
    mediated += ((low + 2 * std) ** 2 - low ** 2) / 2;
  }
  mediated /= m.length;
  const d = out.details as { totalEffect: { effect: number }; directEffect: number; remainder: number; paths: { path: string[]; contribution: number; method: string }[] };
  const viaM = d.paths.find((p) => p.path.length === 3)!;
  assert.equal(viaM.method, 'interventional');
  assert.ok(Math.abs(viaM.contribution - mediated) < 1e-9, `${viaM.contribution} vs ${mediated}`);
  assert.ok(Math.abs(d.directEffect - std) < 1e-9);
  assert.ok(Math.abs(d.totalEffect.effect - (std + mediated)) < 1e-9);
  assert.ok(Math.abs(d.remainder) < 1e-9);
});

test('a categorical cause is ranked by its largest category contrast (b vs c: 3 - -1)', async () => {
  const model: CbnModel = {
    nodes: [
      { name: 'G', kind: 'categorical', parents: [], categories: ['a', 'b', 'c'], marginal: [0.3, 0.3, 0.4] },
      { name: 'Y', kind: 'continuous', parents: ['G'], terms: [{ kind: 'indicator', parents: ['G'], category: 'b' }, { kind: 'indicator', parents: ['G'], category: 'c' }], intercept: 1, coefficients: [3, -1], noiseStd: 1, residualQuantiles: [], mean: 1.5, std: 2 },
    ],
  };
  const out = await runExplanation(model, { type: 'explanation', explanationMode: 'discovery', effectVariable: 'Y' }, context);
  const [g] = out.details.causes as Ranked[];
  assert.equal(g!.variable, 'G');
  assert.ok(Math.abs(g!.effect - 4) < 1e-9);
  assert.equal(g!.high, 'b');
  assert.equal(g!.low, 'c');
  assert.equal(g!.direction, 'contrast');
});

test('a segment averages over its own units: Y = A x W, the effect per std of A among W > 1 is std(A) x mean(W | W > 1)', async () => {
  const model: CbnModel = {
    nodes: [node('A', []), node('W', [], 1), node('Y', [[{ kind: 'product', parents: ['A', 'W'] }, 1]])],
  };
  const out = await runExplanation(model, {
    type: 'explanation', explanationMode: 'discovery', effectVariable: 'Y', segments: [{ id: 'high-w', conditions: [{ variable: 'W', operator: 'gt', value: 1 }] }],
  }, context);
  const frame = population(model);
  const sigma = meanStd(column(frame, 'A')).std;
  const w = column(frame, 'W');
  const inSegment = w.filter((v) => v > 1);
  const expected = sigma * inSegment.reduce((s, v) => s + v, 0) / inSegment.length;
  const segments = out.details.segments as { id: string; units: number; causes: Ranked[] }[];
  assert.equal(segments[0]!.units, inSegment.length);
  const a = segments[0]!.causes.find((c) => c.variable === 'A')!;
  assert.ok(Math.abs(a.effect - expected) < 1e-9, `${a.effect} vs ${expected}`);
  const whole = (out.details.causes as Ranked[]).find((c) => c.variable === 'A')!;
  assert.ok(Math.abs(whole.effect - sigma * w.reduce((s, v) => s + v, 0) / w.length) < 1e-9);
});

test('a mode without its variable is refused', async () => {
  await assert.rejects(runExplanation(linearModel, { type: 'explanation', explanationMode: 'discovery' }, context), /needs effectVariable/);
  await assert.rejects(runExplanation(linearModel, { type: 'explanation', explanationMode: 'directional', causeVariable: 'A' }, context), /needs effectVariable/);
  await assert.rejects(runExplanation(linearModel, { type: 'explanation', explanationMode: 'impact', causeVariable: 'Q' }, context), /not a variable/);
});

test('an abort stops the analysis', async () => {
  await assert.rejects(runExplanation(linearModel, { type: 'explanation', explanationMode: 'discovery', effectVariable: 'E' }, { ...context, hooks: { aborted: () => true } }), (e: Error) => e.name === 'AbortError');
});

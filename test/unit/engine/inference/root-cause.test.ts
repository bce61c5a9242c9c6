import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { continuousColumn, frameOf } from '../../../../src/engine/frame.js';
import { ModelCalibration } from '../../../../src/engine/inference/calibration.js';
import { attributeTargetAnomaly, targetModel } from '../../../../src/engine/inference/noise-attribution.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import { rankRootCauses } from '../../../../src/engine/inference/root-cause-ranking.js';
import { type DiagnosedSample, runRootCauseAnalysis } from '../../../../src/engine/inference/root-cause.js';
import { ancestorsOf, compileScm, frameFromRecords } from '../../../../src/engine/inference/scm.js';
import { Rng } from '../../../../src/engine/random.js';
import type { CbnModel, NodeModel } from '../../../../src/engine/types.js';
import { AppError } from '../../../../src/errors.js';
import { drawUnits, fittedTwin, inOrderOf, recordsOf, truth } from './anomaly-fixtures.js';

const context = (seed = 1): InferenceContext => ({ seed, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics here')) });

function linear(name: string, parents: [string, number][]): Extract<NodeModel, { kind: 'continuous' }> {
  return {
    name, kind: 'continuous', parents: parents.map(([p]) => p), terms: parents.map(([p]) => ({ kind: 'linear', parents: [p] })),
    intercept: 0, coefficients: parents.map(([, b]) => b), noiseStd: 1, residualQuantiles: [], mean: 0, std: 1,
  };
}

/** A -> B -> C <- D, standard normal noise: C = B + D + e, B = A + e. */
const chain: CbnModel = { nodes: [linear('A', []), linear('D', []), linear('B', [['A', 1]]), linear('C', [['B', 1], ['D', 1]])] };

/** Share of injected faults ranked first, over the faulty units diagnosed (target anomalous, or reached from upstream). */
async function topOneAccuracy(seed: number, categoricalShare: number): Promise<{ accuracy: number; diagnosed: number }> {
  const t = truth(9, 3, seed, { categoricalShare });
  const model = fittedTwin(t, 5000, seed + 100);
  const scm = compileScm(model);
  // The target: the continuous variable with the most ancestors; faults go to its continuous ancestors and itself.
  const continuous = scm.names.map((_, i) => i).filter((i) => model.nodes[i]!.kind === 'continuous');
  const target = continuous.reduce((best, i) => (ancestorsOf(scm, i).size > ancestorsOf(scm, best).size ? i : best), continuous[0]!);
  const faultable = [...ancestorsOf(scm, target), target].filter((i) => model.nodes[i]!.kind === 'continuous');
  const rng = new Rng(seed);
  const injected: string[] = [];
  const samples = [];
  for (let k = 0; k < 60; k++) {
    const node = scm.names[faultable[rng.int(faultable.length)]!]!;
    injected.push(node);
    samples.push(...recordsOf(drawUnits(t, 1, seed * 1000 + k, { node, shift: 6 }), [0]));
  }
  const outcome = await runRootCauseAnalysis(model, { type: 'root_cause_analysis', targetVariable: scm.names[target]!, samples }, context(seed));
  const diagnosed = (outcome.details as { samples: DiagnosedSample[] }).samples.filter((s) => s.anomalous === true);
  const hits = diagnosed.filter((s) => s.rootCauses[0]?.variable === injected[s.index]).length;
  return { accuracy: hits / diagnosed.length, diagnosed: diagnosed.length };
}

test('exact Shapley contributions add up to the target score above its expectation, and blame the shifted noise', () => {
  const scm = compileScm(chain);
  const calibration = new ModelCalibration(scm, 3);
  const target = scm.indexOf('C');
  const tail = calibration.valueTail(target);
  const score = (v: number) => -Math.log(Math.max(tail(v), 1e-300));
  const model = targetModel(scm, target);
  assert.deepEqual(model.players.map((i) => scm.names[i]), ['A', 'D', 'B', 'C']);
  // A's noise shifted by 5: every value downstream of A carries it.
  const unit = frameFromRecords(scm, [{ A: 5, D: 0.2, B: 5.3, C: 5.4 }]);
  const phi = attributeTargetAnomaly(model, unit, score, { seed: 4, hooks: {}, draws: 2000 });
  const total = phi.reduce((s, v) => s + v, 0);
  // Worth(all) is the unit's score; worth(none) the expected score under the model, E[-log U] = 1.
  assert.ok(Math.abs(total - (score(5.4) - 1)) < 0.15, `sum ${total}, score ${score(5.4)}`);
  assert.ok(phi[0]! > 0.8 * total, `A's share ${phi[0]} of ${total}`);
  // The sampled estimate agrees with the exact values.
  const sampled = attributeTargetAnomaly(model, unit, score, { seed: 4, hooks: {}, draws: 2000, method: 'sampled', permutations: 200 });
  phi.forEach((v, j) => assert.ok(Math.abs(sampled[j]! - v) < 0.05 * total + 0.05, `player ${j}: exact ${v}, sampled ${sampled[j]}`));
});

test('graph attribution credits the origin of a cascade, not the variables the twin under-propagates to', () => {
  // Players A -> B -> C (target) and an unrelated D -> C. A's fault reached B, but the twin's mechanism understated
  // it, so B's own noise looks anomalous and B holds the larger Shapley contribution.
  const parents: Record<number, number[]> = { 0: [], 1: [], 2: [0], 3: [2, 1] };
  const ranked = rankRootCauses({
    players: [0, 1, 2, 3],
    target: 3,
    contributions: [2, 0.4, 6, 1],
    noiseTail: [1e-8, 0.0005, 1e-30, 0.2],
    valueTail: [1e-8, 0.0005, 1e-25, 1e-20],
    parentsOf: (n) => parents[n]!,
    level: 0.001,
  });
  assert.deepEqual(ranked.map((c) => c.player), [0, 2, 1, 3]);
  assert.equal(ranked[0]!.contribution, 2 + 6 + 1);
  assert.equal(ranked[1]!.contribution, 6 + 1);
  assert.equal(ranked[3]!.candidate, false);
});

test('a cascade that cannot reach the target and does not move it in the model is not a leading root cause', () => {
  // E -> L -> M -> T <- P; E, L and P anomalous, M not. E's cascade (E, L) covers more surprise than P's, but it
  // stops at M, and E's own noise does not move T in the model (L's does, a little, through M).
  const parents: Record<number, number[]> = { 0: [], 1: [0], 2: [1], 3: [], 4: [2, 3] };
  const input = {
    players: [0, 1, 2, 3, 4],
    target: 4,
    contributions: [0, 0.5, 0, 0, 2],
    noiseTail: [1e-300, 1e-300, 0.3, 1e-300, 0.2],
    valueTail: [1e-300, 1e-300, 0.3, 1e-300, 1e-4],
    parentsOf: (n: number) => parents[n]!,
    level: 0.001,
  };
  const ranked = rankRootCauses(input);
  assert.deepEqual(ranked.filter((c) => c.candidate).map((c) => [c.player, c.reachesTarget]), [[3, true], [1, false]]);
  // E leads once its own noise moves the target in the model.
  assert.equal(rankRootCauses({ ...input, contributions: [0.1, 0.5, 0, 0, 2] })[0]!.player, 0);
});

test('candidates the ranking cannot tell apart share a rank', () => {
  // P and Q, two parents of T that never varied in training, fail together; R is an ordinary contributor.
  const parents: Record<number, number[]> = { 0: [], 1: [], 2: [], 3: [0, 1, 2] };
  const ranked = rankRootCauses({
    players: [0, 1, 2, 3], target: 3,
    contributions: [0, 0, 0.4, 3],
    noiseTail: [1e-300, 1e-300, 0.4, 0.3],
    valueTail: [1e-300, 1e-300, 0.4, 1e-5],
    parentsOf: (n) => parents[n]!,
    level: 0.001,
  });
  assert.deepEqual(ranked.map((c) => [c.player, c.rank]), [[0, 1], [1, 1], [3, 3], [2, 4]]);
});

test('a fault upstream whose effect stays within the target\'s normal range is diagnosed from upstream', async () => {
  // A -> C with a weak link: C = 0.3 A + e. A at 8 standard deviations moves C by 2.4, inside C's 1% tails.
  const weak: CbnModel = { nodes: [linear('A', []), linear('D', []), linear('C', [['A', 0.3], ['D', 1]])] };
  const outcome = await runRootCauseAnalysis(weak, {
    type: 'root_cause_analysis', targetVariable: 'C', targetFpr: 0.01,
    samples: [{ A: 8, D: 0, C: 2.4 }, { A: 0.5, D: 0.3, C: 0.4 }, { A: 0, D: 5, C: 5 }],
  }, context());
  const [upstream, normal, own] = (outcome.details as { samples: DiagnosedSample[] }).samples;
  assert.equal(upstream!.targetAnomalous, false);
  assert.equal(upstream!.anomalous, true);
  assert.equal(upstream!.anomalyBasis, 'upstream');
  assert.equal(upstream!.rootCauses[0]?.variable, 'A');
  assert.deepEqual([normal!.anomalous, normal!.anomalyBasis, normal!.rootCauses], [false, null, []]);
  assert.deepEqual([own!.anomalous, own!.anomalyBasis, own!.rootCauses[0]?.variable], [true, 'target', 'D']);
  assert.match(outcome.summary.summary, /In 1 of them C's own value stayed within its normal range, but an anomaly upstream reached it/);
});

test('an anomaly already in the baseline is a standing condition: set aside, and the new fault leads', async () => {
  // A -> B -> C <- D. D's noise is 9 standard deviations high in the baseline and in the sample (a standing
  // condition); A's noise is 5 high in the sample only (the new fault).
  const samples = [{ A: 5, B: 5, D: 9, C: 14 }];
  const baselineSamples = [{ A: 0.3, B: 0.1, D: 9.5, C: 9.4 }, { A: -0.2, B: -0.5, D: 8.8, C: 8.5 }];
  const run = (baseline: boolean) => runRootCauseAnalysis(chain, {
    type: 'root_cause_analysis', targetVariable: 'C', samples, ...(baseline ? { baselineSamples } : {}),
  }, context());
  const [without] = ((await run(false)).details as { samples: DiagnosedSample[] }).samples;
  assert.equal(without!.rootCauses[0]?.variable, 'D', JSON.stringify(without!.rootCauses));
  assert.equal(without!.standing, undefined);
  const outcome = await run(true);
  const [withBaseline] = (outcome.details as { samples: DiagnosedSample[] }).samples;
  assert.equal(withBaseline!.anomalous, true);
  assert.equal(withBaseline!.rootCauses[0]?.variable, 'A', JSON.stringify(withBaseline!.rootCauses));
  assert.deepEqual(withBaseline!.standing, ['D']);
  assert.ok(withBaseline!.rootCauses.every((c) => c.variable !== 'D' || c.rank > 1));
  assert.match(outcome.summary.summary, /standing conditions: D/);
});

test('a standing condition counts only on the same side and no further out than the baseline saw it', async () => {
  const baselineSamples = [{ A: 0, B: 0, D: 6, C: 6 }];
  const diagnose = async (D: number) => {
    const outcome = await runRootCauseAnalysis(chain, { type: 'root_cause_analysis', targetVariable: 'C', samples: [{ A: 0, B: 0, D, C: D }], baselineSamples }, context());
    return (outcome.details as { samples: DiagnosedSample[] }).samples[0]!;
  };
  // Further out than the baseline: a new anomaly. The other side: a new anomaly. As far or less: standing, and with
  // nothing else anomalous upstream the target's own value is what is left to diagnose.
  for (const D of [9, -6]) {
    const s = await diagnose(D);
    assert.deepEqual([s.rootCauses[0]?.variable, s.standing], ['D', []], `D = ${D}: ${JSON.stringify(s)}`);
  }
  const standing = await diagnose(5.5);
  assert.deepEqual(standing.standing, ['D'], JSON.stringify(standing));
  assert.notEqual(standing.rootCauses[0]?.variable, 'D');
});

test('injected faults in a linear SCM are ranked first (top-1 >= 0.8 over three models)', async () => {
  let hits = 0;
  let diagnosed = 0;
  for (const seed of [31, 32, 33]) {
    const r = await topOneAccuracy(seed, 0);
    hits += r.accuracy * r.diagnosed;
    diagnosed += r.diagnosed;
  }
  assert.ok(diagnosed >= 40, `only ${diagnosed} anomalous targets`);
  assert.ok(hits / diagnosed >= 0.8, `top-1 accuracy ${hits / diagnosed} over ${diagnosed}`);
});

test('injected faults in a mixed SCM are ranked first (top-1 >= 0.8 over three models)', async () => {
  let hits = 0;
  let diagnosed = 0;
  for (const seed of [41, 42, 43]) {
    const r = await topOneAccuracy(seed, 0.3);
    hits += r.accuracy * r.diagnosed;
    diagnosed += r.diagnosed;
  }
  assert.ok(diagnosed >= 40, `only ${diagnosed} anomalous targets`);
  assert.ok(hits / diagnosed >= 0.8, `top-1 accuracy ${hits / diagnosed} over ${diagnosed}`);
});

test('on normal rows the target is anomalous about targetFpr of the time (within 2x)', async () => {
  const t = truth(9, 3, 51, { categoricalShare: 0.3 });
  const model = fittedTwin(t, 5000, 52);
  const scm = compileScm(model);
  const target = scm.names.map((_, i) => i).filter((i) => model.nodes[i]!.kind === 'continuous').at(-1)!;
  const calibration = new ModelCalibration(scm, 53);
  const normal = inOrderOf(scm, drawUnits(t, 20_000, 54));
  const values = (normal.columns[target] as { values: Float64Array }).values;
  for (const targetFpr of [0.01, 0.05]) {
    let flagged = 0;
    for (const v of values) if (calibration.valueTail(target)(v) <= targetFpr) flagged++;
    const rate = flagged / values.length;
    assert.ok(rate > targetFpr / 2 && rate < 2 * targetFpr, `targetFpr ${targetFpr}: ${rate}`);
  }
  // Through the family's entry point, on fewer rows.
  const records = recordsOf(drawUnits(t, 2000, 55), Array.from({ length: 2000 }, (_, i) => i));
  const outcome = await runRootCauseAnalysis(model, { type: 'root_cause_analysis', targetVariable: scm.names[target]!, samples: records, targetFpr: 0.05 }, context());
  const rate = (outcome.details as { anomalousCount: number }).anomalousCount / 2000;
  assert.ok(rate > 0.025 && rate < 0.1, `false-alarm rate ${rate}`);
});

test('a target is judged against the margin normal operation showed, not a narrower one the twin implies', async () => {
  // A and B spike together (a load the twin does not see) in 3% of rows; the twin holds them independent, so its
  // own margin of Y = A + B puts the shared spike near 0.1%, while normal operation shows it in 3% of rows.
  const rows = (n: number, seed: number) => {
    const rng = new Rng(seed);
    const out: Record<string, number>[] = [];
    for (let r = 0; r < n; r++) {
      const load = rng.uniform() < 0.03 ? 4 : 0;
      const a = load + 0.3 * rng.normal();
      const b = load + 0.3 * rng.normal();
      out.push({ A: a, B: b, Y: a + b + 0.3 * rng.normal() });
    }
    return out;
  };
  const training = rows(3000, 61);
  const frame = frameOf(['A', 'B', 'Y'].map((v) => continuousColumn(v, training.map((r) => r[v]!))));
  const model = fitCbn(frame, [{ source: 'A', target: 'Y' }, { source: 'B', target: 'Y' }], {}, referenceKernels);
  const outcome = await runRootCauseAnalysis(model, { type: 'root_cause_analysis', targetVariable: 'Y', samples: rows(2000, 62) }, context());
  const rate = (outcome.details as { anomalousCount: number }).anomalousCount / 2000;
  assert.ok(rate < 0.02, `false-alarm rate ${rate} at targetFpr 0.01`);
  // A row beyond anything normal operation showed is still anomalous, and blamed on its own noise.
  const fault = await runRootCauseAnalysis(model, { type: 'root_cause_analysis', targetVariable: 'Y', samples: [{ A: 0, B: 0, Y: 12 }] }, context());
  const [sample] = (fault.details as { samples: DiagnosedSample[] }).samples;
  assert.equal(sample!.anomalyBasis, 'target');
  assert.equal(sample!.rootCauses[0]?.variable, 'Y');
});

test('a missing target is not diagnosed, a missing parent leaves its child unscored, an unknown target is refused', async () => {
  const outcome = await runRootCauseAnalysis(chain, {
    type: 'root_cause_analysis', targetVariable: 'C', targetFpr: 0.01,
    samples: [{ A: 0, D: 0, B: 0 }, { A: 6, D: 0.1, B: null, C: 6.2 }, { A: 0.1, D: -0.2, B: 0.3, C: 0 }],
  }, context());
  const details = outcome.details as { targetVariable: string; targetFpr: number; samples: DiagnosedSample[] };
  assert.equal(details.targetVariable, 'C');
  const [missing, faulty, normal] = details.samples;
  assert.deepEqual(missing, { index: 0, targetAnomalous: null, anomalous: null, anomalyBasis: null, targetScore: null, rootCauses: [] });
  assert.equal(faulty!.targetAnomalous, true);
  assert.equal(faulty!.rootCauses[0]?.variable, 'A');
  assert.equal(faulty!.rootCauses.find((c) => c.variable === 'C')?.noiseScore ?? null, null, 'C has a missing parent: unscored');
  assert.equal(normal!.targetAnomalous, false);
  assert.deepEqual(normal!.rootCauses, []);
  assert.match(outcome.summary.summary, /C was anomalous in 1 of 3 samples at a 1% false-alarm rate/);
  await assert.rejects(
    runRootCauseAnalysis(chain, { type: 'root_cause_analysis', targetVariable: 'Z', samples: [{ A: 1 }] }, context()),
    (e: unknown) => e instanceof AppError && e.code === 'validation_failed',
  );
});

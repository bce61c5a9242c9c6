import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AbortError } from '../../../../src/engine/discovery/budget.js';
import { runAnomalyDetection, type ScannedSample } from '../../../../src/engine/inference/anomaly.js';
import { ModelCalibration, categoricalTail, noiseTailProbabilities, sidakScore } from '../../../../src/engine/inference/calibration.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import { compileScm, frameFromRecords } from '../../../../src/engine/inference/scm.js';
import { empiricalTail, pointMassTail } from '../../../../src/engine/inference/tail-probability.js';
import { Rng } from '../../../../src/engine/random.js';
import type { CbnModel } from '../../../../src/engine/types.js';
import { type Truth, drawUnits, fittedTwin, inOrderOf, recordsOf, truth } from './anomaly-fixtures.js';

const context = (seed = 1, hooks: InferenceContext['hooks'] = {}): InferenceContext => ({
  seed, hooks, evaluateMetric: () => Promise.reject(new Error('no metrics here')),
});

/** Share of 20k normal units of the truth flagged by a twin fitted on 5k separate rows. */
function falseAlarmRate(t: Truth, targetFpr: number, seed: number): number {
  const scm = compileScm(fittedTwin(t, 5000, seed));
  const units = new ModelCalibration(scm, seed + 1).scoreUnits(inOrderOf(scm, drawUnits(t, 20_000, seed + 2)), targetFpr);
  let flagged = 0;
  for (const s of units.score) if (s <= targetFpr) flagged++;
  return flagged / units.score.length;
}

test('the empirical tail matches normal tail probabilities and extends smoothly past its sample', () => {
  const rng = new Rng(3);
  const sample = Float64Array.from({ length: 200_000 }, () => rng.normal()).sort();
  // 1000 evenly spaced order statistics, as fitCbn keeps them.
  const quantiles = Array.from({ length: 1000 }, (_, i) => sample[Math.round((i * (sample.length - 1)) / 999)]!);
  const tail = empiricalTail(quantiles);
  assert.ok(Math.abs(tail.twoSided(1.96) - 0.05) < 0.004, `p(1.96) = ${tail.twoSided(1.96)}`);
  assert.ok(Math.abs(tail.twoSided(-1.645) - 0.1) < 0.006, `p(-1.645) = ${tail.twoSided(-1.645)}`);
  // Beyond the outer 1% the tail is exponential: close to the normal's 0.001 at 3.29, and past every stored point
  // still positive and decreasing.
  const far = tail.twoSided(3.29);
  assert.ok(far > 0.0007 && far < 0.0015, `p(3.29) = ${far}`);
  assert.ok(tail.twoSided(8) > 0 && tail.twoSided(8) < 1e-6 && tail.twoSided(9) < tail.twoSided(8));
  assert.ok(tail.twoSided(0) > 0.99, `p(0) = ${tail.twoSided(0)}`);
  const constant = pointMassTail(100);
  assert.equal(constant.twoSided(100), 1);
  assert.ok(constant.twoSided(99.5) < 1e-100);
});

test('a categorical noise score is the probability of a class at most as probable as the observed one', () => {
  const p = [0.7, 0.2, 0.08, 0.02];
  assert.ok(Math.abs(categoricalTail(p, 4, 0) - 1) < 1e-12);
  assert.ok(Math.abs(categoricalTail(p, 4, 2) - 0.1) < 1e-12);
  assert.ok(Math.abs(categoricalTail(p, 4, 3) - 0.02) < 1e-12);
  assert.ok(Math.abs(sidakScore(0.001, 10) - (1 - 0.999 ** 10)) < 1e-12);
});

test('normal units of a linear SCM are flagged at targetFpr (within 2x), for 0.01 and 0.05', () => {
  const t = truth(10, 3, 11);
  for (const targetFpr of [0.01, 0.05]) {
    const rate = falseAlarmRate(t, targetFpr, 21);
    assert.ok(rate > targetFpr / 2 && rate < targetFpr * 2, `targetFpr ${targetFpr}: false-alarm rate ${rate}`);
  }
});

test('normal units of a mixed SCM are flagged at targetFpr (within 2x): categorical scores calibrated by Monte Carlo', () => {
  const t = truth(10, 3, 12, { categoricalShare: 0.4 });
  assert.ok(t.sim.nodes.filter((n) => n.kind === 'categorical').length >= 2, 'the model should hold categorical nodes');
  for (const targetFpr of [0.01, 0.05]) {
    const rate = falseAlarmRate(t, targetFpr, 22);
    assert.ok(rate > targetFpr / 2 && rate < targetFpr * 2, `targetFpr ${targetFpr}: false-alarm rate ${rate}`);
  }
});

test('a shifted noise flags the unit and names the shifted variable first', () => {
  const t = truth(10, 3, 13);
  const scm = compileScm(fittedTwin(t, 5000, 23));
  const calibration = new ModelCalibration(scm, 24);
  for (const node of ['X2', 'X5', 'X9']) {
    const frame = inOrderOf(scm, drawUnits(t, 200, 25, { node, shift: 6 }));
    const units = calibration.scoreUnits(frame, 0.01);
    let flagged = 0;
    let named = 0;
    for (let r = 0; r < frame.nRows; r++) {
      if (units.score[r]! > 0.01) continue;
      flagged++;
      const least = units.noise.reduce((best, p, j) => (p[r]! < units.noise[best]![r]! ? j : best), 0);
      if (scm.names[least] === node) named++;
    }
    assert.ok(flagged >= 190, `${node}: ${flagged} of 200 flagged`);
    assert.ok(named >= 0.95 * flagged, `${node}: named first in ${named} of ${flagged}`);
  }
});

test('runAnomalyDetection scores each sample, flags the faulty ones and, with autoRca, finds their root cause', async () => {
  const t = truth(8, 3, 14);
  const model = fittedTwin(t, 5000, 26);
  const normal = drawUnits(t, 30, 27);
  const faulty = drawUnits(t, 10, 28, { node: 'X3', shift: 8 });
  const samples = [...recordsOf(normal, Array.from({ length: 30 }, (_, i) => i)), ...recordsOf(faulty, Array.from({ length: 10 }, (_, i) => i))];
  const outcome = await runAnomalyDetection(model, { type: 'anomaly_detection', samples, autoRca: true }, context(5));
  assert.deepEqual(outcome.results, {});
  const details = outcome.details as { targetFpr: number; threshold: number; anomalyCount: number; seed: number; samples: ScannedSample[] };
  assert.equal(details.targetFpr, 0.01);
  assert.equal(details.seed, 5);
  assert.ok(Math.abs(details.threshold - (1 - 0.99 ** (1 / 8))) < 1e-12, `threshold ${details.threshold}`);
  assert.equal(details.samples.length, 40);
  const faultyFlags = details.samples.slice(30).filter((s) => s.isAnomaly).length;
  const normalFlags = details.samples.slice(0, 30).filter((s) => s.isAnomaly).length;
  assert.equal(faultyFlags, 10);
  assert.ok(normalFlags <= 2, `${normalFlags} normal samples flagged`);
  assert.equal(details.anomalyCount, faultyFlags + normalFlags);
  for (const s of details.samples) {
    assert.ok(s.score !== null && s.score >= 0 && s.score <= 1);
    assert.equal(s.isAnomaly, s.score <= 0.01);
    if (!s.isAnomaly) assert.deepEqual(s.variables, []);
  }
  for (const s of details.samples.slice(30)) {
    assert.equal(s.variables[0]?.variable, 'X3');
    assert.ok(s.rootCause, 'a flagged sample is diagnosed');
    assert.equal(s.rootCause.rootCauses[0]?.variable, 'X3', `sample ${s.index}: diagnosed ${s.rootCause.targetVariable}`);
  }
  assert.match(outcome.summary.summary, /of 40 samples are anomalous at a 1% false-alarm rate/);
  assert.ok(outcome.summary.keyPoints.length > 0);
  // Same seed, same answer.
  const again = await runAnomalyDetection(model, { type: 'anomaly_detection', samples, autoRca: true }, context(5));
  assert.deepEqual(again.details, outcome.details);
});

test('a variable with a missing parent is not scored, a sample with nothing observed scores null', async () => {
  const model: CbnModel = {
    nodes: [
      { name: 'A', kind: 'continuous', parents: [], terms: [], intercept: 0, coefficients: [], noiseStd: 1, residualQuantiles: [], mean: 0, std: 1 },
      { name: 'B', kind: 'continuous', parents: ['A'], terms: [{ kind: 'linear', parents: ['A'] }], intercept: 0, coefficients: [2], noiseStd: 1, residualQuantiles: [], mean: 0, std: 1 },
    ],
  };
  const scm = compileScm(model);
  const noise = noiseTailProbabilities(scm, frameFromRecords(scm, [{ A: null, B: 50 }, { A: 1, B: 2 }]));
  assert.ok(Number.isNaN(noise[0]![0]!) && Number.isNaN(noise[1]![0]!), 'A missing: neither A nor B can be scored');
  assert.equal(noise[1]![1], 1);
  const outcome = await runAnomalyDetection(model, { type: 'anomaly_detection', samples: [{ A: null, B: 50 }, { A: 0, B: 50 }], targetFpr: 0.05 }, context());
  const [unscored, flagged] = (outcome.details as { samples: ScannedSample[] }).samples;
  assert.equal(unscored!.score, null);
  assert.equal(unscored!.isAnomaly, false);
  assert.equal(flagged!.isAnomaly, true);
  assert.equal(flagged!.variables[0]?.variable, 'B');
});

test('an aborted scan stops with AbortError', async () => {
  const t = truth(6, 2, 15);
  const model = fittedTwin(t, 2000, 29);
  const samples = recordsOf(drawUnits(t, 5, 30, { node: 'X1', shift: 8 }), [0, 1, 2, 3, 4]);
  await assert.rejects(runAnomalyDetection(model, { type: 'anomaly_detection', samples, autoRca: true }, context(1, { aborted: () => true })), AbortError);
});

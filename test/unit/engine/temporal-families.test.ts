import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWasmKernels } from '../../../src/compute/wasm.js';
import { continuousColumn, frameOf } from '../../../src/engine/frame.js';
import type { InferenceContext } from '../../../src/engine/inference/outcome.js';
import { Rng } from '../../../src/engine/random.js';
import { runTemporalCounterfactual } from '../../../src/engine/temporal/counterfactual.js';
import { type LaggedInfluence, runTemporalExplanation } from '../../../src/engine/temporal/explanation.js';
import { bestInterval, changeStart, gridOf, scanPValue, scanTail } from '../../../src/engine/temporal/health-scan.js';
import { type TemporalModel, fitTemporal } from '../../../src/engine/temporal/model.js';
import { discoverTemporal } from '../../../src/engine/temporal/discover.js';
import { type LinkHealth, type VariableHealth, runHealthMonitor } from '../../../src/engine/temporal/health.js';
import { randomLaggedScm, simulateLagged } from '../../../src/engine/temporal/simulate.js';
import { inferTimeline } from '../../../src/engine/temporal/timeline.js';
import type { Frame } from '../../../src/engine/types.js';
import { unroll } from '../../../src/engine/temporal/unroll.js';

const kernels = loadWasmKernels();
const context = (seed: number): InferenceContext => ({ seed, hooks: {}, evaluateMetric: () => Promise.reject(new Error('none')) });

/** ads(t) = 20 + 0.6 ads(t-1) + e; visits(t) = 10 + 0.5 visits(t-1) + 0.8 ads(t-1) + e; sales(t) = 5 + 0.3 sales(t-1) + 0.4 visits(t) + e. */
function chainModel(steps: number, seed: number): TemporalModel {
  const rng = new Rng(seed);
  const ads: number[] = [];
  const visits: number[] = [];
  const sales: number[] = [];
  let [a, v, s] = [50, 120, 75];
  for (let t = 0; t < steps + 100; t++) {
    const na = 20 + 0.6 * a + rng.normal();
    const nv = 10 + 0.5 * v + 0.8 * a + rng.normal();
    const ns = 5 + 0.3 * s + 0.4 * nv + rng.normal();
    [a, v, s] = [na, nv, ns];
    if (t >= 100) (ads.push(a), visits.push(v), sales.push(s));
  }
  const frame = frameOf([continuousColumn('ads', ads), continuousColumn('visits', visits), continuousColumn('sales', sales)]);
  const times = Array.from({ length: steps }, (_, k) => k);
  const edges = [
    { source: 'ads', target: 'ads', lag: 1 }, { source: 'visits', target: 'visits', lag: 1 }, { source: 'sales', target: 'sales', lag: 1 },
    { source: 'ads', target: 'visits', lag: 1 }, { source: 'visits', target: 'sales', lag: 0 },
  ];
  return fitTemporal(frame, times, inferTimeline(times, 'index'), { edges, seasonal: [] }, { seed: 1 }, kernels);
}

test('temporal explanation: lag-specific effects are the impulse response, the total the held change, split into direct and mediated', async () => {
  const model = chainModel(4000, 3);
  const sigma = (model.cbn.nodes.find((n) => n.name === 'ads') as { std: number }).std;
  // The truth on mean paths: a one-step +sigma change of ads, and the change held.
  const horizon = 15;
  const pulse = { a: [] as number[], v: [] as number[], s: [] as number[] };
  const held = { v: 0, s: 0 };
  for (let h = 0; h < horizon; h++) {
    const a = sigma * 0.6 ** h;
    const v = h === 0 ? 0 : 0.5 * pulse.v[h - 1]! + 0.8 * pulse.a[h - 1]!;
    pulse.a.push(a);
    pulse.v.push(v);
    pulse.s.push((h === 0 ? 0 : 0.3 * pulse.s[h - 1]!) + 0.4 * v);
    const hv = h === 0 ? 0 : 0.5 * held.v + 0.8 * sigma;
    held.s = (h === 0 ? 0 : 0.3 * held.s) + 0.4 * hv;
    held.v = hv;
  }
  const answer = await runTemporalExplanation(model, { type: 'temporal_explanation', explanationMode: 'directional', causeVariable: 'ads', effectVariable: 'sales', horizonSteps: horizon }, context(5));
  const d = answer.details as unknown as LaggedInfluence & { directEffect: { effect: number }; indirectEffect: number; mediators: string[]; paths: Array<{ path: string[]; lags: number[][] }> };
  for (const lag of [0, 1, 2, 4, 8]) {
    const found = d.lagEffects[lag]!;
    assert.ok(Math.abs(found.effect - pulse.s[lag]!) < 0.06 * sigma + 0.08 * Math.abs(pulse.s[lag]!), `lag ${lag}: ${found.effect} vs truth ${pulse.s[lag]}`);
  }
  assert.equal(d.peakLag, pulse.s.indexOf(Math.max(...pulse.s)));
  assert.ok(Math.abs(d.totalEffect.effect - held.s) < 0.06 * Math.abs(held.s), `total ${d.totalEffect.effect} vs truth ${held.s}`);
  assert.ok(Math.abs(d.directEffect.effect) < 0.02 * sigma, `ads has no direct link to sales: ${d.directEffect.effect}`);
  assert.ok(Math.abs(d.indirectEffect - held.s) < 0.06 * Math.abs(held.s));
  assert.deepEqual(d.mediators, ['visits']);
  assert.deepEqual(d.paths, [{ path: ['ads', 'visits', 'sales'], lags: [[1], [0]] }]);
  assert.match(answer.summary.summary, /ads \(\+1 std .*\) changes sales by \+[\d.]+ once held/);

  const discovery = await runTemporalExplanation(model, { type: 'temporal_explanation', explanationMode: 'discovery', effectVariable: 'sales', horizonSteps: horizon, segments: [{ id: 'busy', conditions: [{ variable: 'visits', operator: 'gt', value: 101 }] }] }, context(5));
  const causes = discovery.details.causes as LaggedInfluence[];
  assert.deepEqual(causes.map((c) => c.variable).sort(), ['ads', 'visits']);
  const visits = causes.find((c) => c.variable === 'visits')!;
  assert.deepEqual(visits.direct.map((l) => l.lag), [0]);
  assert.ok(Math.abs(visits.direct[0]!.coefficient - 0.4) < 0.03);
  // A linear twin's effects do not depend on the state the change meets: the segment's agree with the whole.
  const segment = (discovery.details.segments as Array<{ paths: number; causes: LaggedInfluence[] }>)[0]!;
  assert.ok(segment.paths > 100 && segment.paths < 2000, `${segment.paths} paths in the segment`);
  const inSegment = segment.causes.find((c) => c.variable === 'ads')!;
  assert.ok(Math.abs(inSegment.totalEffect.effect - causes.find((c) => c.variable === 'ads')!.totalEffect.effect) < 0.1 * Math.abs(held.s));

  const impact = await runTemporalExplanation(model, { type: 'temporal_explanation', explanationMode: 'impact', causeVariable: 'ads', horizonSteps: horizon }, context(5));
  assert.deepEqual((impact.details.effects as LaggedInfluence[]).map((e) => e.variable).sort(), ['sales', 'visits']);
});

test('the unrolled model renames inputs to the steps they read and folds the season into the intercept', () => {
  const model = chainModel(600, 4);
  const unrolled = unroll(model, 2, 100);
  const names = unrolled.cbn.nodes.map((n) => n.name);
  // Three steps of three variables, and the roots older than the window that they read.
  assert.equal(names.filter((n) => !n.includes('t-3')).length, 9);
  assert.ok(names.includes('ads\u27e8t-3\u27e9') && names.includes('visits\u27e8t-3\u27e9'));
  const sales = unrolled.cbn.nodes.find((n) => n.name === 'sales\u27e8t-1\u27e9')!;
  assert.deepEqual([...sales.parents].sort(), ['sales\u27e8t-2\u27e9', 'visits\u27e8t-1\u27e9']);
  assert.deepEqual(unrolled.nodeOf('visits\u27e8t-2\u27e9'), { variable: 'visits', stepsBefore: 2 });
  // Topological: every parent comes before its child.
  const position = new Map(names.map((n, i) => [n, i]));
  for (const node of unrolled.cbn.nodes) for (const p of node.parents) assert.ok(position.get(p)! < position.get(node.name)!, `${p} before ${node.name}`);
});

test('the change scan: calibrated p-values under no change, and the start of a change found by likelihood', () => {
  const rng = new Rng(9);
  const n = 300;
  const grid = gridOf(n, 10);
  const draw = () => Float64Array.from({ length: n }, () => rng.normal());
  const maxima = Array.from({ length: 1000 }, () => bestInterval(draw(), { z: null }, grid, 10).statistic);
  const tail = scanTail(maxima);
  // Fresh null series: the share with p <= 0.05 is about 0.05.
  const pValues = Array.from({ length: 1000 }, () => scanPValue(bestInterval(draw(), { z: null }, grid, 10).statistic, tail));
  const rejected = pValues.filter((p) => p <= 0.05).length / pValues.length;
  assert.ok(rejected > 0.025 && rejected < 0.08, `rejection rate ${rejected}`);
  // A slope change of an input from step 200 on (with the level shift it brings): found within a few steps.
  const z = draw().map((x) => x + 3);
  const e = draw().map((x, t) => x + (t >= 200 ? -0.8 * z[t]! : 0));
  const interval = bestInterval(e, { z }, grid, 10);
  assert.ok(scanPValue(interval.statistic, tail) < 1e-6);
  const start = changeStart(e, { z }, interval.from, n, 10);
  assert.ok(Math.abs(start - 200) <= 3, `start ${start}`);
});

test('temporal counterfactual: the change found, applied to the true process with its own noise, reaches the target', async () => {
  // The chain's true process with its noise kept, so a change can be replayed on the truth.
  const rng = new Rng(21);
  const steps = 3000;
  const noise = Array.from({ length: steps + 100 }, () => [rng.normal(), rng.normal(), rng.normal()] as const);
  const run = (change?: { variable: 0 | 1 | 2; step: number; value: number }) => {
    const out: Array<[number, number, number]> = [];
    let [a, v, s] = [50, 120, 75];
    for (let t = 0; t < steps + 100; t++) {
      const k = t - 100;
      let na = 20 + 0.6 * a + noise[t]![0];
      if (change?.variable === 0 && change.step === k) na = change.value;
      let nv = 10 + 0.5 * v + 0.8 * a + noise[t]![1];
      if (change?.variable === 1 && change.step === k) nv = change.value;
      let ns = 5 + 0.3 * s + 0.4 * nv + noise[t]![2];
      if (change?.variable === 2 && change.step === k) ns = change.value;
      [a, v, s] = [na, nv, ns];
      if (k >= 0) out.push([a, v, s]);
    }
    return out;
  };
  const truth = run();
  const trainSteps = steps - 100;
  const frame = frameOf(['ads', 'visits', 'sales'].map((name, j) => continuousColumn(name, truth.slice(0, trainSteps).map((row) => row[j]!))));
  const times = Array.from({ length: trainSteps }, (_, k) => k);
  const edges = [
    { source: 'ads', target: 'ads', lag: 1 }, { source: 'visits', target: 'visits', lag: 1 }, { source: 'sales', target: 'sales', lag: 1 },
    { source: 'ads', target: 'visits', lag: 1 }, { source: 'visits', target: 'sales', lag: 0 },
  ];
  const model = fitTemporal(frame, times, inferTimeline(times, 'index'), { edges, seasonal: [] }, { seed: 1 }, kernels);
  const from = steps - 60;
  const samples = truth.slice(from).map((row, k) => ({ timestamp: from + k, ads: row[0], visits: row[1], sales: row[2] }));
  const last = steps - 1;
  // Two units more: one change within the plausible range of a lever (its mean +- 4 std) reaches it.
  const wanted = truth[last]![2] + 2;
  const answer = await runTemporalCounterfactual(model, {
    type: 'temporal_counterfactual', samples, targets: [{ variable: 'sales', value: wanted, matchMode: 'orMore', timestamp: last }], constraints: { sales: { type: 'fixed' } },
  }, context(2));
  const d = answer.details as { achieved: boolean; changes: Array<{ variable: string; timestamp: number; from: number; to: number }>; targets: Array<{ observed: number; counterfactual: number }> };
  assert.equal(d.achieved, true, JSON.stringify(d));
  assert.equal(d.changes.length, 1, JSON.stringify(d));
  const change = d.changes[0]!;
  assert.ok(change.variable !== 'sales', 'sales is held fixed');
  assert.ok(change.timestamp < last && change.timestamp >= last - 10, JSON.stringify(change));
  assert.ok(Math.abs(d.targets[0]!.observed - truth[last]![2]) < 1e-9);
  // Replayed on the true process with its own noise: the target is reached (up to the twin's estimation error).
  const replay = run({ variable: change.variable === 'ads' ? 0 : 1, step: change.timestamp, value: change.to });
  assert.ok(replay[last]![2] >= wanted - 0.15, `true counterfactual sales ${replay[last]![2]} vs wanted ${wanted}`);
  assert.match(answer.summary.summary, /would have met the targets/);
  // A target the allowed changes cannot reach is reported honestly.
  const unreachable = await runTemporalCounterfactual(model, {
    type: 'temporal_counterfactual', samples, targets: [{ variable: 'ads', value: truth[last]![0] + 5, matchMode: 'orMore', timestamp: last }], constraints: { ads: { type: 'fixed' } },
  }, context(2));
  assert.equal((unreachable.details as { achieved: boolean }).achieved, false);
});

test('the health monitor watches a categorical mechanism by its fit and each link by how its input moves the classes: a changed link is flagged since the change', async () => {
  const truth = randomLaggedScm(5, 2, { maxLag: 1, categoricalShare: 0.4 });
  const target = truth.names.findIndex((name, j) => truth.kinds[j] === 'categorical' && truth.links.some((l) => l.target === name && l.source !== name));
  const link = truth.links.findIndex((l) => l.target === truth.names[target] && l.source !== l.target);
  const [train, window] = [2000, 300];
  const normal = simulateLagged(truth, train + window, 15);
  const changed = simulateLagged(truth, train + window, 15, 200, [{ kind: 'mechanism', link, from: train + 200, weight: -2 * truth.links[link]!.weight }]);
  const rows = (frame: Frame, from: number, to: number): Frame => ({ nRows: to - from, columns: frame.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: c.values.slice(from, to) } : { ...c, codes: c.codes.slice(from, to) })) });
  const times = Array.from({ length: train }, (_, k) => k);
  const learned = rows(normal, 0, train);
  const found = discoverTemporal(learned, { maxLag: 1, alpha: 0.05, periods: [] }, kernels);
  const model = fitTemporal(learned, times, inferTimeline(times, 'index'), { edges: found.links, seasonal: [] }, { seed: 1 }, kernels);
  const records = (frame: Frame) => Array.from({ length: window }, (_, k) => ({
    timestamp: train + k,
    ...Object.fromEntries(frame.columns.map((c) => [c.name, c.kind === 'continuous' ? c.values[train + k]! : c.categories[c.codes[train + k]!]!])),
  }));
  const name = truth.names[target]!;
  const watched = await runHealthMonitor(model, { type: 'causal_health_monitor', samples: records(changed) }, context(3));
  const item = (watched.details.variables as VariableHealth[]).find((v) => v.variable === name)!;
  assert.ok(item.alertType === 'sustained' || item.alertType === 'worsening', JSON.stringify(item));
  assert.equal(item.evidence.measure, 'logLikelihood');
  assert.ok(Math.abs(item.evidence.since.index - 200) <= 20 && item.evidence.now.value < item.evidence.then.lowerBound!, JSON.stringify(item.evidence));
  // The changed link itself, watched by what its input tells the variable.
  const changedLink = truth.links[link]!;
  const links = watched.details.links as LinkHealth[];
  const flagged = links.find((l) => l.source === changedLink.source && l.target === name && l.lag === changedLink.lag);
  assert.ok(flagged !== undefined && (flagged.alertType === 'sustained' || flagged.alertType === 'worsening'), JSON.stringify(links.filter((l) => l.target === name)));
  assert.equal(flagged.evidence.measure, 'classProbabilitySlope');
  // A class's probability per unit of the input moved since the change, its interval clear of what the version predicts.
  const { then, now } = flagged.evidence;
  assert.ok(Math.abs(flagged.evidence.since.index - 200) <= 25 && (now.lowerBound! > then.value || now.upperBound! < then.value), JSON.stringify(flagged.evidence));
  assert.ok(flagged.evidence.category !== undefined, JSON.stringify(flagged.evidence));
  const quiet = await runHealthMonitor(model, { type: 'causal_health_monitor', samples: records(normal) }, context(3));
  assert.equal((quiet.details.variables as VariableHealth[]).find((v) => v.variable === name)!.alertType, 'normal');
  const quietLinks = (quiet.details.links as LinkHealth[]).filter((l) => l.target === name);
  assert.ok(quietLinks.length >= 1 && quietLinks.every((l) => l.alertType === 'normal'), JSON.stringify(quietLinks));
  assert.deepEqual(quiet.details.unmonitored, []);
});

/**
 * Temporal panels against a generated process with known truth (test/helpers/temporal-panel.ts): J-PCMCI+ finds
 * the links and orients the same-step one through the environment context; each environment's mechanisms and
 * per-link judgements match the truth; forecasts per environment are close to the oracle's; the combined
 * forecast aggregates the environments' paths.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWasmKernels } from '../../../src/compute/wasm.js';
import { continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { judgeEdges } from '../../../src/engine/panel/evidence.js';
import { statisticsPlan } from '../../../src/engine/panel/fit.js';
import { panelForecast } from '../../../src/engine/panel/forecast.js';
import { type EnvironmentSeries, discoverTemporalPanel, environmentTemporalModel, fitTemporalPanel, seasonalPhases, temporalShardStatistics } from '../../../src/engine/panel/temporal.js';
import { Rng } from '../../../src/engine/random.js';
import { seasonNames } from '../../../src/engine/temporal/lagged.js';
import { futureFrom } from '../../../src/engine/temporal/forecast.js';
import { designEdges } from '../../../src/engine/temporal/model.js';
import type { TemporalStructure } from '../../../src/engine/temporal/model.js';
import { inferTimeline } from '../../../src/engine/temporal/timeline.js';
import type { NodeModel } from '../../../src/engine/types.js';
import { TEMPORAL_PANEL_LINKS, laplace, oraclePath, slopePanel, temporalPanelRows, temporalPanelTruth } from '../../helpers/temporal-panel.js';

const kernels = loadWasmKernels();
const VARIABLES = ['x', 'y', 'z', 'w'] as const;

function seriesOf(truth: ReturnType<typeof temporalPanelTruth>, rows: Array<Record<string, number | string>>): EnvironmentSeries[] {
  return truth.keys.map((key) => {
    const own = rows.filter((r) => `site=${r.site}` === key);
    const stepTimes = own.map((r) => Date.parse(String(r.day)));
    return {
      key,
      frame: frameOf(VARIABLES.map((v) => continuousColumn(v, own.map((r) => r[v] as number)))),
      stepTimes,
      timeline: inferTimeline(stepTimes, 'time'),
      observedSteps: own.length,
    };
  });
}

const keyOf = (l: { source: string; target: string; lag: number }) => `${l.source}>${l.target}@${l.lag}`;

test('J-PCMCI+ finds the lagged and same-step links and orients y -> z through the environment', () => {
  const truth = temporalPanelTruth(16, 3, { minSteps: 150, maxSteps: 400 });
  const series = seriesOf(truth, temporalPanelRows(truth, 4).rows);
  const found = discoverTemporalPanel(series.map((s) => s.frame), { maxLag: 2, alpha: 0.01, periods: [] }, kernels);
  const links = new Set(found.links.map(keyOf));
  const missing = TEMPORAL_PANEL_LINKS.filter((l) => !links.has(l));
  const extra = [...links].filter((l) => !TEMPORAL_PANEL_LINKS.includes(l));
  assert.deepEqual(missing, [], `links found: ${[...links].join(', ')}`);
  assert.ok(extra.length <= 1, `spurious links: ${extra.join(', ')}`);
  const yz = found.links.find((l) => keyOf(l) === 'y>z@0')!;
  assert.equal(yz.orientation, 'compelled', 'the environment orients y -> z (it changes z, not y)');
  // z's level shifts per environment; w's slope on x varies (context-tests.ts sees slopes as well as levels).
  assert.ok(found.changing.includes('z') && found.changing.includes('w'), `changing: ${found.changing.join(', ')}`);
  assert.ok(!found.changing.includes('y') && !found.changing.includes('x'), `changing: ${found.changing.join(', ')}`);
});

test('a slope that differs across environments orients a same-step link and marks the mechanism as changing', () => {
  const options = { maxLag: 1, alpha: 0.01, periods: [] };
  const slopes = Array.from({ length: 12 }, (_, e) => 0.2 + (1.4 * e) / 11);
  for (const seed of [1, 2, 3]) {
    const found = discoverTemporalPanel(slopePanel(slopes, seed), options, kernels);
    const ab = found.links.find((l) => l.lag === 0 && ((l.source === 'a' && l.target === 'b') || (l.source === 'b' && l.target === 'a')));
    assert.deepEqual([ab?.source, ab?.target, ab?.orientation], ['a', 'b', 'compelled'], `seed ${seed}: ${JSON.stringify(found.links)}`);
    assert.deepEqual(found.changing, ['b'], `seed ${seed}`);
  }
  // The same slope everywhere, Gaussian or heavy-tailed noise: nothing changes, and the link stays reversible.
  for (const [seed, noise] of [[4, undefined], [5, laplace], [6, laplace]] as const) {
    const found = discoverTemporalPanel(slopePanel(slopes.map(() => 0.9), seed, noise), options, kernels);
    assert.deepEqual(found.changing, [], `seed ${seed}`);
    assert.equal(found.links.find((l) => l.lag === 0)?.orientation, 'reversible', `seed ${seed}: ${JSON.stringify(found.links)}`);
  }
});

test('per-environment mechanisms, the gated same-step link and its agreement rate', () => {
  const truth = temporalPanelTruth(30, 5, { minSteps: 120, maxSteps: 400 });
  const series = seriesOf(truth, temporalPanelRows(truth, 6).rows);
  const structure: TemporalStructure = { edges: TEMPORAL_PANEL_LINKS.map((l) => { const [pair, lag] = l.split('@'); const [source, target] = pair!.split('>'); return { source: source!, target: target!, lag: Number(lag) }; }), seasonal: [] };
  const model = fitTemporalPanel(series, structure, ['site'], kernels);
  // The largest environments' coefficients of y on z and of x on w are close to their truth.
  const order = truth.keys.map((_, e) => e).sort((a, b) => truth.lengths[b]! - truth.lengths[a]!).slice(0, 5);
  for (const e of order) {
    const z = environmentTemporalModel(model, truth.keys[e]!).cbn.nodes.find((n) => n.name === 'z') as Extract<NodeModel, { kind: 'continuous' }>;
    const k = z.terms.findIndex((t) => t.parents.length === 1 && t.parents[0] === 'y');
    assert.ok(Math.abs(z.coefficients[k]! - truth.yz[e]!) < 0.15, `${truth.keys[e]}: y -> z ${z.coefficients[k]} vs ${truth.yz[e]}`);
  }
  const frames = series.map((s) => s.frame);
  const plan = statisticsPlan(model.pooled);
  const shard = temporalShardStatistics(frames, frames.map((_, e) => e), structure, plan);
  const edges = designEdges(frames[0]!, structure).edges;
  const judged = judgeEdges(edges, plan.families, shard.moments, 0.01);
  const yz = judged.find((j) => j.source === 'y' && j.target === 'z')!;
  assert.equal(yz.gated, true, 'y -> z holds in half of the environments');
  assert.ok(Math.abs(yz.agreementRate! - truth.presence) <= 0.1, `agreement ${yz.agreementRate} vs ${truth.presence}`);
  const xx = judged.find((j) => j.source === 'x\u27e8t-1\u27e9' && j.target === 'x')!;
  assert.equal(xx.gated, false);
  assert.ok(xx.agreementRate! >= 0.9, `x's own past holds everywhere: ${xx.agreementRate}`);
});

test('per-environment forecasts are within 10% of the oracle\'s error, and the combined series aggregates them', async () => {
  const truth = temporalPanelTruth(12, 7, { minSteps: 300, maxSteps: 600 });
  const horizon = 5;
  const origins = 8;
  const { rows, future } = temporalPanelRows(truth, 8, horizon * origins);
  const series = seriesOf(truth, rows);
  const structure: TemporalStructure = { edges: TEMPORAL_PANEL_LINKS.map((l) => { const [pair, lag] = l.split('@'); const [source, target] = pair!.split('>'); return { source: source!, target: target!, lag: Number(lag) }; }), seasonal: [] };
  const model = fitTemporalPanel(series, structure, ['site'], kernels);
  // Forecast from the end of each environment's data: its first `horizon` held-out steps are the truth to meet.
  let ours = 0;
  let oracle = 0;
  truth.keys.forEach((key, e) => {
    const own = environmentTemporalModel(model, key);
    const paths = futureFrom(own, { report: own.steps, simulate: own.steps }, horizon, { samples: 400, seed: e });
    const lastRow = rows.filter((r) => `site=${r.site}` === key).at(-1)!;
    const expected = oraclePath(truth, e, { x: lastRow.x as number, y: lastRow.y as number, z: lastRow.z as number, w: lastRow.w as number }, horizon);
    for (let h = 0; h < horizon; h++) {
      for (const v of VARIABLES) {
        const mean = paths[v]![h]!.reduce((a, b) => a + b, 0) / paths[v]![h]!.length;
        ours += (mean - future[e]![h]![v]) ** 2;
        oracle += (expected[h]![v] - future[e]![h]![v]) ** 2;
      }
    }
  });
  assert.ok(ours / oracle <= 1.1, `forecast mse over the oracle's: ${(ours / oracle).toFixed(3)}`);

  const outcome = await panelForecast.run(model, { type: 'panel_forecast', forecastH: 3, targetVars: ['z'], aggregateMode: 'sum', samples: 300 }, { seed: 1, hooks: {}, evaluateMetric: async () => 0 });
  assert.equal(Object.keys(outcome.panelResults!).length, truth.keys.length);
  // Every environment ends on its own day: each combined timestamp sums the environments forecasting it.
  const combined = outcome.results.z!;
  const counts = (outcome.details.combined as Record<string, Array<{ timestamp: number; environments: number }>>).z!;
  combined.forEach((record, i) => {
    const expected = Object.values(outcome.panelResults!).flatMap((r) => r.z!.filter((x) => x.timestamp === record.timestamp)).reduce((s, x) => s + (x.prediction as number), 0);
    assert.equal(counts[i]!.timestamp, record.timestamp);
    assert.ok(Math.abs((record.prediction as number) - expected) < 1e-6 * Math.max(1, Math.abs(expected)), `sum of means at ${record.timestamp}: ${record.prediction} vs ${expected}`);
  });
});

test('a season shared by environments that start on different dates is one pattern: phases count from the panel\'s first step', () => {
  // y_t = 0.5 y_{t-1} + 2 sin(2 pi d / 7) + e_t on calendar day d; twelve short environments, each starting on a
  // different day (so on a different weekday), 40 to 150 days long.
  const DAY = 86_400_000;
  const rng = new Rng(17);
  const season = (day: number) => 2 * Math.sin((2 * Math.PI * day) / 7);
  const series: EnvironmentSeries[] = Array.from({ length: 12 }, (_, e) => {
    const start = 19_000 + 3 * e;
    const steps = 40 + rng.int(110);
    const y: number[] = [];
    let previous = 0;
    for (let t = 0; t < steps + 50; t++) {
      previous = 0.5 * previous + season(start - 50 + t) + rng.normal();
      if (t >= 50) y.push(previous);
    }
    const stepTimes = y.map((_, t) => (start + t) * DAY);
    return { key: `site=s${e}`, frame: frameOf([continuousColumn('y', y)]), stepTimes, timeline: inferTimeline(stepTimes, 'time'), observedSteps: steps };
  });
  const phases = seasonalPhases(series.map((s) => s.timeline));
  assert.deepEqual(phases, series.map((_, e) => 3 * e));
  const structure: TemporalStructure = { edges: [{ source: 'y', target: 'y', lag: 1 }], seasonal: [{ variable: 'y', period: 7 }] };
  const amplitude = (model: ReturnType<typeof fitTemporalPanel>) => {
    const node = model.pooled.nodes.find((n) => n.name === 'y') as Extract<NodeModel, { kind: 'continuous' }>;
    const [sin, cos] = seasonNames(7).map((term) => node.coefficients[node.terms.findIndex((t) => t.parents[0] === term)]!);
    return Math.hypot(sin!, cos!);
  };
  const aligned = fitTemporalPanel(series.map((s, e) => ({ ...s, phase: phases[e]! })), structure, ['site'], kernels);
  const unaligned = fitTemporalPanel(series, structure, ['site'], kernels);
  assert.ok(Math.abs(amplitude(aligned) - 2) < 0.3, `pooled seasonal amplitude ${amplitude(aligned)} (truth 2)`);
  assert.ok(amplitude(unaligned) < 1.2, `without phases the environments' seasons cancel: ${amplitude(unaligned)}`);
  // Each environment's forecast follows the calendar's season: the mean path against the oracle's.
  let ours = 0;
  let oracle = 0;
  series.forEach((s, e) => {
    const own = environmentTemporalModel(aligned, s.key);
    assert.equal(own.phase, phases[e]);
    const horizon = 7;
    const paths = futureFrom(own, { report: own.steps, simulate: own.steps }, horizon, { samples: 300, seed: e });
    const values = (s.frame.columns[0] as { values: Float64Array }).values;
    let mean = values[values.length - 1]!;
    const lastDay = s.stepTimes.at(-1)! / DAY;
    for (let h = 0; h < horizon; h++) {
      mean = 0.5 * mean + season(lastDay + h + 1);
      const simulated = paths.y![h]!.reduce((a, b) => a + b, 0) / paths.y![h]!.length;
      ours += (simulated - mean) ** 2;
      oracle += mean ** 2;
    }
  });
  assert.ok(ours / oracle < 0.05, `forecast error against the oracle's mean path: ${(ours / oracle).toFixed(3)} of its energy`);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWasmKernels } from '../../../src/compute/wasm.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { Rng } from '../../../src/engine/random.js';
import { benjaminiHochberg, discoverTemporal } from '../../../src/engine/temporal/discover.js';
import { runForecast } from '../../../src/engine/temporal/forecast.js';
import { runTemporalIntervention } from '../../../src/engine/temporal/intervention.js';
import { fitTemporal } from '../../../src/engine/temporal/model.js';
import { findSeasonality } from '../../../src/engine/temporal/seasonality.js';
import { buildSeries } from '../../../src/engine/temporal/series.js';
import { randomLaggedScm, simulateLagged, stepValues } from '../../../src/engine/temporal/simulate.js';
import { inferTimeline, readTime, stepOf, timestampAt } from '../../../src/engine/temporal/timeline.js';
import type { Frame } from '../../../src/engine/types.js';

const kernels = loadWasmKernels();
const utc = (...parts: number[]) => Date.UTC(parts[0]!, parts[1]! - 1, parts[2] ?? 1, parts[3] ?? 0, parts[4] ?? 0, parts[5] ?? 0);

test('the granularity is inferred from the typical spacing, months and years stepping by the calendar', () => {
  const spaced = (start: number, step: number, n: number) => Array.from({ length: n }, (_, k) => start + k * step);
  assert.equal(inferTimeline(spaced(0, 1000, 50), 'time').granularity, 'second');
  assert.deepEqual([inferTimeline(spaced(0, 15 * 60_000, 50), 'time').granularity, inferTimeline(spaced(0, 15 * 60_000, 50), 'time').every], ['minute', 15]);
  assert.equal(inferTimeline(spaced(0, 3_600_000, 50), 'time').granularity, 'hour');
  assert.equal(inferTimeline(spaced(utc(2024, 1, 1), 86_400_000, 50), 'time').granularity, 'day');
  assert.equal(inferTimeline(spaced(utc(2024, 1, 1), 7 * 86_400_000, 50), 'time').granularity, 'week');
  const months = Array.from({ length: 30 }, (_, k) => utc(2020, 1 + k, 31 > 28 ? 1 : 1));
  assert.equal(inferTimeline(months, 'time').granularity, 'month');
  assert.equal(inferTimeline(Array.from({ length: 12 }, (_, k) => utc(2020, 1 + 3 * k, 1)), 'time').granularity, 'quarter');
  assert.equal(inferTimeline(Array.from({ length: 12 }, (_, k) => utc(2000 + k, 1, 1)), 'time').granularity, 'year');
  assert.deepEqual(inferTimeline([10, 12, 14, 16], 'index'), { axis: 'index', granularity: 'step', every: 2, origin: 10 });
  // Month ends: Jan 31 + 1 month is Feb 29 (2024), and steps count calendar months.
  const monthly = inferTimeline([utc(2024, 1, 31), utc(2024, 2, 29), utc(2024, 3, 31)], 'time');
  assert.equal(new Date(timestampAt(monthly, 1)).toISOString().slice(0, 10), '2024-02-29');
  assert.equal(Math.round(stepOf(monthly, utc(2024, 7, 31))), 6);
  assert.equal(readTime('2024-03-05'), utc(2024, 3, 5));
  assert.equal(readTime('2024-03-05 10:30:00'), utc(2024, 3, 5, 10, 30));
  assert.equal(readTime('2024-03-05T10:30:00+02:00'), utc(2024, 3, 5, 8, 30));
  assert.equal(readTime(''), null);
  assert.equal(readTime('soon'), null);
});

test('a series is sorted, placed on its grid, duplicates combined, gaps and rows without a time reported', () => {
  const day = 86_400_000;
  const times = ['2024-01-03', '2024-01-01', '2024-01-02', '2024-01-02', '2024-01-05', null, '2024-01-06'];
  const sales = continuousColumn('sales', [3, 1, 2, 4, 5, 99, 6]);
  const plan = categoricalColumn('plan', ['b', 'a', 'a', 'a', 'b', 'a', null]);
  const series = buildSeries(times, [sales, plan], 'time');
  assert.equal(series.timeline.granularity, 'day');
  assert.equal(series.frame.nRows, 6);
  const values = (series.frame.columns[0] as { values: Float64Array }).values;
  assert.deepEqual(Array.from(values.slice(0, 3)), [1, 3, 3]); // Jan 2: the mean of 2 and 4
  assert.ok(Number.isNaN(values[3]!)); // Jan 4: a gap
  assert.equal(series.stepTimes[5], utc(2024, 1, 1) + 5 * day);
  assert.deepEqual(series.profile.gaps, { count: 1, missingSteps: 1, longestSteps: 1, missingShare: Number((1 / 6).toFixed(4)) });
  assert.equal(series.profile.duplicateTimestampRows, 1);
  assert.equal(series.profile.rowsWithoutTime, 1);
  assert.equal(series.profile.missingShare.plan, 0.2); // Jan 6 has no plan
  assert.equal(series.profile.irregular, false);
  // Far too sparse for a grid: one step per distinct time, said so.
  const sparse = buildSeries([0, 1, 2, 3, 1000, 1001, 5000, 5001], [continuousColumn('x', [1, 2, 3, 4, 5, 6, 7, 8])], 'index');
  assert.equal(sparse.profile.irregular, true);
  assert.equal(sparse.frame.nRows, 8);
});

test('a finer series put on a coarser grid: each row in the step it lies in, combined by mean or sum', () => {
  const hour = 3_600_000;
  const day = 24 * hour;
  const daily = buildSeries(['2024-01-01', '2024-01-02', '2024-01-03'], [continuousColumn('sales', [1, 2, 3])], 'time');
  // Hourly rows from Jan 2, 06:00 to Jan 4, 05:00: 18 hours on Jan 2, 24 on Jan 3, 6 on Jan 4.
  const start = utc(2024, 1, 2) + 6 * hour;
  const times = Array.from({ length: 48 }, (_, k) => new Date(start + k * hour).toISOString());
  const sales = continuousColumn('sales', times.map(() => 2));
  const plan = categoricalColumn('plan', times.map((_, k) => (k < 24 ? 'a' : 'b')));
  for (const combine of ['mean', 'sum'] as const) {
    const series = buildSeries(times, [sales, plan], 'time', { timeline: daily.timeline, combine });
    assert.equal(series.timeline.granularity, 'day');
    assert.equal(series.timeline.origin, utc(2024, 1, 2), 'the grid step holding the first row');
    assert.deepEqual(series.stepTimes, [utc(2024, 1, 2), utc(2024, 1, 2) + day, utc(2024, 1, 2) + 2 * day]);
    const values = Array.from((series.frame.columns[0] as { values: Float64Array }).values);
    assert.deepEqual(values, combine === 'sum' ? [36, 48, 12] : [2, 2, 2]);
    const codes = (series.frame.columns[1] as { codes: Int32Array; categories: string[] });
    assert.deepEqual(Array.from(codes.codes, (c) => codes.categories[c]), ['a', 'b', 'b']); // Jan 3: 6 a, 18 b
    assert.match(series.profile.aggregation, new RegExp(`the ${combine} of a numeric variable`));
  }
});

test('seasonality: a known period is found, white noise has none', () => {
  const rng = new Rng(3);
  const n = 240;
  const wave = continuousColumn('demand', Array.from({ length: n }, (_, t) => 100 + 0.05 * t + 8 * Math.sin((2 * Math.PI * t) / 12) + rng.normal()));
  const noise = continuousColumn('noise', Array.from({ length: n }, () => rng.normal()));
  const found = findSeasonality(frameOf([wave, noise]), [12]);
  assert.deepEqual(found.map((f) => [f.variable, f.period]), [['demand', 12]]);
  assert.ok(found[0]!.strength > 1);
  // Without the calendar's hint the periodogram finds it too.
  const unhinted = findSeasonality(frameOf([wave]), []);
  assert.ok(Math.abs(unhinted[0]!.period - 12) < 0.5, JSON.stringify(unhinted));
});

/** F1 of the found links against the model's (lagged, self links included; same-step by direction). */
function linkF1(truth: Array<{ source: string; target: string; lag: number }>, found: Array<{ source: string; target: string; lag: number }>) {
  const key = (l: { source: string; target: string; lag: number }) => `${l.source}>${l.target}@${l.lag}`;
  const t = new Set(truth.map(key));
  const hits = found.filter((l) => t.has(key(l))).length;
  return (2 * hits) / (truth.length + found.length);
}

test('temporal discovery recovers lagged and same-step links of generated models, with no link into the past', () => {
  for (const seed of [1, 2, 3]) {
    const model = randomLaggedScm(8, seed, { maxLag: 2, contemporaneous: 0.1 });
    const frame = simulateLagged(model, 2000, seed + 10);
    const result = discoverTemporal(frame, { maxLag: 2, alpha: 0.05, periods: [] }, kernels);
    const f1 = linkF1(model.links, result.links);
    assert.ok(f1 >= 0.85, `seed ${seed}: F1 ${f1.toFixed(3)}`);
    assert.ok(result.links.every((l) => l.lag >= 0 && l.lag <= 2 && (l.lag > 0 ? l.orientation === 'time' : l.orientation !== 'time')));
  }
});

test('temporal discovery on mixed series: categorical variables take part through the mixed test', () => {
  const model = randomLaggedScm(6, 4, { maxLag: 1, categoricalShare: 0.4 });
  assert.ok(model.kinds.includes('categorical'));
  const frame = simulateLagged(model, 3000, 5);
  const result = discoverTemporal(frame, { maxLag: 1, alpha: 0.05, periods: [] }, kernels);
  const f1 = linkF1(model.links, result.links);
  assert.ok(f1 >= 0.7, `F1 ${f1.toFixed(3)}`);
});

test('pins name a lag: a required link is kept at its lag, a forbidden one (any lag) never appears', () => {
  const model = randomLaggedScm(5, 6, { maxLag: 1 });
  const frame = simulateLagged(model, 1500, 7);
  const strongest = model.links.filter((l) => l.source !== l.target).sort((a, b) => Math.abs(b.weight) - Math.abs(a.weight))[0]!;
  const absent = { source: model.names.find((n) => !model.links.some((l) => l.target === n && l.source === strongest.target))!, target: strongest.target };
  const result = discoverTemporal(frame, {
    maxLag: 2,
    alpha: 0.05,
    periods: [],
    required: [{ source: 'V1', target: 'V2', lag: 2 }],
    forbidden: [{ source: strongest.source, target: strongest.target }],
  }, kernels);
  assert.ok(result.links.some((l) => l.source === 'V1' && l.target === 'V2' && l.lag === 2 && l.orientation === 'fixed'));
  assert.ok(!result.links.some((l) => l.source === strongest.source && l.target === strongest.target), 'forbidden at every lag');
  assert.ok(absent !== undefined);
});

test('Benjamini-Hochberg q-values', () => {
  assert.deepEqual(Array.from(benjaminiHochberg(Float64Array.from([0.01, 0.04, 0.03, 0.5]))).map((q) => Number(q.toFixed(4))), [0.04, 0.0533, 0.0533, 0.5]);
});

test('forecasts of a fitted lagged model: close to the true conditional mean, 90% intervals covering about 90%', async () => {
  const truth = randomLaggedScm(4, 8, { maxLag: 2, contemporaneous: 0.2, seasonalPeriod: 12, seasonalShare: 0.5 });
  const steps = 3000;
  const frame = simulateLagged(truth, steps, 9, 200);
  const series: Frame = frame;
  const stepTimes = Array.from({ length: steps }, (_, k) => k);
  const timeline = inferTimeline(stepTimes, 'index');
  const found = discoverTemporal(series, { maxLag: 2, alpha: 0.05, periods: [12] }, kernels);
  const model = fitTemporal(series, stepTimes, timeline, { edges: found.links, seasonal: found.seasonal }, { seed: 1 }, kernels);
  // Origins in the last part of the data: the fitted forecast against the oracle (the true model's mean path).
  const rng = new Rng(11);
  let covered = 0;
  let intervals = 0;
  let fittedError = 0;
  let oracleError = 0;
  const history = Array.from({ length: steps }, (_, t) => truth.names.map((_, j) => (frame.columns[j] as { values: Float64Array }).values[t]!));
  for (let k = 0; k < 30; k++) {
    const origin = steps - 400 + k * 10;
    const answer = await runForecast(model, { type: 'forecast', forecastH: 3, originTimestamp: origin, confidenceLevel: 0.9, samples: 500 }, { seed: k + 1, hooks: {}, evaluateMetric: () => Promise.reject(new Error('none')) });
    // The oracle: the true model's mean over paths from the same history (burn-in offset 200 for its wave's phase).
    const paths = 400;
    const means = truth.names.map(() => [0, 0, 0]);
    for (let p = 0; p < paths; p++) {
      // Indexed as the simulation was (200 burn-in steps first), so lags and the wave's phase line up.
      const path = [...Array.from({ length: 200 }, () => truth.names.map(() => 0)), ...history.slice(0, origin)];
      for (let h = 0; h < 3; h++) {
        const values = stepValues(truth, path, 200 + origin + h, () => rng.normal());
        path.push(values);
        values.forEach((v, j) => (means[j]![h]! += v / paths));
      }
    }
    truth.names.forEach((name, j) => {
      for (let h = 0; h < 3; h++) {
        const record = answer.results[name]![h]!;
        const actual = history[origin + h]![j]!;
        fittedError += ((record.prediction as number) - actual) ** 2;
        oracleError += (means[j]![h]! - actual) ** 2;
        intervals++;
        if ((record.lowerBound as number) <= actual && actual <= (record.upperBound as number)) covered++;
      }
    });
  }
  assert.ok(fittedError < 1.2 * oracleError, `fitted MSE ${fittedError / intervals}, oracle ${oracleError / intervals}`);
  const coverage = covered / intervals;
  assert.ok(coverage > 0.82 && coverage < 0.97, `coverage ${coverage}`);
});

test('a categorical series is forecast as class probabilities per step, with the history it starts from', async () => {
  const truth = randomLaggedScm(4, 12, { maxLag: 1, categoricalShare: 0.5 });
  const name = truth.names[truth.kinds.indexOf('categorical')]!;
  const frame = simulateLagged(truth, 1500, 13);
  const stepTimes = Array.from({ length: frame.nRows }, (_, k) => k);
  const found = discoverTemporal(frame, { maxLag: 1, alpha: 0.05, periods: [] }, kernels);
  const model = fitTemporal(frame, stepTimes, inferTimeline(stepTimes, 'index'), { edges: found.links, seasonal: found.seasonal }, { seed: 1 }, kernels);
  const answer = await runForecast(model, { type: 'forecast', forecastH: 4, targetVars: [name] }, { seed: 2, hooks: {}, evaluateMetric: () => Promise.reject(new Error('none')) });
  const records = answer.results[name]!;
  assert.equal(records.length, 4);
  assert.deepEqual(records.map((r) => r.timestamp), [1500, 1501, 1502, 1503]);
  for (const record of records) {
    assert.ok(Math.abs(record.probabilities!.reduce((a, b) => a + b, 0) - 1) < 1e-9);
    assert.ok(record.categories!.includes(record.prediction as string));
  }
  assert.equal(answer.history![name]!.values.length, 50);
  assert.equal(answer.history![name]!.timestamps.at(-1), 1499);
});

test('a what-if that rests on a same-step link the data cannot orient says so, with the effect under each direction', async () => {
  // x and y without memory: y = 1.5 x + e at the same step, nothing in time tells x -> y from y -> x.
  const rng = new Rng(21);
  const n = 2000;
  const x = Array.from({ length: n }, () => rng.normal());
  const y = x.map((v) => 1.5 * v + rng.normal());
  const z: number[] = [];
  for (let t = 0; t < n; t++) z.push(0.6 * (z[t - 1] ?? 0) + rng.normal());
  const series = frameOf([continuousColumn('x', x), continuousColumn('y', y), continuousColumn('z', z)]);
  const stepTimes = Array.from({ length: n }, (_, k) => k);
  const found = discoverTemporal(series, { maxLag: 1, alpha: 0.05, periods: [] }, kernels);
  const link = found.links.find((l) => l.lag === 0 && [l.source, l.target].sort().join() === 'x,y')!;
  assert.equal(link.orientation, 'reversible');
  const model = fitTemporal(series, stepTimes, inferTimeline(stepTimes, 'index'), { edges: found.links, seasonal: [] }, { seed: 1 }, kernels);
  const context = { seed: 3, hooks: {}, evaluateMetric: () => Promise.reject(new Error('none')), identification: { reversible: [{ source: link.source, target: link.target }], trainingRows: n, kernels } };
  const answer = await runTemporalIntervention(model, { type: 'temporal_intervention', interventions: [{ variable: 'x', valueSpec: { type: 'set_value', value: 2 } }], targetVars: ['y'], forecastH: 3 }, context);
  const flags = (answer.details.identification as Record<string, { identified: boolean; decidingEdges: unknown[]; possibleDifferences: Array<{ difference: number; chosen: boolean }> }>).y!;
  assert.equal(flags.identified, false);
  assert.deepEqual(flags.decidingEdges, [{ source: link.source, target: link.target }]);
  const values = flags.possibleDifferences.map((p) => p.difference).sort((a, b) => a - b);
  assert.equal(values.length, 2, JSON.stringify(flags.possibleDifferences));
  // 1.5 x (2 - the mean of x), up to the Monte Carlo error of the 500 paths each alternative runs (sd 0.07).
  assert.ok(Math.abs(values[0]!) < 0.1 && Math.abs(values[1]! - 3) < 0.35, `possible effects ${values.join(', ')}; truth 0 or 1.5 x 2`);
  assert.equal(flags.possibleDifferences.filter((p) => p.chosen).length, 1);
  assert.match(answer.summary.keyPoints[0]!, /cannot tell the direction of/);
  // z is not downstream of x: it is not reported.
  assert.equal((answer.details.effects as Record<string, unknown>).z, undefined);
});

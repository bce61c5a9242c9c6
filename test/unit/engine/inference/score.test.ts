import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { predictContinuous } from '../../../../src/engine/cbn/predict.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import { compileScm, frameFromRecords, propagate } from '../../../../src/engine/inference/scm.js';
import type { ScoreQuestion, Value } from '../../../../src/engine/inference/scenario.js';
import { runScore, scoredRow } from '../../../../src/engine/inference/score.js';
import { ScoreTally } from '../../../../src/engine/inference/score-digest.js';
import { planChangeSearch, searchUnits } from '../../../../src/engine/inference/search.js';
import { resolveTargets } from '../../../../src/engine/inference/target-match.js';
import { abductNeutral, targetPredictions, UnitProbe } from '../../../../src/engine/inference/unit-probe.js';
import { modelEdges, randomModel, sampleModel } from '../../../../src/engine/simulate.js';
import type { CbnModel, Frame, NodeModel } from '../../../../src/engine/types.js';

const linear = (name: string, parents: string[], coefficients: number[], intercept: number, mean: number, std: number): NodeModel => ({
  name, kind: 'continuous', parents, terms: parents.map((p) => ({ kind: 'linear', parents: [p] })), intercept, coefficients, noiseStd: 1,
  residualQuantiles: [], mean, std,
});

/** M = 2X + e, Y = 1 + M + 0.5X + Z + e; means X 1, M 2, Z 0, Y 3.5 (intercepts consistent with them). */
const twin: CbnModel = {
  nodes: [
    linear('X', [], [], 1, 1, 2),
    linear('Z', [], [], 0, 0, 1),
    linear('M', ['X'], [2], 0, 2, Math.sqrt(17)),
    linear('Y', ['M', 'X', 'Z'], [1, 0.5, 1], 1, 3.5, 5),
  ],
};

const context: InferenceContext = { seed: 11, hooks: {}, evaluateMetric: () => Promise.reject(new Error('no metrics here')) };

/** Scores records in chunks of `chunk` rows and reads them back as a reader sees them, with the digest of them all. */
async function score(model: CbnModel, request: ScoreQuestion & { rows: Record<string, Value | null>[] }, options: { context?: InferenceContext; chunk?: number } = {}) {
  const { rows: records, ...question } = request;
  const chunk = options.chunk ?? records.length;
  const tally = new ScoreTally(model);
  const rows = [];
  for (let offset = 0; offset < records.length; offset += chunk) {
    const columns = await runScore(model, question, frameFromRecords({ model }, records.slice(offset, offset + chunk)), options.context ?? context);
    tally.add(offset, columns);
    for (let r = 0; r < columns.nRows; r++) rows.push({ ...scoredRow(model, question.targets.map((t) => t.variable), columns, r), index: offset + r });
  }
  return { rows, digest: tally.digest() };
}

const rows: Record<string, number | null>[] = [
  { X: 2, M: 5, Z: 1 }, // Y predicted 8: meets
  { X: 0, M: 1, Z: 0 }, // Y predicted 2: misses
  { X: 3, Z: 0 }, // M completed as 6, Y predicted 8.5: meets
  { M: 5, Z: 0 }, // X, a root Y needs, is missing: unscorable
  { X: 2, M: 5, Z: 1, Y: 100 }, // an observed target is not used to predict it
];

const near = (a: number, b: number, eps = 1e-9) => Math.abs(a - b) <= eps;

test('verdicts judge each target predicted from the row by its own equation', async () => {
  const out = await score(twin, { rows, targets: [{ variable: 'Y', value: 6, matchMode: 'orMore' }] });
  const scored = out.rows;
  assert.deepEqual(scored.map((r) => r.verdict), ['meets', 'misses', 'meets', 'unscorable', 'meets']);
  assert.deepEqual(scored.map((r) => r.predictions.Y), [8, 2, 8.5, null, 8]);
  assert.deepEqual(out.digest.verdicts, { meets: 3, misses: 1, unscorable: 1 });
  assert.match(out.digest.rowSummaries[3]!.summary, /no value for X/);
});

test('drivers are coefficient x deviation from the mean and add up to the deviation from the average prediction', async () => {
  const out = await score(twin, { rows, targets: [{ variable: 'Y', value: 6, matchMode: 'orMore' }] });
  const drivers = Object.fromEntries(out.rows[0]!.drivers.map((d) => [d.variable, d.contribution]));
  assert.ok(near(drivers.M!, 3) && near(drivers.X!, 0.5) && near(drivers.Z!, 1), JSON.stringify(drivers));
  assert.deepEqual(out.rows[0]!.drivers.map((d) => d.variable), ['M', 'Z', 'X']);
  // Row 2 lacks M: its contribution 1 x (6 - 2) passes to X along X -> M (2 x (3 - 1)), plus X's direct 0.5 x 2.
  const completed = out.rows[2]!.drivers;
  assert.equal(completed.length, 1);
  assert.equal(completed[0]!.variable, 'X');
  assert.ok(near(completed[0]!.contribution, 5), `${completed[0]!.contribution}`);
  // Mean |contribution| over the 4 scored rows: M (3 + 1 + 0 + 3) / 4, X (0.5 + 0.5 + 5 + 0.5) / 4, Z (1 + 0 + 0 + 1) / 4.
  const top = out.digest.topDrivers.map((d) => [d.variable, d.meanAbsContribution, d.rows]);
  assert.deepEqual(top.map((d) => d[0]), ['M', 'X', 'Z']);
  assert.ok(near(top[0]![1] as number, 1.75) && near(top[1]![1] as number, 1.625) && near(top[2]![1] as number, 0.5));
  assert.deepEqual(top.map((d) => d[2]), [3, 1, 0]);
});

test('a row that misses gets the smallest standardised change, re-simulated: X 0 -> 1.6 through M = 2X + 1', async () => {
  const out = await score(twin, { rows, targets: [{ variable: 'Y', value: 6, matchMode: 'orMore' }] });
  const miss = out.rows[1]!;
  assert.equal(miss.reachable, true);
  assert.equal(miss.changes.length, 1);
  assert.equal(miss.changes[0]!.variable, 'X');
  assert.equal(miss.changes[0]!.from, 0);
  assert.ok(near(miss.changes[0]!.to as number, 1.6, 1e-5), `X -> ${miss.changes[0]!.to}`);
  assert.equal(out.rows[0]!.reachable, null);
  assert.deepEqual(out.rows[0]!.changes, []);
});

/** A probe of the units' worlds that counts the rows it propagates. */
function countingProbe(scm: ReturnType<typeof compileScm>, units: Frame, targets: ReturnType<typeof resolveTargets>) {
  const probe = new UnitProbe(scm, abductNeutral(scm, units, 1), targetPredictions(scm, targets));
  const evaluate = probe.evaluate.bind(probe);
  let rows = 0;
  probe.evaluate = (requests) => {
    rows += requests.reduce((sum, q) => sum + q.rows.length, 0);
    return evaluate(requests);
  };
  return { probe, propagated: () => rows };
}

test('levers affine in the target are solved off the model\'s slopes: only each unit\'s answer is propagated', () => {
  const scm = compileScm(twin);
  const targets = resolveTargets(scm, [{ variable: 'Y', value: 12, matchMode: 'orMore' }]);
  const plan = planChangeSearch(scm, targets, {});
  assert.deepEqual([...plan.affine].map((i) => scm.names[i]).sort(), ['M', 'X', 'Z']);
  const units = frameFromRecords({ model: twin }, [{ X: 0, M: 1, Z: 0, Y: 0 }, { X: 1, M: 3, Z: -1, Y: 0 }, { X: -1, M: 0, Z: 0.5, Y: 0 }]);
  const { probe, propagated } = countingProbe(scm, units, targets);
  const answers = searchUnits(plan, probe, () => undefined);
  // Y's prediction is 1 + M + 0.5X + Z with M = 2X + its noise: 2.5 per unit of X (5 per std), 1 per unit of M
  // (4.1 per std), 1 per unit of Z (1 per std). X is the cheapest lever for every unit.
  const predicted = [2, 3.5, 1];
  answers.forEach((answer, u) => {
    assert.equal(answer.achieved, true);
    assert.deepEqual(answer.changes.map((c) => scm.names[c.node]), ['X']);
    const x = units.columns[0]!.kind === 'continuous' ? units.columns[0]!.values[u]! : Number.NaN;
    assert.ok(near(answer.changes[0]!.to, x + (12 - predicted[u]!) / 2.5, 1e-3), `unit ${u}: X -> ${answer.changes[0]!.to}`);
    assert.ok(answer.counterfactual[0]! >= 12);
  });
  // One propagated row per unit: its answer, re-simulated (probing and reading the lines by propagation took nine).
  assert.equal(propagated(), units.nRows);
});

test('two affine levers, neither downstream of the other, are solved together off the same slopes', () => {
  const scm = compileScm(twin);
  // No lever alone reaches Y >= 27 within its range (X at its top, 9, gives 24.5): X and Z together do.
  const targets = resolveTargets(scm, [{ variable: 'Y', value: 27, matchMode: 'orMore' }]);
  const plan = planChangeSearch(scm, targets, {});
  const { probe, propagated } = countingProbe(scm, frameFromRecords({ model: twin }, [{ X: 0, M: 1, Z: 0, Y: 0 }]), targets);
  const [answer] = searchUnits(plan, probe, () => undefined);
  assert.equal(answer!.achieved, true);
  assert.deepEqual(answer!.changes.map((c) => scm.names[c.node]).sort(), ['X', 'Z']);
  assert.ok(answer!.counterfactual[0]! >= 27, String(answer!.counterfactual[0]));
  // X with M is searched by propagation (setting M cuts X's path through it: two Newton steps of three rows); the
  // pairs X, Z and M, Z are read off the slopes; then the answer is re-simulated.
  assert.equal(propagated(), 7);
});

test('a row lists its five largest drivers by size, ties in the order of the variables, and counts its largest in the digest', async () => {
  // T = A + B + C + D + E + F + G: at these values the contributions are A 1, B -3, C 2, D 2, E -2, F 0.5, G 0.
  const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
  const wide: CbnModel = { nodes: [...names.map((name) => linear(name, [], [], 0, 0, 1)), linear('T', names, names.map(() => 1), 0, 0, 3)] };
  const out = await score(wide, { rows: [{ A: 1, B: -3, C: 2, D: 2, E: -2, F: 0.5, G: 0 }], targets: [{ variable: 'T', value: 0, matchMode: 'orMore' }] });
  assert.deepEqual(out.rows[0]!.drivers, [
    { variable: 'B', contribution: -3 },
    { variable: 'C', contribution: 2 },
    { variable: 'D', contribution: 2 },
    { variable: 'E', contribution: -2 },
    { variable: 'A', contribution: 1 },
  ]);
  assert.equal(out.digest.topDrivers.find((d) => d.variable === 'B')!.rows, 1);
  assert.equal(out.digest.topDrivers.find((d) => d.variable === 'C')!.rows, 0);
});

test('a categorical target is judged by its most likely class; drivers move the wanted class probability', async () => {
  const model: CbnModel = {
    nodes: [
      linear('X', [], [], 0, 0, 1),
      { name: 'C', kind: 'categorical', parents: ['X'], categories: ['no', 'yes'], marginal: [0.5, 0.5], logistic: { terms: [{ kind: 'linear', parents: ['X'] }], weights: [[0, 0], [0, 2]] } },
    ],
  };
  const out = await score(model, { rows: [{ X: 1 }, { X: -1 }], targets: [{ variable: 'C', value: 'yes' }] });
  const [meets, misses] = out.rows;
  assert.equal(meets!.verdict, 'meets');
  assert.equal(meets!.predictions.C, 'yes');
  assert.ok(near(meets!.drivers[0]!.contribution, 1 / (1 + Math.exp(-2)) - 0.5));
  assert.equal(misses!.verdict, 'misses');
  assert.equal(misses!.reachable, true);
  // The most likely class turns to yes as X crosses 0.
  const to = misses!.changes[0]!.to as number;
  assert.ok(to > 0 && to < 1e-6, `X -> ${to}`);
});

test('on a fitted 20-node linear twin every reachable change meets the targets when re-simulated independently', async () => {
  const truth = randomModel(20, 2, 5);
  const data = sampleModel(truth, 3000, 6);
  const model = fitCbn(data, modelEdges(truth), {}, kernels);
  const scm = compileScm(model);
  const target = model.nodes[model.nodes.length - 1]!;
  assert.ok(target.kind === 'continuous' && target.parents.length > 0 && target.parents.length <= 5);
  const records = Array.from({ length: 300 }, (_, r) => Object.fromEntries(data.columns.map((c) => [c.name, c.kind === 'continuous' ? c.values[r]! : null])));
  const wanted = target.mean + target.std;
  const out = await score(model, { rows: records, targets: [{ variable: target.name, value: wanted, matchMode: 'orMore' }] });
  const scored = out.rows;
  // Predictions are the node equation on the row's parents.
  const expected = predictContinuous(target, frameFromRecords(scm, records));
  scored.forEach((row, r) => assert.ok(near(row.predictions[target.name] as number, expected[r]!, 1e-9)));
  const misses = scored.filter((r) => r.verdict === 'misses');
  assert.ok(misses.length > 50, `${misses.length} rows miss`);
  const noise = abductNeutral(scm, frameFromRecords(scm, misses.map((r) => records[r.index]!)), context.seed);
  let reachable = 0;
  misses.forEach((row, i) => {
    if (!row.reachable) return;
    reachable++;
    const unit = noise.map((u) => Float64Array.of(u[i]!));
    const world = propagate(scm, unit, row.changes.map((c) => ({ node: c.variable, kind: 'set' as const, value: c.to as number })));
    assert.ok(predictContinuous(target, world)[0]! >= wanted, `row ${row.index} does not meet after its changes`);
  });
  assert.ok(reachable > misses.length * 0.9, `${reachable} of ${misses.length} reachable`);
  // Drivers of a complete row (one per parent) add up to the deviation from the average prediction.
  const complete = scored[0]!;
  const meanOf = (name: string) => {
    const node = model.nodes.find((n) => n.name === name)!;
    return node.kind === 'continuous' ? node.mean : Number.NaN;
  };
  const average = target.intercept + target.coefficients.reduce((s, b, t) => s + b * meanOf(target.terms[t]!.parents[0]!), 0);
  const sum = complete.drivers.reduce((s, d) => s + d.contribution, 0);
  assert.ok(near(sum, (complete.predictions[target.name] as number) - average, 1e-6), `${sum} vs ${(complete.predictions[target.name] as number) - average}`);
});

test('rows searched in lockstep answer as each searched alone, and a digest added over chunks is the digest of them all', async () => {
  const truth = randomModel(12, 2, 8, { categoricalShare: 0.25 });
  const data = sampleModel(truth, 2000, 9);
  const model = fitCbn(data, modelEdges(truth), {}, kernels);
  const target = [...model.nodes].reverse().find((n) => n.kind === 'continuous' && n.parents.length > 0)!;
  assert.ok(target.kind === 'continuous');
  const value = (c: (typeof data.columns)[number], r: number) => (c.kind === 'continuous' ? c.values[r]! : c.categories[c.codes[r]!]!);
  // Some cells missing, so completion and unscorable rows are part of it.
  const records = Array.from({ length: 120 }, (_, r) => Object.fromEntries(data.columns.filter((c) => c.name !== target.name && (r + c.name.length) % 11 !== 0).map((c) => [c.name, value(c, r)])));
  const request = { rows: records, targets: [{ variable: target.name, value: target.mean + 0.5 * target.std, matchMode: 'orMore' as const }] };
  const together = await score(model, request);
  const alone = await score(model, request, { chunk: 1 });
  assert.ok(together.rows.filter((r) => r.verdict === 'misses').length > 20);
  assert.deepEqual(alone.rows.map((r) => [r.verdict, r.reachable, r.changes]), together.rows.map((r) => [r.verdict, r.reachable, r.changes]));
  const chunked = await score(model, request, { chunk: 50 });
  assert.deepEqual(chunked.digest.verdicts, together.digest.verdicts);
  assert.deepEqual(chunked.digest.rowSummaries, together.digest.rowSummaries);
  assert.deepEqual(chunked.digest.topDrivers.map((d) => [d.variable, d.rows]), together.digest.topDrivers.map((d) => [d.variable, d.rows]));
  chunked.digest.topDrivers.forEach((d, i) => assert.ok(near(d.meanAbsContribution, together.digest.topDrivers[i]!.meanAbsContribution, 1e-9)));
});

test('an abort stops the change search of rows that miss', async () => {
  await assert.rejects(score(twin, { rows, targets: [{ variable: 'Y', value: 6, matchMode: 'orMore' }] }, { context: { ...context, hooks: { aborted: () => true } } }), (e: Error) => e.name === 'AbortError');
});

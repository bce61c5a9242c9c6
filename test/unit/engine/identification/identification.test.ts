import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { continuousColumn, frameOf } from '../../../../src/engine/frame.js';
import { edgeOrientations } from '../../../../src/engine/identification/class.js';
import { decidingEdges } from '../../../../src/engine/identification/paths.js';
import { pdagFromEdges } from '../../../../src/engine/graph/pdag.js';
import type { VariableEffect } from '../../../../src/engine/inference/intervention-effects.js';
import type { IdentifiedMembers } from '../../../../src/engine/inference/identified-effects.js';
import { runExplanation } from '../../../../src/engine/inference/explanation.js';
import { runIntervention } from '../../../../src/engine/inference/intervention.js';
import { runOptimisation } from '../../../../src/engine/inference/optimisation.js';
import type { InferenceContext } from '../../../../src/engine/inference/outcome.js';
import type { EdgeRef, Frame } from '../../../../src/engine/types.js';
import { seededRandom } from '../../../helpers/simulated.js';

const e = (source: string, target: string): EdgeRef => ({ source, target });

test('a chain is reversible, a v-structure and what Meek rules derive from it are compelled', () => {
  assert.deepEqual(edgeOrientations(['a', 'b', 'c'], [e('a', 'b'), e('b', 'c')], { required: [], forbidden: [] }), ['reversible', 'reversible']);
  const collider = [e('a', 'c'), e('b', 'c'), e('c', 'd'), e('d', 'f'), e('g', 'h')];
  assert.deepEqual(edgeOrientations(['a', 'b', 'c', 'd', 'f', 'g', 'h'], collider, { required: [], forbidden: [] }), ['compelled', 'compelled', 'compelled', 'compelled', 'reversible']);
});

test('a pinned edge is fixed, and so is an edge the pin forces through Meek rules', () => {
  assert.deepEqual(edgeOrientations(['a', 'b', 'c'], [e('a', 'b'), e('b', 'c')], { required: [e('a', 'b')], forbidden: [] }), ['fixed', 'fixed']);
  // Forbidding b -> a orients a -> b, and with it b -> c.
  assert.deepEqual(edgeOrientations(['a', 'b', 'c'], [e('a', 'b'), e('b', 'c')], { required: [], forbidden: [e('b', 'a')] }), ['fixed', 'fixed']);
});

test('the deciding edges are the undirected first edges of possibly causal paths to the outcome', () => {
  const names = ['x', 'a', 'y', 'z'];
  // x - a - y undirected, z -> y directed (as if compelled).
  const g = pdagFromEdges(names, [{ source: 'x', target: 'a', directed: false }, { source: 'a', target: 'y', directed: false }, { source: 'z', target: 'y', directed: true }]);
  assert.deepEqual(decidingEdges(g, [0], 2), [[0, 1]]);
  assert.deepEqual(decidingEdges(g, [2], 3), []); // z is upstream of y in every DAG: no possibly causal path from y
  assert.deepEqual(decidingEdges(g, [3], 2), []); // z -> y is directed: identified
  assert.deepEqual(decidingEdges(g, [0, 1], 2), [[1, 2]]); // jointly: only a - y decides
});

/** Truth x -> a -> y (a = 1.2x + e, y = 1.4a + e): the effect of x on y is 1.68. */
function chainFrame(n: number, seed: number): Frame {
  const random = seededRandom(seed);
  const x = new Float64Array(n);
  const a = new Float64Array(n);
  const y = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    x[i] = random.normal();
    a[i] = 1.2 * x[i]! + random.normal();
    y[i] = 1.4 * a[i]! + random.normal();
  }
  return frameOf([continuousColumn('x', [...x]), continuousColumn('a', [...a]), continuousColumn('y', [...y])]);
}

const context = (reversible: EdgeRef[], trainingRows: number): InferenceContext => ({
  seed: 3, hooks: {}, identification: { reversible, trainingRows, kernels },
  evaluateMetric: () => Promise.reject(new Error('no metrics here')),
});
const effectOn = (details: Record<string, unknown>, name: string) => (details.variables as (VariableEffect & IdentifiedMembers)[]).find((v) => v.variable === name)!;
const setX = { variable: 'x', valueSpec: { type: 'set_value' as const, value: 1 } };

test('an effect that rests on a reversible edge lists every possible effect and the edge that decides it', async () => {
  const frame = chainFrame(5000, 11);
  // The search chose x <- a -> y, which the data cannot tell from the truth x -> a -> y.
  const chosen = [e('a', 'x'), e('a', 'y')];
  const model = fitCbn(frame, chosen, {}, kernels);
  const outcome = await runIntervention(model, { type: 'intervention', interventions: [setX] }, context(chosen, frame.nRows));
  const y = effectOn(outcome.details, 'y');
  assert.ok(y, 'y is reported although it is no descendant of x in the chosen DAG: it is one in another DAG of the class');
  assert.equal(y.identified, false);
  assert.equal(y.basis, 'chosen_dag');
  assert.deepEqual(y.decidingEdges, [e('a', 'x')]);
  const possible = y.possibleDifferences!;
  assert.equal(possible.length, 2);
  const [mine, other] = [possible.find((d) => d.chosen)!, possible.find((d) => !d.chosen)!];
  assert.ok(Math.abs(mine.difference as number) < 0.05, `the chosen DAG's answer is 0, got ${String(mine.difference)}`);
  const truth = 1.68 * (1 - frameMean(frame, 'x'));
  assert.ok(Math.abs((other.difference as number) - truth) < 0.1, `the other answer is the truth ${truth}, got ${String(other.difference)}`);
  assert.ok((other.lowerBound as number) <= truth && truth <= (other.upperBound as number), `its interval ${String(other.lowerBound)}..${String(other.upperBound)} covers ${truth}`);
  assert.deepEqual(other.orientation, [e('x', 'a')]);
  assert.match(outcome.summary.summary, /cannot tell whether a causes x or the reverse/);
  assert.match(outcome.summary.summary, /x -> a/);
});

test('pinning the deciding edge makes the same question identified and right', async () => {
  const frame = chainFrame(5000, 11);
  const pinned = [e('x', 'a'), e('a', 'y')];
  const model = fitCbn(frame, pinned, {}, kernels);
  // With x -> a pinned, a -> y is forced too: nothing is reversible.
  assert.deepEqual(edgeOrientations(['x', 'a', 'y'], pinned, { required: [e('x', 'a')], forbidden: [] }), ['fixed', 'fixed']);
  const outcome = await runIntervention(model, { type: 'intervention', interventions: [setX] }, context([], frame.nRows));
  const y = effectOn(outcome.details, 'y');
  assert.equal(y.identified, true);
  assert.equal(y.basis, 'identified');
  assert.equal(y.possibleDifferences, undefined);
  const truth = 1.68 * (1 - frameMean(frame, 'x'));
  assert.ok(Math.abs((y.effect.difference as number) - truth) < 0.1);
  assert.doesNotMatch(outcome.summary.summary, /cannot tell/);
});

test('a fully compelled graph answers identified effects, unchanged by identification', async () => {
  // x -> y <- z is a v-structure: both edges compelled.
  const random = seededRandom(5);
  const n = 3000;
  const x = Float64Array.from({ length: n }, () => random.normal());
  const z = Float64Array.from({ length: n }, () => random.normal());
  const y = Float64Array.from({ length: n }, (_, i) => 0.8 * x[i]! - 0.5 * z[i]! + random.normal());
  const frame = frameOf([continuousColumn('x', [...x]), continuousColumn('z', [...z]), continuousColumn('y', [...y])]);
  const model = fitCbn(frame, [e('x', 'y'), e('z', 'y')], {}, kernels);
  const scenario = { type: 'intervention' as const, interventions: [setX] };
  const withClass = await runIntervention(model, scenario, context([], n));
  const without = await runIntervention(model, scenario, { ...context([], n), identification: undefined });
  assert.equal(effectOn(withClass.details, 'y').identified, true);
  assert.deepEqual(effectOn(withClass.details, 'y').effect, effectOn(without.details, 'y').effect);
  assert.equal(withClass.summary.summary, without.summary.summary);
});

test('joint interventions range over the parent sets of every intervened node (joint-IDA)', async () => {
  const frame = chainFrame(5000, 13);
  const chosen = [e('a', 'x'), e('y', 'a')]; // x <- a <- y: in the class of the truth
  const model = fitCbn(frame, chosen, {}, kernels);
  const scenario = { type: 'intervention' as const, interventions: [setX, { variable: 'a', valueSpec: { type: 'set_value' as const, value: 2 } }] };
  const outcome = await runIntervention(model, scenario, context(chosen, frame.nRows));
  const y = effectOn(outcome.details, 'y');
  assert.equal(y.identified, false);
  assert.deepEqual(y.decidingEdges, [e('y', 'a')], 'with x and a both set, only a - y decides the effect on y');
  const other = y.possibleDifferences!.find((d) => !d.chosen)!;
  const truth = 1.4 * (2 - frameMean(frame, 'a'));
  assert.ok(Math.abs((other.difference as number) - truth) < 0.15, `expected ${truth}, got ${String(other.difference)}`);
});

function frameMean(frame: Frame, name: string): number {
  const column = frame.columns.find((c) => c.name === name)!;
  if (column.kind !== 'continuous') throw new Error('continuous only');
  return column.values.reduce((s, v) => s + v, 0) / column.values.length;
}

test('explanation answers in impact and directional modes carry the possible effects over the class', async () => {
  const frame = chainFrame(5000, 17);
  const chosen = [e('a', 'x'), e('a', 'y')];
  const model = fitCbn(frame, chosen, {}, kernels);
  const perStd = 1.68 * frameStd(frame, 'x');
  type Estimate = { variable?: string; effect: number } & IdentifiedMembers;
  const impact = await runExplanation(model, { type: 'explanation', explanationMode: 'impact', causeVariable: 'x' }, context(chosen, frame.nRows));
  const onY = (impact.details.effects as Estimate[]).find((r) => r.variable === 'y')!;
  assert.ok(onY, 'y is ranked although only another DAG of the class puts it downstream of x');
  assert.equal(onY.identified, false);
  assert.ok(Math.abs(onY.possibleDifferences!.find((d) => !d.chosen)!.difference as number - perStd) < 0.1);
  const directional = await runExplanation(model, { type: 'explanation', explanationMode: 'directional', causeVariable: 'x', effectVariable: 'y' }, context(chosen, frame.nRows));
  const total = directional.details.totalEffect as Estimate;
  assert.equal(total.identified, false);
  assert.deepEqual(total.decidingEdges, [e('a', 'x')]);
  assert.ok(Math.abs(total.possibleDifferences!.find((d) => !d.chosen)!.difference as number - perStd) < 0.1);
  assert.match(directional.summary.summary, /cannot tell whether a causes x/);
  // Pinned, the same question is identified.
  const pinned = fitCbn(frame, [e('x', 'a'), e('a', 'y')], {}, kernels);
  const decided = await runExplanation(pinned, { type: 'explanation', explanationMode: 'directional', causeVariable: 'x', effectVariable: 'y' }, context([], frame.nRows));
  assert.equal((decided.details.totalEffect as Estimate).identified, true);
  assert.ok(Math.abs((decided.details.totalEffect as Estimate).effect - perStd) < 0.1);
});

function frameStd(frame: Frame, name: string): number {
  const m = frameMean(frame, name);
  const column = frame.columns.find((c) => c.name === name)!;
  if (column.kind !== 'continuous') throw new Error('continuous only');
  return Math.sqrt(column.values.reduce((s, v) => s + (v - m) ** 2, 0) / (column.values.length - 1));
}

test('an optimisation says whether the change its decisions make to the objective is identified', async () => {
  const frame = chainFrame(4000, 19);
  const chosen = [e('a', 'x'), e('a', 'y')];
  const model = fitCbn(frame, chosen, {}, kernels);
  const scenario = {
    type: 'optimisation' as const, objectives: [{ direction: 'maximise' as const, variable: 'y' }], decisionVars: ['x'],
    variableConstraints: [{ variable: 'x', type: 'range' as const, minValue: -1, maxValue: 1 }],
  };
  const outcome = await runOptimisation(model, scenario, context(chosen, frame.nRows));
  const objective = (outcome.details.objectives as ({ variable: string } & IdentifiedMembers)[])[0]!;
  assert.equal(objective.identified, false);
  assert.deepEqual(objective.decidingEdges, [e('a', 'x')]);
  const recommended = (outcome.details.recommendation as { variable: string; value: number; baselineValue: number }[])[0]!;
  const other = objective.possibleDifferences!.find((d) => !d.chosen)!;
  const expected = 1.68 * (recommended.value - frameMean(frame, 'x'));
  assert.ok(Math.abs((other.difference as number) - expected) < 0.15, `expected ${expected}, got ${String(other.difference)}`);
});

test('edges an assumption oriented, and what Meek rules derive from them, are labelled assumed; a contradicted one is ignored', () => {
  const chain = [e('x', 'a'), e('a', 'y')];
  assert.deepEqual(edgeOrientations(['x', 'a', 'y'], chain, { required: [], forbidden: [] }, [e('x', 'a')]), ['assumed', 'assumed']);
  assert.deepEqual(edgeOrientations(['x', 'a', 'y'], chain, { required: [], forbidden: [] }, [e('a', 'x')]), ['reversible', 'reversible']);
  assert.deepEqual(edgeOrientations(['x', 'a', 'y'], chain, { required: [e('x', 'a')], forbidden: [] }, [e('x', 'a')]), ['fixed', 'fixed'], 'the fixed graph outranks an assumption');
});

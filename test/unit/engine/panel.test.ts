/**
 * Multi-environment learning against generated panels with known truth (test/helpers/panel.ts): the pooled graph,
 * gated edges, agreement rates, per-environment effects, and partial pooling against fitting each environment alone.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadWasmKernels } from '../../../src/compute/wasm.js';
import { categoricalColumn, continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { discoverPanel } from '../../../src/engine/panel/discover.js';
import { judgeEdges, presenceMixture } from '../../../src/engine/panel/evidence.js';
import { evaluatePanel, fitPanel, randomSplit, statisticsPlan, shardStatistics } from '../../../src/engine/panel/fit.js';
import { quantileCuts } from '../../../src/engine/panel/moments.js';
import { separatedWithinEnvironments } from '../../../src/engine/panel/separate.js';
import { environmentModel } from '../../../src/engine/panel/model.js';
import { Rng } from '../../../src/engine/random.js';
import type { Frame, NodeModel } from '../../../src/engine/types.js';
import { panelRows, panelTruth } from '../../helpers/panel.js';
import { laplace, slopePanel } from '../../helpers/temporal-panel.js';

const kernels = loadWasmKernels();
const INDICATOR = '(environment)';

function panelFrame(rows: Array<Record<string, number | string>>, keys: string[]): { frame: Frame; environment: Int32Array; withIndicator: Frame } {
  const frame = frameOf(['a', 'b', 'c', 'd', 'e'].map((name) => continuousColumn(name, rows.map((r) => r[name] as number))));
  const index = new Map(keys.map((k, i) => [k.slice('site='.length), i]));
  const environment = Int32Array.from(rows, (r) => index.get(r.site as string)!);
  const indicator = categoricalColumn(INDICATOR, rows.map((r) => r.site as string), keys.map((k) => k.slice('site='.length)));
  return { frame, environment, withIndicator: frameOf([...frame.columns, indicator]) };
}

const coefficientOf = (node: NodeModel | undefined, parent: string) =>
  node?.kind === 'continuous' ? node.coefficients[node.terms.findIndex((t) => t.parents[0] === parent)] ?? 0 : Number.NaN;

/** The environments' frames of slopePanel as one frame of rows with the indicator last. */
function withEnvironment(frames: readonly Frame[]): Frame {
  const columns = ['a', 'b'].map((name) => continuousColumn(name, frames.flatMap((f) => Array.from((f.columns.find((c) => c.name === name) as { values: Float64Array }).values))));
  return frameOf([...columns, categoricalColumn(INDICATOR, frames.flatMap((f, e) => Array.from({ length: f.nRows }, () => `e${e}`)))]);
}

test('a slope that differs across environments, at the same level, orients the edge into the variable it changes', () => {
  const slopes = Array.from({ length: 12 }, (_, e) => 0.2 + (1.4 * e) / 11);
  for (const seed of [1, 2, 3]) {
    const found = discoverPanel(withEnvironment(slopePanel(slopes, seed)), INDICATOR, { alpha: 0.01 }, kernels);
    assert.deepEqual(found.edges.map((e, i) => `${e.source}->${e.target}:${found.orientations[i]}`), ['a->b:compelled'], `seed ${seed}`);
    assert.deepEqual(found.changing, ['b'], `seed ${seed}`);
  }
  // A pin in the fixed graph keeps its direction, even against what the slopes say.
  const pinned = discoverPanel(withEnvironment(slopePanel(slopes, 1)), INDICATOR, { alpha: 0.01, required: [{ source: 'b', target: 'a' }] }, kernels);
  assert.deepEqual(pinned.edges.map((e, i) => `${e.source}->${e.target}:${pinned.orientations[i]}`), ['b->a:fixed']);
  assert.deepEqual(pinned.changing, ['b']);
  // Nothing changes (normal or heavy-tailed noise): no indicator edge, and the edge stays reversible.
  for (const [seed, noise] of [[4, undefined], [5, laplace], [6, laplace]] as const) {
    const found = discoverPanel(withEnvironment(slopePanel(slopes.map(() => 0.9), seed, noise)), INDICATOR, { alpha: 0.01 }, kernels);
    assert.deepEqual(found.changing, [], `seed ${seed}`);
    assert.deepEqual(found.orientations, ['reversible'], `seed ${seed}`);
  }
});

test('a generated panel: the pooled graph, gated edges, agreement rates and per-environment effects are recovered', () => {
  const truth = panelTruth(60, 11);
  const rows = panelRows(truth, 12);
  const { frame, environment, withIndicator } = panelFrame(rows, truth.keys);
  const found = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
  const edgeSet = new Set(found.edges.map((e) => `${e.source}->${e.target}`));
  assert.deepEqual([...edgeSet].sort(), [...truth.edges].sort(), `pooled graph ${[...edgeSet].join(', ')}`);
  // The environment changes b's and c's mechanisms: b -> c and a -> b are oriented by the data across environments.
  const orientation = new Map(found.edges.map((e, i) => [`${e.source}->${e.target}`, found.orientations[i]]));
  assert.equal(orientation.get('a->b'), 'compelled');
  assert.ok(found.changing.includes('c'), `changing ${found.changing.join(', ')}`);

  const families = statisticsPlan(fitPanel(frame, environment, truth.keys, found.edges, ['site'], kernels).pooled).families;
  const stats = shardStatistics(frame, environment, truth.keys.map((_, e) => e), { families, cpts: [] });
  const judged = judgeEdges(found.edges, families, stats.moments, 0.05);
  const flagged = new Set(judged.filter((j) => j.gated).map((j) => `${j.source}->${j.target}`));
  for (const edge of truth.gated) assert.ok(flagged.has(edge), `gated ${edge} not flagged (flagged: ${[...flagged].join(', ')})`);
  for (const j of judged) {
    const edge = `${j.source}->${j.target}`;
    const expected = truth.presence[edge] ?? 1;
    assert.ok(Math.abs(j.agreementRate! - expected) <= 0.1, `${edge}: agreement ${j.agreementRate} vs ${expected}`);
  }

  const panel = fitPanel(frame, environment, truth.keys, found.edges, ['site'], kernels);
  const errors = truth.keys.map((key, e) => {
    const model = environmentModel(panel, key);
    const node = (name: string) => model.nodes.find((n) => n.name === name);
    const effect = coefficientOf(node('c'), 'b');
    const expected = truth.coefficients[e]!['b->c']!;
    return Math.abs(effect - expected) / Math.abs(expected);
  }).sort((x, y) => x - y);
  const median = errors[Math.floor(errors.length / 2)]!;
  assert.ok(median <= 0.1, `median relative error of per-environment effects ${median}`);
});

test('a few environments whose direct and indirect effects nearly cancel in the pooled rows: the graph comes back', () => {
  // a -> c (about +0.8) and a -> b -> c (about 1.2 x -1): pooled, a and c look independent; given b they are not.
  // With the indicator the data are mixed, and a pair PC saw as marginally independent must stay open to the search.
  for (const [environments, seed, rowSeed, sizes] of [[12, 12004, 7, { minRows: 40, maxRows: 300 }], [6, 6001, 4, { minRows: 150, maxRows: 300 }], [4, 4004, 7, { minRows: 150, maxRows: 300 }]] as const) {
    const truth = panelTruth(environments, seed, sizes);
    const { withIndicator } = panelFrame(panelRows(truth, rowSeed), truth.keys);
    const found = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
    const edges = found.edges.map((e) => `${e.source}->${e.target}`).sort();
    assert.deepEqual(edges, [...truth.edges].sort(), `${environments} environments, seed ${seed}: ${edges.join(', ')}`);
  }
});

test('a gated edge\'s slope difference makes the pooled search join a to e and turn b -> e round; within environments both are mended', () => {
  // b -> e holds in half the environments: pooled with one slope, e's residuals keep b's environment-specific slope
  // and look dependent on a. Within every environment a and e are independent given b (separate.ts).
  for (const [environments, seed, rowSeed] of [[4, 4002, 5], [4, 4009, 12], [6, 6003, 6]] as const) {
    const truth = panelTruth(environments, seed, { minRows: 150, maxRows: 300 });
    const { withIndicator } = panelFrame(panelRows(truth, rowSeed), truth.keys);
    const found = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
    const edges = found.edges.map((e) => `${e.source}->${e.target}`).sort();
    assert.deepEqual(edges, [...truth.edges].sort(), `${environments} environments, seed ${seed}: ${edges.join(', ')}`);
    // What the fixed graph forbids stays out of the re-oriented graph.
    const forbidden = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01, forbidden: [{ source: 'b', target: 'e' }] }, kernels);
    assert.ok(!forbidden.edges.some((e) => e.source === 'b' && e.target === 'e'), forbidden.edges.map((e) => `${e.source}->${e.target}`).join(', '));
  }
});

test('paths that cancel exactly in every environment: the stratified tests leave the adjacency the search chose', () => {
  // x -> y directly and x -> m -> w -> y, the two cancelling: x and y are independent, in every environment and
  // pooled, though adjacent. Environments shift levels only; nothing should go.
  const rng = new Rng(31);
  const direct = -(1.1 * -1.4 * 0.66);
  const columns: Record<string, number[]> = { x: [], m: [], w: [], y: [] };
  const codes: number[] = [];
  for (let e = 0; e < 10; e++) {
    const level = rng.normal();
    for (let r = 0; r < 300; r++) {
      const x = level + rng.normal();
      const m = 1.1 * x + rng.normal();
      const w = -1.4 * m + rng.normal();
      const y = direct * x + 0.66 * w + rng.normal();
      columns.x!.push(x);
      columns.m!.push(m);
      columns.w!.push(w);
      columns.y!.push(y);
      codes.push(e);
    }
  }
  const frame = frameOf(Object.entries(columns).map(([name, values]) => continuousColumn(name, values)));
  const edges = [['x', 'm'], ['m', 'w'], ['w', 'y'], ['x', 'y']].map(([source, target]) => ({ source: source!, target: target!, strength: 0, orientationFromData: true }));
  const kept = separatedWithinEnvironments(frame, Int32Array.from(codes), 10, edges, ['x'], { required: [], forbidden: [] }, 0.01);
  assert.deepEqual(kept.map((e) => `${e.source}->${e.target}`), ['x->m', 'm->w', 'w->y', 'x->y']);
  // The same adjacency where y's slopes are known to differ: judged within environments alone, it goes.
  const judged = separatedWithinEnvironments(frame, Int32Array.from(codes), 10, edges, ['x', 'y'], { required: [], forbidden: [] }, 0.01, ['y']);
  assert.ok(!judged.some((e) => e.source === 'x' && e.target === 'y'), judged.map((e) => `${e.source}->${e.target}`).join(', '));
});

test('partial pooling predicts the small environments better than fitting each alone', () => {
  const truth = panelTruth(40, 21, { minRows: 12, maxRows: 600 });
  const rows = panelRows(truth, 22);
  const { frame, environment, withIndicator } = panelFrame(rows, truth.keys);
  const found = discoverPanel(withIndicator, INDICATOR, { alpha: 0.01 }, kernels);
  const evaluation = evaluatePanel(frame, environment, truth.keys, found.edges, randomSplit(environment, truth.keys.length, 0.3, 1), 0.3, kernels);
  const c = evaluation.pooling.c!;
  assert.ok(c.smallPartial! < c.smallSeparate!, `small environments: partial ${c.smallPartial} vs separate ${c.smallSeparate}`);
  assert.ok(c.partial < c.pooled, `all environments: partial ${c.partial} vs pooled ${c.pooled}`);
  assert.ok(Object.keys(evaluation.environments).length === truth.keys.length);
});

test('the presence mixture reads a spike at zero and a slab apart', () => {
  const points = [...Array.from({ length: 30 }, (_, i) => ({ b: 0.02 * Math.sin(i), v: 0.01 })), ...Array.from({ length: 70 }, (_, i) => ({ b: 1 + 0.2 * Math.cos(i), v: 0.01 }))];
  const mixture = presenceMixture(points)!;
  assert.ok(Math.abs(mixture.pi - 0.7) < 0.03, `pi ${mixture.pi}`);
  assert.ok(mixture.posterior(0, 0.01) < 0.05 && mixture.posterior(1, 0.01) > 0.95);
});

test('edges into a categorical node are judged per environment from its counts: agreement, and gating where the effect is absent somewhere', () => {
  // Y (two classes) depends on W (three levels) everywhere and on X (two levels) in the first half of 30 environments.
  const environments = 30;
  const rng = new Rng(5);
  const rows: Array<Record<string, string>> = [];
  const environment: number[] = [];
  for (let e = 0; e < environments; e++) {
    for (let r = 0; r < 300; r++) {
      const w = rng.int(3);
      const x = rng.int(2);
      const p = 0.15 + 0.3 * w + (e < environments / 2 ? 0.25 * (2 * x - 1) : 0);
      rows.push({ W: `w${w}`, X: `x${x}`, Y: rng.uniform() < Math.min(0.95, Math.max(0.05, p)) ? 'yes' : 'no' });
      environment.push(e);
    }
  }
  const frame = frameOf(['W', 'X', 'Y'].map((name) => categoricalColumn(name, rows.map((r) => r[name]!))));
  const cpts = [{ node: 'Y', parents: ['W', 'X'] }];
  const stats = shardStatistics(frame, Int32Array.from(environment), Array.from({ length: environments }, (_, e) => e), { families: [], cpts });
  const counts = { families: [{ node: 'Y', parents: ['W', 'X'], parentLevels: stats.cptLevels.Y!.parents, classes: stats.cptLevels.Y!.classes }], counts: stats.counts.Y!.map((table) => [table]) };
  const edges = [{ source: 'W', target: 'Y' }, { source: 'X', target: 'Y' }];
  const [w, x] = judgeEdges(edges, [], stats.moments, 0.05, counts);
  assert.ok(w!.agreementRate! >= 0.9 && !w!.gated, `W -> Y: ${JSON.stringify(w)}`);
  assert.ok(Math.abs(x!.agreementRate! - 0.5) <= 0.15, `X -> Y agreement ${x!.agreementRate}`);
  assert.equal(x!.gated, true);
  assert.ok(x!.holds.slice(0, 15).filter(Boolean).length >= 13, `X -> Y holds in the first half: ${x!.holds.join(',')}`);
  assert.ok(x!.strength.every((s) => s !== null && s >= 0 && s <= 1));
  // Without the counts the edges into Y are not judged.
  const [unjudged] = judgeEdges(edges, [], stats.moments, 0.05);
  assert.deepEqual([unjudged!.agreementRate, unjudged!.gated], [null, false]);
});

test('edges into a categorical node with a continuous input are judged per environment from its quartile bins', () => {
  // Y (two classes) depends on a continuous Z everywhere and on a continuous X in the first half of 30 environments.
  const environments = 30;
  const rng = new Rng(6);
  const [z, x, y, environment]: [number[], number[], string[], number[]] = [[], [], [], []];
  for (let e = 0; e < environments; e++) {
    for (let r = 0; r < 300; r++) {
      const zr = rng.normal();
      const xr = rng.normal();
      const logit = 1.2 * zr + (e < environments / 2 ? 1.2 * xr : 0);
      z.push(zr);
      x.push(xr);
      y.push(rng.uniform() < 1 / (1 + Math.exp(-logit)) ? 'yes' : 'no');
      environment.push(e);
    }
  }
  const frame = frameOf([continuousColumn('Z', z), continuousColumn('X', x), categoricalColumn('Y', y)]);
  const cuts = { Z: quantileCuts(Float64Array.from(z), 4), X: quantileCuts(Float64Array.from(x), 4) };
  assert.equal(cuts.Z.length, 3);
  assert.ok(Math.abs(cuts.Z[1]!) < 0.05, `the middle cut is the median: ${cuts.Z}`);
  const stats = shardStatistics(frame, Int32Array.from(environment), Array.from({ length: environments }, (_, e) => e), { families: [], cpts: [{ node: 'Y', parents: ['Z', 'X'], cuts }] });
  assert.deepEqual(stats.cptLevels.Y, { parents: [4, 4], classes: 2 });
  assert.equal(stats.counts.Y![0]!.flat().reduce((a, b) => a + b, 0), 300, 'every row of an environment is counted once');
  const counts = { families: [{ node: 'Y', parents: ['Z', 'X'], parentLevels: stats.cptLevels.Y!.parents, classes: 2 }], counts: stats.counts.Y!.map((table) => [table]) };
  const [zy, xy] = judgeEdges([{ source: 'Z', target: 'Y' }, { source: 'X', target: 'Y' }], [], stats.moments, 0.05, counts);
  assert.ok(zy!.agreementRate! >= 0.9 && !zy!.gated, `Z -> Y: ${JSON.stringify(zy)}`);
  assert.ok(Math.abs(xy!.agreementRate! - 0.5) <= 0.15, `X -> Y agreement ${xy!.agreementRate}`);
  assert.equal(xy!.gated, true);
});

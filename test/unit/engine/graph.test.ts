import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cpdagOfDag, dagToCpdag } from '../../../src/engine/graph/cpdag.js';
import { consistentExtension, hasDirectedCycle, topologicalSort } from '../../../src/engine/graph/dag.js';
import { applyMeekRules } from '../../../src/engine/graph/meek.js';
import { skeletonF1, skeletonScores, structuralHammingDistance } from '../../../src/engine/graph/metrics.js';
import { emptyPdag, isDirected, isUndirected, pdagFromEdges, type PdagEdge, setDirected, setUndirected } from '../../../src/engine/graph/pdag.js';

const d = (source: string, target: string): PdagEdge => ({ source, target, directed: true });
const u = (source: string, target: string): PdagEdge => ({ source, target, directed: false });
const sortEdges = (edges: PdagEdge[]) => edges.map((e) => `${e.source}${e.directed ? '->' : '--'}${e.target}`).sort();

test('a chain has a fully undirected CPDAG', () => {
  assert.deepEqual(sortEdges(dagToCpdag(['A', 'B', 'C'], [d('A', 'B'), d('B', 'C')])), ['A--B', 'B--C']);
});

test('a collider keeps both arrowheads in the CPDAG and Meek R1 orients the edge after it', () => {
  const cpdag = dagToCpdag(['A', 'B', 'C', 'D'], [d('A', 'C'), d('B', 'C'), d('C', 'D')]);
  assert.deepEqual(sortEdges(cpdag), ['A->C', 'B->C', 'C->D']);
});

test('a shielded collider (a triangle) is undirected in the CPDAG', () => {
  const cpdag = dagToCpdag(['A', 'B', 'C'], [d('A', 'C'), d('B', 'C'), d('A', 'B')]);
  assert.ok(cpdag.every((e) => !e.directed));
  assert.equal(cpdag.length, 3);
});

test('Meek R2 orients an undirected edge that would otherwise close a directed cycle', () => {
  const g = emptyPdag(3);
  setDirected(g, 0, 1);
  setDirected(g, 1, 2);
  setUndirected(g, 0, 2);
  applyMeekRules(g);
  assert.ok(isDirected(g, 0, 2));
});

test('Meek R3 orients a - b when two non-adjacent parents of b are both undirected neighbours of a', () => {
  const g = emptyPdag(4); // a=0, b=1, c=2, d=3
  setUndirected(g, 0, 2);
  setUndirected(g, 0, 3);
  setDirected(g, 2, 1);
  setDirected(g, 3, 1);
  setUndirected(g, 0, 1);
  applyMeekRules(g);
  assert.ok(isDirected(g, 0, 1));
  assert.ok(isUndirected(g, 0, 2) && isUndirected(g, 0, 3));
});

test('the CPDAG of any DAG in a class is the same (Markov equivalent DAGs agree)', () => {
  const names = ['A', 'B', 'C', 'D'];
  const one = dagToCpdag(names, [d('A', 'B'), d('B', 'C'), d('B', 'D')]);
  const other = dagToCpdag(names, [d('B', 'A'), d('C', 'B'), d('B', 'D')]);
  assert.deepEqual(sortEdges(one), sortEdges(other));
});

test('SHD counts a missing, an extra and a wrongly oriented edge as one each', () => {
  const truth = [d('A', 'B'), d('C', 'B'), u('C', 'D')];
  assert.equal(structuralHammingDistance(truth, truth), 0);
  assert.equal(structuralHammingDistance([d('A', 'B'), d('C', 'B')], truth), 1, 'missing');
  assert.equal(structuralHammingDistance([...truth, u('A', 'D')], truth), 1, 'extra');
  assert.equal(structuralHammingDistance([d('B', 'A'), d('C', 'B'), u('C', 'D')], truth), 1, 'reversed');
  assert.equal(structuralHammingDistance([u('A', 'B'), d('C', 'B'), u('C', 'D')], truth), 1, 'undirected instead of directed');
  assert.equal(structuralHammingDistance([u('B', 'A'), d('B', 'C'), d('D', 'C'), u('A', 'C')], truth), 4);
});

test('skeleton F1 ignores orientation and scores adjacencies', () => {
  const truth = [d('A', 'B'), d('B', 'C')];
  assert.equal(skeletonF1([d('B', 'A'), u('C', 'B')], truth), 1);
  const scores = skeletonScores([d('A', 'B'), d('A', 'C')], truth);
  assert.equal(scores.precision, 0.5);
  assert.equal(scores.recall, 0.5);
  assert.equal(scores.f1, 0.5);
});

test('topological sort orders parents first and answers null on a cycle', () => {
  const order = topologicalSort(['C', 'B', 'A'], [d('A', 'B'), d('B', 'C')]);
  assert.deepEqual(order, ['A', 'B', 'C']);
  assert.equal(topologicalSort(['A', 'B', 'C'], [d('A', 'B'), d('B', 'C'), d('C', 'A')]), null);
  assert.equal(topologicalSort(['A', 'B'], [d('A', 'B'), d('B', 'A')]), null);
  assert.ok(hasDirectedCycle(pdagFromEdges(['A', 'B', 'C'], [d('A', 'B'), d('B', 'C'), d('C', 'A')])));
});

test('a consistent extension of a CPDAG is a DAG of the same class', () => {
  const names = ['A', 'B', 'C', 'D', 'E'];
  const dag = pdagFromEdges(names, [d('A', 'B'), d('C', 'B'), d('B', 'D'), d('D', 'E'), d('A', 'E')]);
  const cpdag = cpdagOfDag(dag);
  const extension = consistentExtension(cpdag);
  assert.ok(extension !== null);
  assert.ok(!hasDirectedCycle(extension));
  assert.deepEqual(cpdagOfDag(extension).m, cpdag.m);
});

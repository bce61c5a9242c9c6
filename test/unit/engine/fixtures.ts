/** Shared test data: frames from small hand-written models, and the truth CPDAG of a simulated model. */
import { continuousColumn, frameOf } from '../../../src/engine/frame.js';
import { dagToCpdag } from '../../../src/engine/graph/cpdag.js';
import type { PdagEdge } from '../../../src/engine/graph/pdag.js';
import { Rng } from '../../../src/engine/random.js';
import { modelEdges, type SimulatedModel } from '../../../src/engine/simulate.js';
import type { Frame } from '../../../src/engine/types.js';

export function truthCpdag(model: SimulatedModel): PdagEdge[] {
  return dagToCpdag(model.nodes.map((n) => n.name), modelEdges(model));
}

/** X, Y independent N(0,1); Z = 1.5 X - Y + N(0,1); W independent N(0,1) (a collider plus an isolated node). */
export function colliderFrame(n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const x: number[] = [];
  const y: number[] = [];
  const z: number[] = [];
  const w: number[] = [];
  for (let i = 0; i < n; i++) {
    const a = rng.normal();
    const b = rng.normal();
    x.push(a);
    y.push(b);
    z.push(1.5 * a - b + rng.normal());
    w.push(rng.normal());
  }
  return frameOf([continuousColumn('X', x), continuousColumn('Y', y), continuousColumn('Z', z), continuousColumn('W', w)]);
}

export const hasEdge = (edges: readonly { source: string; target: string }[], source: string, target: string) =>
  edges.some((e) => e.source === source && e.target === target);

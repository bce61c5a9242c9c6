/**
 * Ground truth for the anomaly and root-cause tests: a random structural model (simulate.ts) written as an exact
 * CbnModel -- linear mechanisms with N(0, 1) noise (no stored residuals: scm.ts draws standard normal noise),
 * categorical CPTs and logistic models as simulated -- so data with injected faults (a shift of one node's noise)
 * comes from the true mechanisms through scm.ts, and a twin is fitted from separate normal training rows.
 */
import { referenceKernels as kernels } from '../../../../src/compute/reference.js';
import { fitCbn } from '../../../../src/engine/cbn/fit.js';
import { columnByName, frameOf } from '../../../../src/engine/frame.js';
import { type Scm, compileScm, drawNoise, propagate } from '../../../../src/engine/inference/scm.js';
import { type ModelOptions, type SimulatedModel, modelEdges, randomModel, sampleModel } from '../../../../src/engine/simulate.js';
import type { CbnModel, Frame, NodeModel } from '../../../../src/engine/types.js';

type Continuous = Extract<NodeModel, { kind: 'continuous' }>;
type Categorical = Extract<NodeModel, { kind: 'categorical' }>;

const labels = (levels: number) => Array.from({ length: levels }, (_, c) => `c${c}`);

/** The simulated model as a CbnModel with its exact mechanisms (logistic slopes on the parents' raw scale, using
 * standard deviations from a large sample, as sampleModel standardises by its sample's). */
export function trueCbnModel(sim: SimulatedModel, seed: number): CbnModel {
  const big = sampleModel(sim, 100_000, seed);
  const std = (name: string) => {
    const c = columnByName(big, name);
    if (c.kind !== 'continuous') return 1;
    let mean = 0;
    for (const v of c.values) mean += v;
    mean /= c.values.length;
    let ss = 0;
    for (const v of c.values) ss += (v - mean) ** 2;
    return Math.sqrt(ss / (c.values.length - 1)) || 1;
  };
  const nodes = sim.order.map((j): NodeModel => {
    const node = sim.nodes[j]!;
    const parents = node.parents.map((q) => sim.nodes[q]!);
    if (node.kind === 'continuous') {
      const terms: Continuous['terms'] = [];
      const coefficients: number[] = [];
      parents.forEach((p, t) => {
        if (p.kind === 'continuous') {
          terms.push({ kind: 'linear', parents: [p.name] });
          coefficients.push(node.weights[t]!);
        } else {
          for (let c = 1; c < p.levels; c++) {
            terms.push({ kind: 'indicator', parents: [p.name], category: `c${c}` });
            coefficients.push(node.offsets[t]![c]!);
          }
        }
      });
      return { name: node.name, kind: 'continuous', parents: parents.map((p) => p.name), terms, intercept: 0, coefficients, noiseStd: node.noiseStd, residualQuantiles: [], mean: 0, std: 1 };
    }
    const base: Categorical = { name: node.name, kind: 'categorical', parents: parents.map((p) => p.name), categories: labels(node.levels), marginal: new Array<number>(node.levels).fill(1 / node.levels) };
    if (node.cpt.length > 0) return { ...base, cpt: { parentCategories: parents.map((p) => labels(p.levels)), table: node.cpt } };
    const terms: NonNullable<Categorical['logistic']>['terms'] = [];
    parents.forEach((p) => {
      if (p.kind === 'continuous') terms.push({ kind: 'linear', parents: [p.name] });
      else for (let c = 1; c < p.levels; c++) terms.push({ kind: 'indicator', parents: [p.name], category: `c${c}` });
    });
    const weights = Array.from({ length: node.levels }, (_, k) => {
      const w = [node.logitIntercepts[k]!];
      parents.forEach((p, t) => {
        if (p.kind === 'continuous') w.push(node.logitSlopes[k]![t]! / std(p.name));
        else for (let c = 1; c < p.levels; c++) w.push(node.logitOffsets[k]![t]![c]!);
      });
      return w;
    });
    return { ...base, logistic: { terms, weights } };
  });
  return { nodes };
}

export interface Truth {
  sim: SimulatedModel;
  scm: Scm;
}

export function truth(p: number, degree: number, seed: number, options: ModelOptions = {}): Truth {
  const sim = randomModel(p, degree, seed, options);
  return { sim, scm: compileScm(trueCbnModel(sim, seed + 1)) };
}

/** n units of the true model; `fault` shifts one node's noise by `shift` (standard deviations) in every unit. */
export function drawUnits(t: Truth, n: number, seed: number, fault?: { node: string; shift: number }): Frame {
  const noise = drawNoise(t.scm, n, seed);
  if (fault) {
    const u = noise[t.scm.indexOf(fault.node)]!;
    for (let r = 0; r < n; r++) u[r]! += fault.shift;
  }
  return propagate(t.scm, noise);
}

/** A twin fitted on n normal training rows of the true model, on the true graph. */
export function fittedTwin(t: Truth, n: number, seed: number): CbnModel {
  return fitCbn(drawUnits(t, n, seed), modelEdges(t.sim), {}, kernels);
}

/** The frame's columns reordered to another model's variable order (scoring wants model order). */
export function inOrderOf(scm: Scm, frame: Frame): Frame {
  return frameOf(scm.names.map((name) => columnByName(frame, name)));
}

/** Rows of a frame as JSON records (labels for categorical columns). */
export function recordsOf(frame: Frame, rows: number[]): Record<string, number | string | null>[] {
  return rows.map((r) => Object.fromEntries(frame.columns.map((c) => {
    if (c.kind === 'continuous') return [c.name, Number.isNaN(c.values[r]!) ? null : c.values[r]!];
    const code = c.codes[r]!;
    return [c.name, code < 0 ? null : c.categories[code]!];
  })));
}

/**
 * The model of another DAG of the class. Every DAG of a Markov equivalence class represents the same observational
 * distribution, so the mechanisms of an alternative DAG are refitted on rows drawn from the chosen model (its
 * fitted joint), and only for the nodes whose parents differ; the others are kept as fitted on the data. The
 * refitted parameters' uncertainty is rescaled from the drawn rows to the training rows, so an alternative's
 * interval is as wide as the data allow, not as narrow as the draw.
 */
import type { Kernels } from '../../compute/kernels.js';
import { fitCategoricalNode, fitContinuousNode } from '../cbn/fit.js';
import { columnByName } from '../frame.js';
import { topologicalOrder } from '../graph/dag.js';
import { type Pdag, parentsOf } from '../graph/pdag.js';
import { compileScm, drawNoise, propagate } from '../inference/scm.js';
import type { CbnModel, Frame, NodeModel } from '../types.js';

/** Rows drawn from the chosen model to refit an alternative's mechanisms (their own sampling error is ~1/sqrt of it). */
export const SYNTHETIC_ROWS = 20_000;

/** Rows from the chosen model's observational distribution, in a stream apart from the question's own. */
export function syntheticRows(model: CbnModel, seed: number): Frame {
  const scm = compileScm(model);
  return propagate(scm, drawNoise(scm, SYNTHETIC_ROWS, (seed ^ 0x2545f491) >>> 0));
}

/**
 * The model on `dag` (a DAG over the model's nodes in model order): nodes with the same parents keep their fit,
 * the others are fitted on `rows`. `trainingRows` (the rows the chosen model learned from) rescales their
 * parameter uncertainty; null leaves it as fitted.
 */
export function modelOnDag(model: CbnModel, dag: Pdag, rows: Frame, trainingRows: number | null, kernels: Kernels): CbnModel {
  const names = model.nodes.map((n) => n.name);
  const order = topologicalOrder(dag);
  if (order === null) throw new Error('an alternative DAG of the class has a cycle');
  const nonlinear = model.nodes.some((n) => n.kind === 'continuous' && n.terms.some((t) => t.kind === 'square' || t.kind === 'product'));
  return {
    nodes: order.map((i) => {
      const node = model.nodes[i]!;
      const parents = parentsOf(dag, i).map((j) => names[j]!);
      if (sameSet(parents, node.parents)) return node;
      const column = columnByName(rows, node.name);
      const refit = column.kind === 'continuous'
        ? fitContinuousNode(rows, column, parents, { nonlinear }, kernels)
        : fitCategoricalNode(rows, column, parents, {}, kernels);
      return trainingRows === null ? refit : withSampleSize(refit, rows.nRows, trainingRows);
    }),
  };
}

/** A node's parameter uncertainty as if fitted on `actual` rows instead of `fitted`: covariance ~ 1/n, counts ~ n. */
function withSampleSize(node: NodeModel, fitted: number, actual: number): NodeModel {
  const factor = fitted / Math.max(1, actual);
  if (node.kind === 'continuous') {
    return node.coefficientCovariance ? { ...node, coefficientCovariance: node.coefficientCovariance.map((v) => v * factor) } : node;
  }
  const cpt = node.cpt;
  return cpt?.rowCounts ? { ...node, cpt: { ...cpt, rowCounts: cpt.rowCounts.map((c) => c / factor) } } : node;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}

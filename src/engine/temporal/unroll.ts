/**
 * A temporal model unrolled in time around one step T: a static CBN whose nodes are the variables at T - k
 * (k = 0..depth, named as lags: `x` at T, `x⟨t-1⟩` at T - 1, ...), each with its mechanism and its inputs renamed to
 * the nodes of the steps they read, so the noise of every variable at every step is a separate node (the
 * time-series graph of Runge 2020 cut to a window). The season at each step is a known function of the step and
 * folds into the mechanism's intercept; inputs older than the window are roots drawn from the variable's
 * distribution in the data. Static inference (noise abduction, anomaly attribution, ranking) then runs on it as on
 * any twin, and a fault upstream in time is a different node from its echo.
 */
import { valueAt } from '../inference/scm-records.js';
import type { CbnModel, NodeModel } from '../types.js';
import { lagName, seasonValue, sourceOf } from './lagged.js';
import type { TemporalModel } from './model.js';
import type { SampleWindow } from './window.js';

export interface Unrolled {
  cbn: CbnModel;
  depth: number;
  /** The variable and steps-before-T of a node of the unrolled model. */
  nodeOf(name: string): { variable: string; stepsBefore: number };
}

/** The variables at steps T - depth .. T, for T at series step `step` (the season's phase). */
export function unroll(model: TemporalModel, depth: number, step: number): Unrolled {
  const mechanisms = model.cbn.nodes.filter((node) => model.variables.some((v) => v.name === node.name));
  const byName = new Map(model.cbn.nodes.map((node) => [node.name, node]));
  const boundary = new Map<string, NodeModel>();
  const origin = new Map<string, { variable: string; stepsBefore: number }>();
  const nodes: NodeModel[] = [];
  for (let k = depth; k >= 0; k--) {
    for (const node of mechanisms) {
      const rename = (input: string): string | null => {
        const source = sourceOf(model, input);
        if (source.kind === 'season') return null;
        const back = k + source.lag;
        const name = lagName(source.variable, back);
        if (back > depth && !boundary.has(name)) {
          boundary.set(name, rootNode(model, byName, source.variable, name));
          origin.set(name, { variable: source.variable, stepsBefore: back });
        }
        return name;
      };
      const season = (input: string): number | null => {
        const source = sourceOf(model, input);
        return source.kind === 'season' ? seasonValue(source.period, step - k + (model.phase ?? 0))[source.sin ? 0 : 1] : null;
      };
      const name = lagName(node.name, k);
      origin.set(name, { variable: node.name, stepsBefore: k });
      nodes.push(renamed(node, name, rename, season));
    }
  }
  return {
    cbn: { nodes: [...boundary.values(), ...nodes] },
    depth,
    nodeOf: (name) => {
      const found = origin.get(name);
      if (found === undefined) throw new Error(`${name} is not a node of the unrolled model`);
      return found;
    },
  };
}

/**
 * A mechanism with its inputs renamed (null: a seasonal input, whose known value folds into the intercept). Only
 * linear and indicator terms read a season (the temporal fit asks for no others).
 */
function renamed(node: NodeModel, name: string, rename: (input: string) => string | null, season: (input: string) => number | null): NodeModel {
  const parents = node.parents.map(rename).filter((p): p is string => p !== null);
  if (node.kind === 'continuous') {
    let intercept = node.intercept;
    const terms: typeof node.terms = [];
    const coefficients: number[] = [];
    node.terms.forEach((term, t) => {
      const known = term.kind === 'linear' && term.parents.length === 1 ? season(term.parents[0]!) : null;
      if (known !== null) intercept += node.coefficients[t]! * known;
      else (terms.push({ ...term, parents: term.parents.map((p) => rename(p)!) }), coefficients.push(node.coefficients[t]!));
    });
    const { coefficientCovariance: _dropped, ...rest } = node;
    return { ...rest, name, parents, terms, intercept, coefficients };
  }
  if (node.logistic !== undefined) {
    const weights = node.logistic.weights.map((w) => [...w]);
    const terms: NonNullable<typeof node.logistic>['terms'] = [];
    const keep: number[] = [];
    node.logistic.terms.forEach((term, t) => {
      const known = term.kind === 'linear' && term.parents.length === 1 ? season(term.parents[0]!) : null;
      if (known !== null) for (const w of weights) w[0]! += w[t + 1]! * known;
      else (terms.push({ ...term, parents: term.parents.map((p) => rename(p)!) }), keep.push(t));
    });
    return { ...node, name, parents, logistic: { terms, weights: weights.map((w) => [w[0]!, ...keep.map((t) => w[t + 1]!)]) } };
  }
  return { ...node, name, parents };
}

/** A root for a variable older than the window: its lag column's fit when the model has one, else its marginal. */
function rootNode(model: TemporalModel, byName: ReadonlyMap<string, NodeModel>, variable: string, name: string): NodeModel {
  const lagged = Array.from({ length: model.maxLag }, (_, j) => byName.get(lagName(variable, j + 1))).find((node) => node !== undefined && node.parents.length === 0);
  const own = byName.get(variable)!;
  const template = lagged ?? own;
  if (template.kind === 'continuous') {
    const residualQuantiles = lagged === undefined ? [] : template.residualQuantiles;
    return { name, kind: 'continuous', parents: [], terms: [], intercept: template.mean, coefficients: [], noiseStd: template.std, residualQuantiles, mean: template.mean, std: template.std };
  }
  return { name, kind: 'categorical', parents: [], categories: template.categories, cpt: { parentCategories: [], table: [[...template.marginal]] }, marginal: [...template.marginal] };
}

/** The unit the unrolled model sees when T is row `row` of a window: each node's observed value (missing before the window). */
export function unrolledRecord(model: TemporalModel, unrolled: Unrolled, window: SampleWindow, row: number): Record<string, number | string | null> {
  const record: Record<string, number | string | null> = {};
  for (const node of unrolled.cbn.nodes) {
    const { variable, stepsBefore } = unrolled.nodeOf(node.name);
    const at = row - stepsBefore;
    record[node.name] = at < 0 ? null : valueAt(window.frame, model.variables.findIndex((v) => v.name === variable), at);
  }
  return record;
}

/**
 * The effects a temporal what-if could have under the other directions of the same-step links that decide it (the
 * IDA idea, Maathuis et al. 2009, over the twin's reversible links): each acyclic assignment of directions to the
 * deciding links is refitted on the history the model keeps (its last TAIL_STEPS steps) and asked the same
 * question; the distinct effects are the answer's possible values, the twin's own assignment marked `chosen`.
 */
import type { Kernels } from '../../compute/kernels.js';
import { fitCbn } from '../cbn/fit.js';
import { categoricalColumn, continuousColumn, frameOf } from '../frame.js';
import type { EdgeRef } from '../types.js';
import { lagName, laggedDesign, seasonNames } from './lagged.js';
import type { TemporalEdge, TemporalModel } from './model.js';

/** At most this many deciding links are enumerated (2^k refits). */
export const MAX_DECIDING = 3;

/** Every acyclic direction assignment of `deciding` (same-step links as the model has them) as a refitted model. */
export function alternativeModels(model: TemporalModel, deciding: readonly EdgeRef[], kernels: Kernels): Array<{ model: TemporalModel; flipped: EdgeRef[]; chosen: boolean }> {
  const links = deciding.slice(0, MAX_DECIDING);
  const out: Array<{ model: TemporalModel; flipped: EdgeRef[]; chosen: boolean }> = [];
  for (let mask = 0; mask < 1 << links.length; mask++) {
    const flipped = links.filter((_, k) => (mask >> k) & 1);
    const isFlipped = (e: TemporalEdge) => e.lag === 0 && flipped.some((f) => f.source === e.source && f.target === e.target);
    const edges = model.edges.map((e) => (isFlipped(e) ? { source: e.target, target: e.source, lag: 0 } : e));
    if (hasSameStepCycle(edges)) continue;
    out.push({ model: mask === 0 ? model : refit(model, edges, kernels), flipped, chosen: mask === 0 });
  }
  return out;
}

/** The model's mechanisms refitted on its kept history with other links (the rest of the model as it is). */
function refit(model: TemporalModel, edges: TemporalEdge[], kernels: Kernels): TemporalModel {
  const series = frameOf(
    model.variables.map((v) => {
      const values = model.tail.values[v.name] ?? [];
      return v.kind === 'continuous'
        ? continuousColumn(v.name, values.map((x) => (x === null ? null : Number(x))))
        : categoricalColumn(v.name, values.map((x) => (x === null ? null : String(x))), v.categories);
    }),
  );
  const periods = [...new Set(model.seasonal.map((s) => s.period))];
  const cbnEdges: EdgeRef[] = edges.map((e) => ({ source: lagName(e.source, e.lag), target: e.target }));
  for (const { variable, period } of model.seasonal) for (const term of seasonNames(period)) cbnEdges.push({ source: term, target: variable });
  const used = new Set([...model.variables.map((v) => v.name), ...cbnEdges.map((e) => e.source)]);
  const design = laggedDesign(series, model.maxLag, periods, { only: used, stepOffset: model.tail.from + (model.phase ?? 0) });
  return { ...model, edges, cbn: fitCbn(design.frame, cbnEdges, {}, kernels) };
}

function hasSameStepCycle(edges: readonly TemporalEdge[]): boolean {
  const same = edges.filter((e) => e.lag === 0 && e.source !== e.target);
  const children = new Map<string, string[]>();
  for (const e of same) children.set(e.source, [...(children.get(e.source) ?? []), e.target]);
  const state = new Map<string, 1 | 2>();
  const visit = (node: string): boolean => {
    state.set(node, 1);
    for (const child of children.get(node) ?? []) {
      if (state.get(child) === 1 || (state.get(child) === undefined && visit(child))) return true;
    }
    state.set(node, 2);
    return false;
  };
  return [...children.keys()].some((node) => state.get(node) === undefined && visit(node));
}

/**
 * Simulated futures of a temporal model: Monte Carlo paths stepped forward one step at a time, each step's lagged
 * inputs taken from the path's own past (observed history before the origin) and its noise drawn from the fitted
 * residuals. A treatment at a step (temporal_intervention) changes that step's values on every path; paths of
 * two arms that share a seed share their noise (common random numbers), so an effect is a paired difference.
 */
import { AppError } from '../../errors.js';
import { compileScm, drawNoise, propagate, type Scm, type Treatment } from '../inference/scm.js';
import { seasonValue, sourceOf } from './lagged.js';
import type { TemporalModel } from './model.js';

/** Simulated values a temporal question may hold at once (paths x steps x variables): about 160 MB per arm. */
export const MAX_SIMULATED_VALUES = 20_000_000;

export interface FutureRequest {
  /** Series step of the first simulated step (steps before it are history, observed where the model keeps them). */
  originStep: number;
  horizon: number;
  samples: number;
  seed: number;
  /** The treatments of the step `originStep + h` (h from 0). */
  treatmentsAt?: (h: number, scm: Scm) => Treatment[];
}

/** Per variable, per simulated step, every path's value (class index for a categorical variable). */
export type Paths = Record<string, Float64Array[]>;

const scms = new WeakMap<TemporalModel, Scm>();
export const scmOf = (model: TemporalModel): Scm => {
  let scm = scms.get(model);
  if (scm === undefined) scms.set(model, (scm = compileScm(model.cbn)));
  return scm;
};

export function simulateFuture(model: TemporalModel, request: FutureRequest): Paths {
  const values = request.samples * request.horizon * model.variables.length;
  if (values > MAX_SIMULATED_VALUES) {
    throw new AppError('validation_failed', `${request.samples} paths x ${request.horizon} steps x ${model.variables.length} variables is ${values} simulated values; at most ${MAX_SIMULATED_VALUES}: lower samples or forecastH`);
  }
  const scm = scmOf(model);
  const S = request.samples;
  const L = model.maxLag;
  const past = historyBefore(model, request.originStep, L);
  const paths: Paths = Object.fromEntries(model.variables.map((v) => [v.name, [] as Float64Array[]]));
  // Every input of the mechanisms: the lag columns (read from the paths' own past) and the seasonal terms.
  const inputs = scm.names.map((node) => ({ node, source: sourceOf(model, node) })).filter(({ source }) => source.kind === 'season' || source.lag > 0);
  for (let h = 0; h < request.horizon; h++) {
    const step = request.originStep + h;
    const treatments: Treatment[] = [];
    for (const { node, source: input } of inputs) {
      if (input.kind === 'season') {
        const [sin, cos] = seasonValue(input.period, step + (model.phase ?? 0));
        treatments.push({ node, kind: 'values', values: new Float64Array(S).fill(input.sin ? sin : cos) });
        continue;
      }
      const back = h - input.lag;
      const values = back >= 0 ? paths[input.variable]![back]! : new Float64Array(S).fill(past[input.variable]![L + back]!);
      treatments.push({ node, kind: 'values', values });
    }
    treatments.push(...(request.treatmentsAt?.(h, scm) ?? []));
    const frame = propagate(scm, drawNoise(scm, S, request.seed * 7919 + h), treatments);
    for (const variable of model.variables) {
      const column = frame.columns[scm.indexOf(variable.name)]!;
      paths[variable.name]!.push(column.kind === 'continuous' ? column.values : Float64Array.from(column.codes));
    }
  }
  return paths;
}

/**
 * The L steps before `originStep` per variable (numbers; class indices for categorical ones): observed values from
 * the model's tail where it has them, the variable's typical value (mean or most frequent class) where it does not.
 */
function historyBefore(model: TemporalModel, originStep: number, L: number): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const variable of model.variables) {
    const observed = model.tail.values[variable.name] ?? [];
    const typical = typicalValue(model, variable.name);
    let last = typical;
    const values: number[] = [];
    for (let t = originStep - L; t < originStep; t++) {
      const raw = t >= model.tail.from && t - model.tail.from < observed.length ? observed[t - model.tail.from] : null;
      const value = raw === null || raw === undefined ? null : variable.kind === 'continuous' ? Number(raw) : variable.categories.indexOf(String(raw));
      if (value !== null && !(variable.kind === 'categorical' && value < 0)) last = value;
      // Beyond the data: the last known value carries (a forecast from past the end simulates the gap first).
      values.push(value === null || (variable.kind === 'categorical' && value < 0) ? last : value);
    }
    out[variable.name] = values;
  }
  return out;
}

function typicalValue(model: TemporalModel, name: string): number {
  const node = model.cbn.nodes.find((n) => n.name === name);
  if (node === undefined) return 0;
  if (node.kind === 'continuous') return node.mean;
  let best = 0;
  node.marginal.forEach((p, k) => (p > node.marginal[best]! ? (best = k) : undefined));
  return best;
}

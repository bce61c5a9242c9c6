/**
 * Wanted values of a counterfactual or a scoring request, resolved against the model: which node, what counts as
 * met, and the value a search aims at. Shared by the change search (search.ts), counterfactual.ts and score.ts.
 */
import { AppError } from '../../errors.js';
import type { CounterfactualTarget } from './scenario.js';
import type { Scm } from './scm.js';

/** Default tolerance of a `tolerance` target without toleranceValue: this share of the variable's std. */
const DEFAULT_TOLERANCE_SHARE = 0.05;
/** An orMore/orLess search aims this share of the variable's std past the bound, so rounding never lands short. */
const INEQUALITY_MARGIN_SHARE = 1e-6;

export type ResolvedTarget =
  | { index: number; name: string; kind: 'continuous'; matchMode: 'tolerance' | 'orMore' | 'orLess'; value: number; tolerance: number; scale: number }
  | { index: number; name: string; kind: 'categorical'; label: string; code: number };

export function resolveTargets(scm: Scm, targets: readonly CounterfactualTarget[]): ResolvedTarget[] {
  if (targets.length === 0) throw new AppError('validation_failed', 'targets must name at least one variable');
  const seen = new Set<string>();
  return targets.map((t) => {
    const index = scm.indexOf(t.variable);
    if (index < 0) throw new AppError('validation_failed', `target ${t.variable} is not a variable of the model`);
    if (seen.has(t.variable)) throw new AppError('validation_failed', `target ${t.variable} appears twice`);
    seen.add(t.variable);
    const node = scm.model.nodes[index]!;
    if (node.kind === 'categorical') {
      const label = String(t.value);
      const code = node.categories.indexOf(label);
      if (code < 0) throw new AppError('validation_failed', `target ${t.variable} has no category ${JSON.stringify(t.value)} (categories: ${node.categories.join(', ')})`);
      return { index, name: t.variable, kind: 'categorical', label, code };
    }
    if (typeof t.value !== 'number' || !Number.isFinite(t.value)) throw new AppError('validation_failed', `target ${t.variable} is numeric: its value must be a number`);
    const scale = node.std > 0 ? node.std : Math.max(1e-9, Math.abs(t.value) * 1e-3);
    const matchMode = t.matchMode ?? 'tolerance';
    const tolerance = t.toleranceValue !== undefined && t.toleranceValue >= 0 ? t.toleranceValue : DEFAULT_TOLERANCE_SHARE * scale;
    return { index, name: t.variable, kind: 'continuous', matchMode, value: t.value, tolerance, scale };
  });
}

/** Whether a value (a number, or a category code for a categorical target) meets the target. */
export function targetMet(target: ResolvedTarget, value: number): boolean {
  if (target.kind === 'categorical') return value === target.code;
  if (Number.isNaN(value)) return false;
  if (target.matchMode === 'orMore') return value >= target.value;
  if (target.matchMode === 'orLess') return value <= target.value;
  return Math.abs(value - target.value) <= target.tolerance;
}

/** The value a numeric search solves for: the target itself, or just past an orMore/orLess bound. */
export function aimOf(target: Extract<ResolvedTarget, { kind: 'continuous' }>): number {
  const margin = INEQUALITY_MARGIN_SHARE * target.scale;
  return target.matchMode === 'orMore' ? target.value + margin : target.matchMode === 'orLess' ? target.value - margin : target.value;
}

/**
 * How far a value is from meeting the target, in the target's standard deviations (0 = met); a categorical miss
 * counts 1. Ranks attempts that meet nothing, so an unreachable answer still reports the closest one.
 */
export function shortfall(target: ResolvedTarget, value: number): number {
  if (targetMet(target, value)) return 0;
  if (target.kind === 'categorical' || Number.isNaN(value)) return 1;
  const gap = target.matchMode === 'orMore' ? target.value - value
    : target.matchMode === 'orLess' ? value - target.value
      : Math.abs(value - target.value) - target.tolerance;
  return Math.max(0, gap) / target.scale;
}

/** The wanted value as the spec states it: a number, or the category label. */
export const wantedValue = (target: ResolvedTarget): number | string => (target.kind === 'categorical' ? target.label : target.value);

/** The target's match mode as reported ('equals' for a categorical target). */
export const matchModeOf = (target: ResolvedTarget): string => (target.kind === 'categorical' ? 'equals' : target.matchMode);

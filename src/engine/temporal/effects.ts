/**
 * The fitted strength of each link of a temporal model: for a numeric target and a numeric input, the
 * standardized coefficient (coefficient x input std / target std, the effect of a one-std change of the input at
 * t - lag in stds of the target); null where a categorical end makes it a set of contrasts instead.
 */
import { lagName } from './lagged.js';
import type { TemporalModel } from './model.js';

export function linkStrengths(model: TemporalModel): Map<string, number | null> {
  const byName = new Map(model.cbn.nodes.map((node) => [node.name, node]));
  const strengths = new Map<string, number | null>();
  for (const edge of model.edges) {
    const target = byName.get(edge.target);
    const input = byName.get(lagName(edge.source, edge.lag));
    let strength: number | null = null;
    if (target?.kind === 'continuous' && input?.kind === 'continuous') {
      const k = target.terms.findIndex((term) => term.kind === 'linear' && term.parents.length === 1 && term.parents[0] === input.name);
      if (k >= 0 && target.std > 0) strength = Number(((target.coefficients[k]! * input.std) / target.std).toFixed(6));
    }
    strengths.set(linkKey(edge), strength);
  }
  return strengths;
}

export const linkKey = (edge: { source: string; target: string; lag: number }) => `${edge.source}\u0000${edge.target}\u0000${edge.lag}`;

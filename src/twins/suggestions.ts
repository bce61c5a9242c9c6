import type { Node, Relationship } from '../../schemas/twins.js';
import { newId } from '../lib/ids.js';

const SUGGESTIONS_MAX = 5;
const quote = (name: string) => `\`${name.replaceAll('\\', '\\\\').replaceAll('`', '\\`')}\``;

interface Suggestion {
  id: string;
  name: string;
  description: string;
  scenario: Record<string, unknown>;
  createdAt: string;
}

/**
 * Questions worth asking a trained static twin, read off its graph: what-ifs on the strongest causes of each
 * outcome, an explanation of each outcome's drivers, and an optimisation of the main outcome over its root causes.
 * Every scenario is ready to submit as it is.
 */
export function suggestSimulations(graph: Relationship[], nodes: Node[], roles: { sources: string[]; targets: string[] }, now: string): Suggestion[] {
  const byName = new Map(nodes.map((node) => [node.name, node]));
  const strongest = [...graph].sort((a, b) => Math.abs(b.strength ?? 0) - Math.abs(a.strength ?? 0));
  const suggestions: Suggestion[] = [];
  const add = (name: string, description: string, scenario: Record<string, unknown>) => {
    if (suggestions.length < SUGGESTIONS_MAX) suggestions.push({ id: newId('sug'), name, description, scenario, createdAt: now });
  };

  for (const edge of strongest.filter((e) => roles.targets.includes(e.target)).slice(0, 2)) {
    const cause = byName.get(edge.source);
    const effect = byName.get(edge.target);
    if (cause === undefined || effect === undefined) continue;
    const valueSpec =
      cause.type === 'continuous'
        ? { type: 'relative_change', mode: 'percentage', value: 10 }
        : { type: 'set_value', value: cause.categories?.[cause.categories.length - 1] ?? '' };
    const change = cause.type === 'continuous' ? `${cause.name} rises 10%` : `${cause.name} is set to ${String(valueSpec.value)}`;
    add(`What if ${change}?`, `Simulates the effect on ${effect.name} of ${change}.`, {
      type: 'intervention',
      interventions: [{ variable: cause.name, valueSpec }],
      metrics: [metricOf(effect)],
    });
  }
  for (const target of roles.targets.slice(0, 2)) {
    add(`What drives ${target}?`, `Ranks the causes of ${target} by their effect on it.`, { type: 'explanation', explanationMode: 'discovery', effectVariable: target });
  }
  const outcome = roles.targets.find((name) => byName.get(name)?.type === 'continuous');
  const levers = roles.sources.filter((name) => byName.get(name)?.type === 'continuous');
  if (outcome !== undefined && levers.length > 0) {
    add(`Maximise ${outcome}`, `Finds the settings of ${levers.join(', ')} that maximise ${outcome}.`, {
      type: 'optimisation',
      objectives: [{ direction: 'maximise', variable: outcome, weight: 1 }],
      decisionVars: levers,
    });
  }
  return suggestions;
}

/** The metric of an outcome: its mean, or the share of its most frequent-looking last category. */
function metricOf(effect: Node): Record<string, unknown> {
  if (effect.type === 'continuous') return { name: `Mean ${effect.name}`, sqlQuery: `SELECT avg(${quote(effect.name)}) AS value FROM df`, higherIsBetter: true };
  const category = effect.categories?.[effect.categories.length - 1] ?? '';
  return {
    name: `Share of ${effect.name} = ${category}`,
    sqlQuery: `SELECT avg(if(toString(${quote(effect.name)}) = '${category.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}', 1, 0)) AS value FROM df`,
    higherIsBetter: true,
  };
}

/**
 * The identification members of a reported effect (DESIGN.md "Identification"): `identified`, and when the class
 * of DAGs the twin cannot tell apart leaves it open, the possible effects over that class (IDA, Maathuis et al.
 * 2009) with the edges that decide between them. The point answer stays the chosen DAG's, labelled by `basis`.
 */
import type { Alternative, IdentificationPlan, Outcome } from '../identification/plan.js';
import type { EdgeRef } from '../types.js';

export interface Bounds {
  difference: number | number[];
  lowerBound: number | number[];
  upperBound: number | number[];
}

export interface PossibleDifference extends Bounds {
  /** true for the chosen DAG's answer (the point answer). */
  chosen: boolean;
  /** The deciding edges as the DAGs giving this effect orient them. */
  orientation: EdgeRef[];
}

export interface IdentifiedMembers {
  identified: boolean;
  /** `identified`: every DAG of the class gives this answer; `chosen_dag`: the answer of the DAG the search chose. */
  basis: 'identified' | 'chosen_dag';
  /** The reversible edges whose direction decides the effect, as the chosen DAG has them: what to pin. */
  decidingEdges: EdgeRef[];
  possibleDifferences?: PossibleDifference[];
}

export const IDENTIFIED: IdentifiedMembers = { identified: true, basis: 'identified', decidingEdges: [] };

/** The members for one effect: `chosen` is its answer on the chosen DAG, `others` on each alternative DAG. */
export function identifiedMembers(
  plan: IdentificationPlan, outcome: Outcome, chosen: Bounds, others: readonly { alternative: Alternative; value: Bounds | undefined }[], truncated: boolean,
): IdentifiedMembers {
  const { identified, decidingEdges } = plan.effectOn(outcome);
  if (identified) return { ...IDENTIFIED };
  const list: PossibleDifference[] = [{ ...bounds(chosen), chosen: true, orientation: decidingEdges }];
  const seen = new Set([edgesKey(decidingEdges)]);
  for (const { alternative, value } of others) {
    if (value === undefined || !plan.differsFor(alternative, outcome)) continue;
    const orientation = plan.orientationFor(alternative, outcome);
    if (seen.has(edgesKey(orientation))) continue;
    seen.add(edgesKey(orientation));
    list.push({ ...bounds(value), chosen: false, orientation });
  }
  // No DAG of the class turns the deciding edges another way: the class decides after all.
  if (list.length === 1 && !truncated) return { ...IDENTIFIED };
  return { identified: false, basis: 'chosen_dag', decidingEdges, possibleDifferences: list };
}

/**
 * "The data cannot tell whether A causes X or the reverse; the effect on Y is 0 (the chosen graph's answer) or
 * +1.68; pin the direction you know in the fixed graph to decide." A deciding edge that joins a column to its exact
 * copy is said as such: no direction of it alone decides which of the two the others respond to. `show` formats one
 * possible difference.
 */
export function identificationNote(plan: IdentificationPlan, what: string, members: IdentifiedMembers, show: (d: PossibleDifference) => string): string | null {
  if (members.identified || !members.possibleDifferences) return null;
  const [copies, edges] = partition(members.decidingEdges, (e) => plan.joinsCopy(e));
  const open = [
    ...edges.map((e) => `whether ${e.source} causes ${e.target} or the reverse`),
    ...copies.map((e) => `which of ${e.source} and ${e.target} (the same values under other labels in every training row) the others respond to`),
  ].join(', nor ');
  const values = members.possibleDifferences.map((d) => `${show(d)}${d.chosen ? ' (the chosen graph\'s answer)' : ''}`).join(' or ');
  const pins = edges.map((e) => `${e.source} -> ${e.target} or ${e.target} -> ${e.source}`).join('; ');
  const roles = copies.map((e) => `${e.source} -> ${e.target} if ${e.target} only records ${e.source}, ${e.target} -> ${e.source} if ${e.source} only records ${e.target}`).join('; ');
  const steps = [
    ...(edges.length > 0 ? [`pin the direction you know in the fixed graph (${pins})`] : []),
    ...(copies.length > 0 ? [`pin the edge between the copies from the one that acts (${roles}) or leave the one that only records the other out of the twin`] : []),
  ].join(', and ');
  return `The data cannot tell ${open}; ${what} is ${values}. To decide, ${steps} and retrain.`;
}

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

function bounds(b: Bounds): Bounds {
  return { difference: b.difference, lowerBound: b.lowerBound, upperBound: b.upperBound };
}

const edgesKey = (edges: readonly EdgeRef[]) => edges.map((e) => `${e.source}>${e.target}`).join('|');

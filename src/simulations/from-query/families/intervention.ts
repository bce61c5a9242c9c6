/**
 * What-if questions: change clauses anywhere in the query, the rows they apply to ("for region North"), and the
 * outcome asked about ("what happens to churn"): every variable named but not changed is reported as an outcome.
 */
import type { Condition, Intervention, InterventionScenario } from '../../../engine/inference/scenario.js';
import { describeIntervention } from '../describe.js';
import { readConditions } from '../conditions.js';
import { labelFirst, noteUnknownSubject, numberFirst, variableFirst, verbFirst, type Clause, type ClauseState } from '../intervention-clauses.js';
import { unknownVariable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { assertNumbersClaimed } from '../samples.js';
import { readConfidence } from '../values.js';
import { CONDITION_WORDS, HYPOTHETICAL_WORDS, PREDICT_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

const SENTENCE_ENDS = new Set(['.', '?', '!', ';']);

export function parseIntervention(r: QueryReader): Parsed<InterventionScenario> | null {
  const confidenceLevel = readConfidence(r);
  const state: ClauseState = { r, misses: [], statesAreSettings: settingsFrom(r) };
  const interventions: Intervention[] = [];
  /** Interventions not yet given conditions: a condition group applies to the clauses just before it. */
  let pending: Intervention[] = [];
  let leading: Condition[] = [];
  for (let i = 0; i < r.length; i++) {
    if (r.isConsumed(i)) continue;
    if (r.is(i, CONDITION_WORDS)) {
      const read = readConditions(r, i + 1);
      if (read !== null) {
        if (pending.length === 0) leading = [...leading, ...read.conditions];
        for (const intervention of pending) intervention.conditions = read.conditions;
        pending = [];
        r.consume(i, read.next);
        i = read.next - 1;
        continue;
      }
    }
    const parsed: Clause | null = verbFirst(state, i) ?? numberFirst(state, i) ?? variableFirst(state, i) ?? labelFirst(state, i);
    if (parsed === null) {
      noteUnknownSubject(state, i);
      continue;
    }
    r.consume(i, parsed.next);
    interventions.push(...parsed.interventions);
    pending.push(...parsed.interventions);
    i = parsed.next - 1;
  }
  noteUnknownOutcomes(state);
  const [miss] = state.misses;
  if (miss !== undefined) throw unknownVariable(miss, r.names);
  if (interventions.length === 0) return null;
  if (leading.length > 0) for (const intervention of interventions) intervention.conditions ??= leading;
  assertNumbersClaimed(r);

  const changed = new Set(interventions.map((i) => i.variable));
  const targetVars = r.freeVariables().map((v) => v.name).filter((name) => !changed.has(name));
  const scenario: InterventionScenario = { type: 'intervention', interventions };
  if (targetVars.length > 0) scenario.targetVars = targetVars;
  if (confidenceLevel !== undefined) scenario.confidenceLevel = confidenceLevel;
  const outcome = targetVars.length > 0 ? `report ${targetVars.join(', ')}` : 'report every variable downstream';
  return { scenario, interpretation: `What-if: ${interventions.map(describeIntervention).join('; ')}; ${outcome}.` };
}

/**
 * "price is 12" sets price inside an if-clause ("what if discount is 5"), but only observes it in a prediction
 * ("predict revenue when price is 12"): seeing is not doing.
 */
function settingsFrom(r: QueryReader): (at: number) => boolean {
  if (r.tokens.some((_, i) => r.is(i, PREDICT_WORDS))) return () => false;
  const inside: boolean[] = [];
  let hypothetical = false;
  for (let i = 0; i < r.length; i++) {
    if (r.is(i, SENTENCE_ENDS)) hypothetical = false;
    if (r.is(i, HYPOTHETICAL_WORDS)) hypothetical = true;
    inside.push(hypothetical);
  }
  return (at) => inside[at] === true;
}

/** "what happens to churn", "the effect on churn": the outcome's place must hold a variable of the twin. */
function noteUnknownOutcomes(state: ClauseState): void {
  const { r } = state;
  for (let i = 0; i < r.length; i++) {
    const slot = r.is(i, ['happen', 'happens', 'happened']) && r.is(i + 1, 'to') ? i + 2 : r.is(i, ['effect', 'effects', 'impact', 'impacts']) && r.is(i + 1, 'on') ? i + 2 : -1;
    if (slot === -1 || r.isConsumed(slot) || r.variableAt(slot) !== null) continue;
    const unknown = r.contentAfter(slot);
    if (unknown !== null) state.misses.push(unknown.phrase);
  }
}

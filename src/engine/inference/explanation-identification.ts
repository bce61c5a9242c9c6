/**
 * Identification of explanation answers (DESIGN.md "Identification"): in impact mode every ranked effect of the
 * cause, in directional mode its total effect on the effect variable, says whether the class of DAGs decides it,
 * and if not, what it is on the other DAGs of the class (answered by `answerOn`, the same question on their models).
 */
import type { IdentificationPlan } from '../identification/plan.js';
import type { CbnModel } from '../types.js';
import { type Bounds, identificationNote, identifiedMembers } from './identified-effects.js';
import type { FamilyOutcome } from './outcome.js';

const Z = 1.959963984540054;

interface Estimate {
  variable?: string;
  effect: number;
  standardError: number;
}

export async function identifyExplanation(
  plan: IdentificationPlan, outcome: FamilyOutcome, context: { seed: number; hooks: { aborted?(): boolean } },
  answerOn: (model: CbnModel, report: string[]) => Promise<FamilyOutcome>,
): Promise<void> {
  const details = outcome.details;
  const impact = details.mode === 'impact';
  const effects = impact ? (details.effects as Estimate[]) : [details.totalEffect as Estimate];
  const name = (e: Estimate) => (impact ? e.variable! : String(details.effectVariable));
  const reported = effects.map(name);
  const others = plan.alternatives(reported, context.seed);
  const answers: { alternative: (typeof others.alternatives)[number]; estimates: Map<string, Estimate> }[] = [];
  for (const alternative of others.alternatives) {
    if (context.hooks.aborted?.() === true) break;
    const answer = (await answerOn(alternative.model, reported)).details;
    const list = impact ? (answer.effects as Estimate[]) : [answer.totalEffect as Estimate];
    answers.push({ alternative, estimates: new Map(list.map((e) => [impact ? e.variable! : String(answer.effectVariable), e])) });
  }
  const notes: string[] = [];
  for (const e of effects) {
    const members = identifiedMembers(plan, name(e), bounds(e), answers.map((a) => ({ alternative: a.alternative, value: bounds(a.estimates.get(name(e))) })), others.truncated);
    Object.assign(e, members);
    const what = `the effect of ${String(details.causeVariable)} on ${name(e)}${details.measure === 'per_std' || impact ? ' (per std of the cause)' : ''}`;
    const note = identificationNote(plan, what, members, (d) => `${show(d.difference as number)} (${show(d.lowerBound as number)} to ${show(d.upperBound as number)})`);
    if (note !== null) notes.push(note);
  }
  if (notes.length > 0) {
    outcome.summary.summary += ` ${notes[0]}`;
    outcome.summary.keyPoints.unshift(...notes.slice(0, 2));
    outcome.summary.keyPoints.splice(5);
  }
}

/** An estimate as an effect with its normal interval; a variable absent from an answer has no effect there. */
function bounds(e: Estimate | undefined): Bounds {
  if (e === undefined) return { difference: 0, lowerBound: 0, upperBound: 0 };
  const half = Number.isFinite(e.standardError) ? Z * e.standardError : 0;
  return { difference: e.effect, lowerBound: e.effect - half, upperBound: e.effect + half };
}

const show = (x: number) => (x > 0 ? '+' : '') + String(Number(x.toPrecision(3)));

/**
 * Identification of an optimisation's answer (DESIGN.md "Identification"): the recommended decisions are re-simulated
 * on every other DAG of the class that turns a deciding edge another way, and each objective's change says whether
 * the class decides it. Intervals here are Monte Carlo only (paired over the simulated units) for variable
 * objectives; a metric objective's possible changes are point values.
 */
import type { IdentificationPlan } from '../identification/plan.js';
import type { Frame } from '../types.js';
import { type Bounds, identificationNote, identifiedMembers } from './identified-effects.js';
import { Goals } from './optimisation-goals.js';
import { decisionLevers, leverTreatments } from './optimisation-space.js';
import type { FamilyOutcome, InferenceContext } from './outcome.js';
import type { OptimisationScenario } from './scenario.js';
import { populationNoise } from './population.js';
import { compileScm, propagate } from './scm.js';

const Z = 1.959963984540054;

interface ObjectiveReport {
  variable?: string;
  variablesRelevantToMetric?: string[];
  baseline: number;
  optimised: number;
}

/** The chosen decisions: active lever indices (into the scenario's decision variables) and their values. */
export interface Decisions {
  active: number[];
  x: number[];
}

export async function identifyOptimisation(
  plan: IdentificationPlan, scenario: OptimisationScenario, decisions: Decisions, samples: number,
  chosen: { baseline: Frame; final: Frame }, outcome: FamilyOutcome, context: InferenceContext,
): Promise<void> {
  const objectives = outcome.details.objectives as ObjectiveReport[];
  const asked = objectives.map((o) => o.variable ?? o.variablesRelevantToMetric ?? null);
  const others = plan.alternatives(asked, context.seed);
  const answers: { alternative: (typeof others.alternatives)[number]; changes: Bounds[] }[] = [];
  for (const alternative of others.alternatives) {
    if (context.hooks.aborted?.() === true) break;
    const scm = compileScm(alternative.model);
    const { noise } = populationNoise(scm, samples, context.seed, scenario.conditions);
    const baseline = propagate(scm, noise);
    const levers = decisionLevers(scm, scenario, baseline);
    const final = propagate(scm, noise, decisions.active.flatMap((l, k) => leverTreatments(scm, levers[l]!, decisions.x[k]!)));
    const goals = new Goals(scm, scenario);
    const [before, after] = [await goals.measure(baseline, context), await goals.measure(final, context)];
    answers.push({ alternative, changes: objectives.map((o, i) => change(o.variable, baseline, final, before.objectives[i]!, after.objectives[i]!)) });
  }
  const notes: string[] = [];
  objectives.forEach((o, i) => {
    const mine = change(o.variable, chosen.baseline, chosen.final, o.baseline, o.optimised);
    const members = identifiedMembers(plan, asked[i] ?? null, mine, answers.map((a) => ({ alternative: a.alternative, value: a.changes[i] })), others.truncated);
    Object.assign(o, members);
    const show = (x: number) => (x > 0 ? '+' : '') + String(Number(x.toPrecision(3)));
    const note = identificationNote(plan, `the change the recommended decisions make to ${o.variable ?? 'the metric'}`, members, (d) => show(d.difference as number));
    if (note !== null) notes.push(note);
  });
  if (notes.length > 0) {
    outcome.summary.summary += ` ${notes[0]}`;
    outcome.summary.keyPoints.unshift(...notes.slice(0, 2));
    outcome.summary.keyPoints.splice(6);
  }
}

/** An objective's change between two arms over the same units: a variable's with its paired Monte Carlo interval. */
function change(variable: string | undefined, baseline: Frame, final: Frame, before: number, after: number): Bounds {
  const difference = after - before;
  const a = variable === undefined ? undefined : final.columns.find((c) => c.name === variable);
  const b = variable === undefined ? undefined : baseline.columns.find((c) => c.name === variable);
  if (a?.kind !== 'continuous' || b?.kind !== 'continuous') return { difference, lowerBound: difference, upperBound: difference };
  const n = a.values.length;
  let sum = 0;
  let ss = 0;
  for (let r = 0; r < n; r++) {
    const d = a.values[r]! - b.values[r]!;
    sum += d;
    ss += d * d;
  }
  const half = n > 1 ? Z * Math.sqrt(Math.max(0, (ss - (sum * sum) / n) / (n - 1)) / n) : 0;
  return { difference, lowerBound: difference - half, upperBound: difference + half };
}

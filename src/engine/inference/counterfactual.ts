/**
 * Best action (spec "counterfactual family"): for each baseline record, the fewest changes that would have met
 * the targets, by abduction-action-prediction (Pearl 2009, ch. 7). Abduction keeps the unit's own noise (missing
 * cells neutral: unit-probe.ts), search.ts picks the changes, and each answer is re-simulated before it is
 * reported, so `achieved` and the counterfactual values are the model's, not the search's estimate.
 */
import { AppError } from '../../errors.js';
import { predictProbabilities } from '../cbn/predict.js';
import { AbortError } from '../discovery/budget.js';
import type { CbnModel } from '../types.js';
import type { FamilyOutcome, InferenceContext, ResultRecord } from './outcome.js';
import type { CounterfactualScenario } from './scenario.js';
import { compileScm, frameFromRecords, type Scm } from './scm.js';
import { planChangeSearch, searchUnits, type UnitAnswer } from './search.js';
import { matchModeOf, type ResolvedTarget, resolveTargets, wantedValue } from './target-match.js';
import { abductNeutral, targetColumns, UnitProbe } from './unit-probe.js';

const CONFIDENCE_LEVEL = 0.95;

export async function runCounterfactual(model: CbnModel, scenario: CounterfactualScenario, context: InferenceContext): Promise<FamilyOutcome> {
  if (scenario.samples.length === 0) throw new AppError('validation_failed', 'samples must hold at least one baseline record');
  const scm = compileScm(model);
  const targets = resolveTargets(scm, scenario.targets);
  const plan = planChangeSearch(scm, targets, { maxChanges: scenario.maxChanges, constraints: scenario.constraints });
  const probe = new UnitProbe(scm, abductNeutral(scm, frameFromRecords(scm, scenario.samples), context.seed), targetColumns(targets));
  const checkpoint = () => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
  };
  const answers = searchUnits(plan, probe, checkpoint, (done) => context.hooks.progress?.(done, 'searching changes'));
  const records: Record<string, ResultRecord[]> = Object.fromEntries(targets.map((t) => [t.name, [] as ResultRecord[]]));
  answers.forEach((answer, unit) => {
    const probabilities = categoricalProbabilities(scm, probe, unit, answer, targets);
    targets.forEach((t, j) => records[t.name]!.push(resultRecord(scm, t, answer.counterfactual[j]!, probabilities.get(j))));
  });
  context.hooks.progress?.(1, 'done');
  const samples = answers.map((a, index) => ({
    index,
    achieved: a.achieved,
    changes: a.changes.map((c) => ({ variable: scm.names[c.node]!, from: label(scm, c.node, c.from), to: label(scm, c.node, c.to) })),
    targets: targets.map((t, j) => ({
      variable: t.name, target: wantedValue(t), matchMode: matchModeOf(t),
      baseline: label(scm, t.index, a.baseline[j]!), counterfactual: label(scm, t.index, a.counterfactual[j]!), met: a.met[j]!,
    })),
  }));
  return { results: records, details: { samples }, summary: summarise(scm, answers, plan.maxChanges) };
}

/** A node's value as JSON: the number, or the category label of a code. */
function label(scm: Scm, node: number, value: number): number | string | null {
  const model = scm.model.nodes[node]!;
  if (Number.isNaN(value)) return null;
  return model.kind === 'categorical' ? model.categories[value] ?? null : value;
}

/** Class probabilities of each categorical target given its parents in the unit's counterfactual world. */
function categoricalProbabilities(scm: Scm, probe: UnitProbe, unit: number, answer: UnitAnswer, targets: ResolvedTarget[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  if (targets.every((t) => t.kind !== 'categorical')) return out;
  const frame = probe.frame([{ unit, rows: [answer.changes.map((c) => ({ node: c.node, value: c.to }))] }]);
  targets.forEach((t, j) => {
    const node = scm.model.nodes[t.index]!;
    if (node.kind === 'categorical') out.set(j, Array.from(predictProbabilities(node, frame)));
  });
  return out;
}

function resultRecord(scm: Scm, target: ResolvedTarget, value: number, probabilities: number[] | undefined): ResultRecord {
  const record: ResultRecord = { timestamp: null, prediction: label(scm, target.index, value), std: null, lowerBound: null, upperBound: null, confidenceLevel: CONFIDENCE_LEVEL };
  const node = scm.model.nodes[target.index]!;
  if (node.kind === 'categorical' && probabilities) return { ...record, probabilities, categories: [...node.categories] };
  return record;
}

function summarise(scm: Scm, answers: UnitAnswer[], maxChanges: number): FamilyOutcome['summary'] {
  const achieved = answers.filter((a) => a.achieved).length;
  const levers = new Map<string, number>();
  for (const a of answers) if (a.achieved) for (const c of a.changes) levers.set(scm.names[c.node]!, (levers.get(scm.names[c.node]!) ?? 0) + 1);
  const ranked = [...levers].sort((a, b) => b[1] - a[1]);
  const keyPoints = answers.slice(0, 5).map((a, i) => {
    if (a.changes.length === 0) return `Sample ${i}: ${a.achieved ? 'already meets its targets' : 'no change within reach moves it toward its targets'}.`;
    const changes = a.changes.map((c) => `${scm.names[c.node]} ${format(label(scm, c.node, c.from))} -> ${format(label(scm, c.node, c.to))}`).join(', ');
    return `Sample ${i}: ${changes} ${a.achieved ? 'meets' : 'does not meet'} its targets.`;
  });
  if (ranked.length > 0) keyPoints.push(`Most used change: ${ranked[0]![0]} (${ranked[0]![1]} of ${achieved} samples that reach their targets).`);
  return { summary: `${achieved} of ${answers.length} samples reach their targets with at most ${maxChanges} change${maxChanges === 1 ? '' : 's'}.`, keyPoints };
}

const format = (v: number | string | null) => (typeof v === 'number' ? Number(v.toPrecision(4)).toString() : String(v));


/**
 * temporal_counterfactual: the fewest changes, at steps up to a time, that would have brought the targets to the
 * wanted values at later steps of an observed history (abduction-action-prediction over time, Pearl 2009 ch. 7).
 * The model is unrolled from the latest target step back over the steps changes may touch (unroll.ts), so the
 * history is one unit of a static model: abduction keeps the noise of every variable at every step of the path,
 * and the static change search (search.ts) picks the changes among the variables at the allowed steps (a change
 * sets one variable at one step; later steps follow through the mechanisms and the lags). The answer is
 * re-simulated on the abducted path, so `achieved` is what the model does with the changes.
 */
import { AppError } from '../../errors.js';
import { AbortError } from '../discovery/budget.js';
import type { FamilyOutcome, InferenceContext, ResultRecord } from '../inference/outcome.js';
import { compileScm, frameFromRecords } from '../inference/scm.js';
import { planChangeSearch, searchUnits, type UnitAnswer } from '../inference/search.js';
import { matchModeOf, resolveTargets, wantedValue } from '../inference/target-match.js';
import { abductNeutral, targetColumns, UnitProbe } from '../inference/unit-probe.js';
import { lagName } from './lagged.js';
import { type TemporalModel, timeText } from './model.js';
import type { TemporalCounterfactualScenario } from './scenario.js';
import { unroll, unrolledRecord } from './unroll.js';
import { type SampleWindow, keptWindow, sampleWindow } from './window.js';

/** Steps before `changeBy` (itself included) at which changes may fall, by default. */
const DEFAULT_CHANGE_STEPS = 10;
/** The unrolled model spans at most this many steps (variables x steps nodes). */
const MAX_SPAN = 60;

export async function runTemporalCounterfactual(model: TemporalModel, scenario: TemporalCounterfactualScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const window = scenario.samples === undefined ? historyUpTo(model, scenario.historyUntil) : sampleWindow(model, scenario.samples);
  const rowAt = (time: number | undefined, what: string): number => {
    if (time === undefined) return window.frame.nRows - 1;
    const row = window.times.findIndex((t) => t !== null && t >= time);
    if (row < 0) throw new AppError('validation_failed', `${what} ${timeText(model, time)} is after the observed history (it ends ${window.times.at(-1) === null ? 'without times' : timeText(model, window.times.at(-1)!)})`);
    return row;
  };
  const targetRows = scenario.targets.map((t, i) => rowAt(t.timestamp, `targets[${i}].timestamp`));
  const last = Math.max(...targetRows);
  const changeBy = scenario.changeBy === undefined ? Math.min(...targetRows) - 1 : rowAt(scenario.changeBy, 'changeBy');
  if (changeBy < 0 || changeBy > last) throw new AppError('validation_failed', 'changes must fall at or after the first step of the history and no later than the last target step: give a history that starts earlier, or a later changeBy');
  const steps = Math.min(scenario.changeSteps ?? DEFAULT_CHANGE_STEPS, changeBy + 1);
  const changeFrom = changeBy - steps + 1;
  const depth = last - changeFrom;
  if (depth + 1 > MAX_SPAN) throw new AppError('validation_failed', `the changes and targets span ${depth + 1} steps; at most ${MAX_SPAN}: lower changeSteps or move the targets closer to changeBy`);
  context.hooks.progress?.(0.1, 'abducting the observed path');
  const unrolled = unroll(model, depth, window.steps[last]!);
  const scm = compileScm(unrolled.cbn);
  const record = unrolledRecord(model, unrolled, window, last);
  const nodeOf = (variable: string, row: number) => lagName(variable, last - row);
  const targets = resolveTargets(scm, scenario.targets.map((t, i) => ({ ...t, variable: nodeOf(t.variable, targetRows[i]!) })));
  // Only the variables at the allowed steps may change, and never a fixed one.
  const fixed: Record<string, { type: 'fixed' }> = {};
  for (const name of scm.names) {
    const { variable, stepsBefore } = unrolled.nodeOf(name);
    const row = last - stepsBefore;
    if (row < changeFrom || row > changeBy || scenario.constraints?.[variable] !== undefined) fixed[name] = { type: 'fixed' };
  }
  const plan = planChangeSearch(scm, targets, { maxChanges: scenario.maxChanges, constraints: fixed });
  const probe = new UnitProbe(scm, abductNeutral(scm, frameFromRecords(scm, [record]), context.seed), targetColumns(targets));
  context.hooks.progress?.(0.3, `searching ${plan.levers.length} possible changes`);
  const [answer] = searchUnits(plan, probe, () => {
    if (context.hooks.aborted?.() === true) throw new AbortError();
  }) as [UnitAnswer];
  const shown = (node: number, value: number) => {
    const n = scm.model.nodes[node]!;
    return Number.isNaN(value) ? null : n.kind === 'categorical' ? (n.categories[value] ?? null) : value;
  };
  const timeOfRow = (row: number) => window.times[row] ?? null;
  const changes = answer.changes.map((c) => {
    const { variable, stepsBefore } = unrolled.nodeOf(scm.names[c.node]!);
    const row = last - stepsBefore;
    return { variable, index: window.recordOf[row]!, timestamp: timeOfRow(row), from: shown(c.node, c.from), to: shown(c.node, c.to) };
  });
  const reported = targets.map((t, j) => ({
    variable: scenario.targets[j]!.variable,
    index: window.recordOf[targetRows[j]!]!,
    timestamp: timeOfRow(targetRows[j]!),
    target: wantedValue(t),
    matchMode: matchModeOf(t),
    observed: shown(t.index, answer.baseline[j]!),
    counterfactual: shown(t.index, answer.counterfactual[j]!),
    met: answer.met[j]!,
  }));
  const results: Record<string, ResultRecord[]> = {};
  for (const t of reported) (results[t.variable] ??= []).push({ timestamp: t.timestamp, prediction: t.counterfactual, std: null, lowerBound: null, upperBound: null, confidenceLevel: 0.95 });
  context.hooks.progress?.(1, 'done');
  const when = (c: { timestamp: number | null; index: number }) => (c.timestamp === null ? `step ${c.index}` : timeText(model, c.timestamp));
  const fmt = (v: number | string | null) => (typeof v === 'number' ? String(Number(v.toPrecision(4))) : String(v));
  const changeText = changes.map((c) => `${c.variable} ${fmt(c.from)} -> ${fmt(c.to)} at ${when(c)}`).join(', ');
  return {
    results,
    details: {
      achieved: answer.achieved,
      changes,
      targets: reported,
      changeWindow: { from: timeOfRow(changeFrom), to: timeOfRow(changeBy), steps },
      maxChanges: plan.maxChanges,
      candidates: plan.levers.length,
    },
    summary: {
      summary: answer.changes.length === 0
        ? answer.achieved ? 'The observed history already meets the targets.' : `No set of at most ${plan.maxChanges} changes between ${when({ timestamp: timeOfRow(changeFrom), index: window.recordOf[changeFrom]! })} and ${when({ timestamp: timeOfRow(changeBy), index: window.recordOf[changeBy]! })} moves the targets toward the wanted values.`
        : `${changeText} ${answer.achieved ? 'would have met' : 'would have come closest to, but not met,'} the targets (re-simulated on the observed path).`,
      keyPoints: reported.map((t) => `${t.variable} at ${when(t)}: observed ${fmt(t.observed)}, would have been ${fmt(t.counterfactual)} (wanted ${t.matchMode === 'orMore' ? 'at least ' : t.matchMode === 'orLess' ? 'at most ' : ''}${fmt(t.target)}: ${t.met ? 'met' : 'not met'})`),
    },
  };
}

/** The data the version keeps, up to a time (default its end): at most MAX_SPAN + maxLag steps. */
function historyUpTo(model: TemporalModel, until: number | undefined): SampleWindow {
  const times = model.tail.times;
  const end = until === undefined ? times.length : times.findIndex((t) => t > until);
  const stop = end < 0 ? times.length : end;
  if (stop === 0) throw new AppError('validation_failed', `historyUntil ${timeText(model, until!)} is before the history this version keeps (from ${timeText(model, times[0]!)})`);
  return keptWindow(model, Math.max(0, stop - MAX_SPAN - model.maxLag), stop);
}

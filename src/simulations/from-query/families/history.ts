/**
 * Questions about a temporal twin's recent data, answered on windows of the data the version keeps (so the
 * scenario read is complete and can be submitted as it is): "is the twin still healthy over the last 60 days"
 * (causal_health_monitor), "any anomalies in the last 2 weeks, and why" (temporal_anomaly_detection with the root
 * causes of the worst), "why did sales spike on 2023-06-01" (temporal_root_cause_analysis at that step, else at
 * the last step of the data), "what would it have taken for sales to reach 100 on 2023-06-01"
 * (temporal_counterfactual on the stored history up to that day).
 */
import { DEFAULT_WINDOW_STEPS } from '../../../engine/temporal/health.js';
import type { HealthMonitorScenario, TemporalAnomalyScenario, TemporalCounterfactualScenario, TemporalRootCauseScenario, WindowRecord } from '../../../engine/temporal/scenario.js';
import { unmappable } from '../problems.js';
import type { QueryContext, QueryReader } from '../reader.js';
import { readSpan } from '../steps.js';
import { ANOMALY_WORDS } from '../vocabulary.js';
import { describeTarget, readAsk } from './counterfactual.js';
import { findTrigger } from './diagnosis.js';
import type { Parsed } from './parsed.js';

const HEALTH_WORDS = new Set(['health', 'healthy', 'drift', 'drifted', 'drifting', 'degraded', 'stale', 'monitor']);
const WHY_WORDS = new Set(['why', 'explain', 'diagnose', 'cause', 'causes']);
/** Steps scanned for anomalies when the query names no span, and steps before a diagnosed one. */
const DEFAULT_SCAN_STEPS = 30;
const DIAGNOSIS_STEPS = 24;
const HEALTH_STEPS = { min: 20, max: 2000 };
const ISO_DATE = /\b(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)Z?)?\b/;

type History = NonNullable<QueryContext['history']>;

export function parseHealth(r: QueryReader): Parsed<HealthMonitorScenario> | null {
  const at = r.tokens.findIndex((_, i) => r.is(i, HEALTH_WORDS) || (r.is(i, 'still') && r.is(i + 1, ['hold', 'holds', 'valid', 'true'])));
  // "monitor sales for anomalies" is a scan, "why did ... drift" a diagnosis: those readers take them.
  if (at === -1 || r.tokens.some((_, i) => r.is(i, ANOMALY_WORDS)) || findTrigger(r) !== null) return null;
  r.consume(at, at + 1);
  const span = readSpan(r);
  const scenario: HealthMonitorScenario = { type: 'causal_health_monitor' };
  if (span !== null) {
    if (span.steps < HEALTH_STEPS.min || span.steps > HEALTH_STEPS.max) throw unmappable(`the health monitor watches ${HEALTH_STEPS.min} to ${HEALTH_STEPS.max} steps of the data; "${span.said}" is ${span.steps}`);
    scenario.windowSteps = span.steps;
  }
  r.consume(0, r.length);
  return { scenario, interpretation: `Check whether every link and variable of this version still behaves as it learned, over the last ${scenario.windowSteps ?? DEFAULT_WINDOW_STEPS} steps of its data.` };
}

export function parseTemporalAnomaly(r: QueryReader): Parsed<TemporalAnomalyScenario> | null {
  const history = r.context.history;
  const at = r.tokens.findIndex((_, i) => r.is(i, ANOMALY_WORDS));
  if (at === -1 || history === undefined) return null;
  r.consume(at, at + 1);
  const why = r.tokens.some((_, i) => r.is(i, WHY_WORDS) || (r.is(i, 'root') && r.is(i + 1, ['cause', 'causes'])));
  const span = readSpan(r);
  const steps = Math.min(span?.steps ?? DEFAULT_SCAN_STEPS, history.times.length - history.maxLag);
  if (!(steps >= 1)) throw unmappable(`the version keeps too few steps of data to scan`);
  const end = history.times.length;
  const samples = windowRecords(history, end - steps - history.maxLag, end);
  const scenario: TemporalAnomalyScenario = { type: 'temporal_anomaly_detection', samples, startStep: samples.length - steps };
  if (why) scenario.autoRcaTopK = 3;
  r.consume(0, r.length);
  return {
    scenario,
    interpretation: `Scan the last ${steps} steps of the data (${timeText(history, history.times[end - steps]!)} to ${timeText(history, history.times[end - 1]!)}) for steps the twin finds improbable${why ? ', with the root causes of the 3 worst' : ''}.`,
  };
}

export function parseTemporalRootCause(r: QueryReader): Parsed<TemporalRootCauseScenario> | null {
  const history = r.context.history;
  const trigger = findTrigger(r);
  if (trigger === null || history === undefined) return null;
  const named = r.variableAt(trigger.slot);
  if (named === null) return null;
  r.consume(trigger.start, named.next);
  const end = namedStep(r, history) + 1;
  const samples = windowRecords(history, end - DIAGNOSIS_STEPS, end);
  r.consume(0, r.length);
  const targetVariable = named.variable.name;
  return {
    scenario: { type: 'temporal_root_cause_analysis', targetVariable, samples, anomalyTimestep: samples.length - 1 },
    interpretation: `Find the root causes of ${targetVariable} at ${timeText(history, history.times[end - 1]!)}, looking back over the ${samples.length - 1} steps before it.`,
  };
}

/** Past-tense asks: what would have brought a target there, with hindsight. */
const HINDSIGHT_ASKS = ['would it have taken', 'would have taken', 'should we have', 'could we have', 'should have changed', 'in hindsight', 'would have needed'];

export function parseTemporalCounterfactual(r: QueryReader): Parsed<TemporalCounterfactualScenario> | null {
  const history = r.context.history;
  if (history === undefined) return null;
  const ask = readAsk(r, HINDSIGHT_ASKS);
  if (ask === null) return null;
  const step = namedStep(r, history);
  r.consume(0, r.length);
  const dated = ISO_DATE.test(r.query);
  const timestamp = history.times[step]!;
  const scenario: TemporalCounterfactualScenario = { type: 'temporal_counterfactual', targets: ask.targets.map((t) => ({ ...t, timestamp })) };
  if (dated) scenario.historyUntil = timestamp;
  if (ask.maxChanges !== undefined) scenario.maxChanges = ask.maxChanges;
  if (ask.fixed.length > 0) scenario.constraints = Object.fromEntries(ask.fixed.map((name) => [name, { type: 'fixed' as const }]));
  const held = ask.fixed.length > 0 ? `, keeping ${ask.fixed.join(', ')} fixed` : '';
  return { scenario, interpretation: `Find the fewest changes in the steps before ${timeText(history, timestamp)} that would have brought ${ask.targets.map(describeTarget).join(' and ')} at ${timeText(history, timestamp)}${held}.` };
}

/** The step (index into the history) of the ISO date the query names, or its last step; a date outside it is refused. */
function namedStep(r: QueryReader, history: History): number {
  const date = ISO_DATE.exec(r.query);
  if (date === null) return history.times.length - 1;
  const time = Date.parse(`${date[1]}T${date[2] ?? '00:00'}Z`);
  const index = history.times.findIndex((t) => t >= time);
  if (index < 0 || (index === 0 && history.times[0]! > time)) throw unmappable(`${date[0]} is outside the data this version keeps (${timeText(history, history.times[0]!)} to ${timeText(history, history.times.at(-1)!)})`);
  // Consume the date's tokens: its numbers are not values of the question.
  r.tokens.forEach((token, i) => {
    if (token.start >= date.index && token.end <= date.index + date[0].length) r.consume(i, i + 1);
  });
  return index;
}

/** Records of steps [from, to) of the history (from clipped at 0), each with its time under the twin's time column. */
function windowRecords(history: History, from: number, to: number): WindowRecord[] {
  const key = history.column ?? 'timestamp';
  const records: WindowRecord[] = [];
  for (let k = Math.max(0, from); k < to; k++) {
    const record: WindowRecord = { [key]: history.axis === 'time' ? new Date(history.times[k]!).toISOString() : history.times[k]! };
    for (const [name, values] of Object.entries(history.values)) record[name] = values[k] ?? null;
    records.push(record);
  }
  return records;
}

const timeText = (history: History, t: number) => (history.axis === 'time' ? new Date(t).toISOString().replace('T00:00:00.000Z', '').replace(':00.000Z', 'Z') : String(t));

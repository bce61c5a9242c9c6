/**
 * Questions about particular observations, which both need the observations (the scenarios' samples are
 * required): root cause ("why is latency high for cpu 90, latency 300") and anomaly ("is this unusual: cpu 90,
 * latency 300"; "find anomalies" alone answers a 422 asking for the rows).
 */
import type { AnomalyScenario, RootCauseScenario } from '../../../engine/inference/scenario.js';
import { describeRow } from '../describe.js';
import { exampleVariables, unknownVariable, unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { assertNumbersClaimed, readSamples } from '../samples.js';
import { ANOMALY_WORDS, EVENT_VERBS, HIGH_LOW_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

/** The 422 of a root cause question without rows, with an example in the twin's own variables. */
function samplesNeeded(r: QueryReader, target: string): Error {
  const other = r.context.variables.find((v) => v.type === 'continuous' && v.name !== target)?.name ?? 'x';
  return unmappable(`Root cause analysis needs the observed values to diagnose; give them in the query, e.g. "why is ${target} high for ${other} 90, ${target} 300"`);
}

export function parseRootCause(r: QueryReader): Parsed<RootCauseScenario> | null {
  const trigger = findTrigger(r);
  if (trigger === null) return null;
  const named = r.variableAt(trigger.slot);
  if (named === null) {
    const unknown = r.contentAfter(trigger.slot);
    if (trigger.strong && unknown !== null) throw unknownVariable(unknown.phrase, r.names);
    if (!trigger.strong) return null;
    const { cause, effect } = exampleVariables(r.context);
    throw unmappable(`Say which variable to find the root cause of, e.g. "root cause of ${effect} for ${cause} 90, ${effect} 300"`);
  }
  if (trigger.needsState && !r.is(r.skip(named.next, new Set(['so', 'too', 'unusually', 'very'])), HIGH_LOW_WORDS) && !r.is(named.next, EVENT_VERBS)) return null;
  r.consume(trigger.start, named.next);
  const samples = readSamples(r);
  if (samples.length === 0) {
    if (!trigger.strong) return null;
    throw samplesNeeded(r, named.variable.name);
  }
  assertNumbersClaimed(r);
  const targetVariable = named.variable.name;
  return {
    scenario: { type: 'root_cause_analysis', targetVariable, samples },
    interpretation: `Find the root causes of ${targetVariable} in ${samples.map(describeRow).join('; ')}.`,
  };
}

export function parseAnomaly(r: QueryReader): Parsed<AnomalyScenario> | null {
  const at = r.tokens.findIndex((_, i) => r.is(i, ANOMALY_WORDS));
  if (at === -1) return null;
  r.consume(at, at + 1);
  const autoRca = r.tokens.some((_, i) => (r.is(i, 'root') && r.is(i + 1, ['cause', 'causes'])) || r.is(i, ['why', 'explain', 'diagnose']));
  const samples = readSamples(r);
  assertNumbersClaimed(r);
  if (samples.length === 0) {
    // A scan needs rows (the scenario's samples are required): say how to give them.
    const [first, second] = r.context.variables.filter((v) => v.type === 'continuous').map((v) => v.name);
    const example = first === undefined ? '' : `, e.g. "is this unusual: ${first} 90${second === undefined ? '' : `, ${second} 300`}"`;
    throw unmappable(`An anomaly check needs the observations to scan; give their values in the query${example}`);
  }
  const scenario: AnomalyScenario = { type: 'anomaly_detection', samples };
  if (autoRca) scenario.autoRca = true;
  return { scenario, interpretation: `Check ${samples.map(describeRow).join('; ')} for anomalies${autoRca ? ', with the root causes of any found' : ''}.` };
}

/**
 * Where the diagnosed variable is named. Strong triggers ("root cause of", "diagnose", "why is X high") make this
 * a root cause question even without rows (answered with a 422); "why did X spike" only when rows are given.
 */
export function findTrigger(r: QueryReader): { start: number; slot: number; strong: boolean; needsState: boolean } | null {
  for (let i = 0; i < r.length; i++) {
    const rootCause = r.phrase(i, 'root cause') !== -1 ? i + 2 : r.phrase(i, 'root causes') !== -1 ? i + 2 : -1;
    if (rootCause !== -1) return { start: i, slot: r.skip(rootCause, new Set(['of', 'for', 'behind', 'in', 'the'])), strong: true, needsState: false };
    if (r.is(i, ['diagnose', 'diagnosis'])) return { start: i, slot: r.skip(i + 1, new Set(['of', 'the', 'why'])), strong: true, needsState: false };
    if (r.is(i, 'what') && r.is(i + 1, ['caused', 'causing'])) return { start: i, slot: i + 2, strong: false, needsState: false };
    if (r.is(i, 'what') && r.is(i + 1, 'is') && r.is(i + 2, 'causing')) return { start: i, slot: i + 3, strong: false, needsState: false };
    if (r.is(i, 'why') && r.is(i + 1, ['is', 'are', 'was', 'were']) && highLowFollows(r, i + 2)) return { start: i, slot: i + 2, strong: true, needsState: true };
    if (r.is(i, 'why') && r.is(i + 1, ['did', 'has', 'have', 'does'])) return { start: i, slot: i + 2, strong: false, needsState: true };
  }
  return null;
}

/** "why is latency high", "why is the p95 latency so high": a state word after the subject (known or not). */
function highLowFollows(r: QueryReader, at: number): boolean {
  for (let i = at; i < Math.min(r.length, at + 6); i++) if (r.is(i, HIGH_LOW_WORDS)) return true;
  return false;
}

/**
 * Questions on a panel: a static (temporal) family's engine run with each selected environment's mechanisms
 * (model.ts `environmentModel`; on a temporal panel its mechanisms and history, temporal.ts), and the answers
 * combined over the environments weighted by their rows (steps) — the answer for a unit drawn from the selected
 * environments' population. Per-environment answers are kept whole under `details.environments`.
 */
import type { FamilyEngine, FamilyOutcome, InferenceContext, ResultRecord } from '../inference/outcome.js';
import { normalCritical } from '../inference/uncertainty.js';
import type { TemporalModel } from '../temporal/model.js';
import type { CbnModel } from '../types.js';
import { environmentModel, type PanelModel } from './model.js';
import { type TemporalPanelModel, environmentTemporalModel, isTemporalPanelModel } from './temporal.js';

/** Per-environment key points kept in the combined summary, at most. */
const KEY_POINTS = 10;

export interface PanelScenario {
  type: string;
  environments?: string[];
  /** Window families on temporal panels: each environment's own records (else `samples`, shared). */
  panelSamples?: Record<string, unknown[]>;
}

/** One environment's model: a static panel's network, or a temporal panel's temporal model. */
function modelOf(model: PanelModel | TemporalPanelModel, key: string): CbnModel | TemporalModel {
  return isTemporalPanelModel(model) ? environmentTemporalModel(model, key) : environmentModel(model, key);
}

/**
 * The panel engine of a static or temporal family: `baseType` is the scenario type the family's engine answers. `artifacts`:
 * the family's records per environment are the run's panel result artifacts (forecast-shaped families: stored
 * apart and exported as csv), so they are not repeated under `details.environments`.
 */
export function perEnvironment<S extends PanelScenario>(engine: FamilyEngine<never, never>, baseType: string, options: { artifacts?: boolean } = {}): FamilyEngine<PanelModel | TemporalPanelModel, S> {
  return {
    async run(model, scenario, context) {
      const { environments: named, panelSamples, ...members } = scenario;
      const keys = named ?? (panelSamples === undefined ? model.environments.map((e) => e.key) : Object.keys(panelSamples));
      const rows = new Map(model.environments.map((e) => [e.key, e.nRows]));
      const total = keys.reduce((s, key) => s + (rows.get(key) ?? 0), 0);
      const weights = keys.map((key) => (total > 0 ? (rows.get(key) ?? 0) / total : 1 / keys.length));
      const outcomes: FamilyOutcome[] = [];
      for (const [i, key] of keys.entries()) {
        const hooks: InferenceContext['hooks'] = {
          progress: (fraction, state) => context.hooks.progress?.((i + fraction) / keys.length, `${key}: ${state}`),
          ...(context.hooks.aborted === undefined ? {} : { aborted: context.hooks.aborted }),
        };
        const own = panelSamples?.[key] === undefined ? {} : { samples: panelSamples[key] };
        outcomes.push(await (engine as FamilyEngine<unknown, unknown>).run(modelOf(model, key), { ...members, ...own, type: baseType }, { ...context, hooks }));
      }
      const sweeps = Object.fromEntries(keys.flatMap((key, i) => (outcomes[i]!.sweep === undefined ? [] : [[key, outcomes[i]!.sweep!]])));
      const byWeight = keys.map((key, i) => ({ key, weight: weights[i]!, outcome: outcomes[i]! })).sort((a, b) => b.weight - a.weight);
      return {
        // Answers on different windows describe different observations: they are combined only over one shared window.
        results: panelSamples === undefined ? combineResults(outcomes.map((o) => o.results), weights) : {},
        details: {
          combination: { environments: keys.length, rows: total, weights: Object.fromEntries(keys.map((key, i) => [key, Number(weights[i]!.toFixed(6))])) },
          environments: Object.fromEntries(keys.map((key, i) => [key, { ...(options.artifacts === true ? {} : { results: outcomes[i]!.results }), details: outcomes[i]!.details, summary: outcomes[i]!.summary.summary }])),
        },
        ...(options.artifacts === true ? { panelResults: Object.fromEntries(keys.map((key, i) => [key, outcomes[i]!.results])) } : {}),
        ...(Object.keys(sweeps).length === 0 ? {} : { sweeps }),
        summary: {
          summary: `Answered in ${keys.length} environment${keys.length === 1 ? '' : 's'} (${total} training ${isTemporalPanelModel(model) ? 'steps' : 'rows'}), each with its own mechanisms; ${panelSamples === undefined ? `results combine them weighted by their ${isTemporalPanelModel(model) ? 'steps' : 'rows'}` : 'each on its own window (details.environments)'}.`,
          keyPoints: [
            ...byWeight.slice(0, KEY_POINTS).map(({ key, outcome }) => `${key}: ${outcome.summary.summary}`),
            ...(byWeight.length > KEY_POINTS ? [`... and ${byWeight.length - KEY_POINTS} more environments (details.environments)`] : []),
          ],
        },
      };
    },
  };
}

/**
 * Record by record, the mixture over environments: a continuous prediction's mean and standard deviation of the
 * mixture (bounds from its normal approximation at the record's level), a categorical one's averaged probabilities
 * (the most likely class; bounds averaged). A variable whose records do not align across environments is left out.
 */
export function combineResults(results: ReadonlyArray<Record<string, ResultRecord[]>>, weights: readonly number[]): Record<string, ResultRecord[]> {
  const out: Record<string, ResultRecord[]> = {};
  const first = results[0];
  if (first === undefined) return out;
  for (const [variable, records] of Object.entries(first)) {
    const all = results.map((r) => r[variable]);
    if (all.some((r) => r === undefined || r.length !== records.length)) continue;
    out[variable] = records.map((record, k) => combineRecord(all.map((r) => r![k]!), weights));
  }
  return out;
}

function combineRecord(records: readonly ResultRecord[], weights: readonly number[]): ResultRecord {
  const head = records[0]!;
  if (head.probabilities !== undefined) {
    const probabilities = head.probabilities.map((_, c) => records.reduce((s, r, i) => s + weights[i]! * (r.probabilities?.[c] ?? 0), 0));
    const best = probabilities.indexOf(Math.max(...probabilities));
    const bound = (pick: (r: ResultRecord) => ResultRecord['lowerBound']) =>
      Array.isArray(pick(head)) ? (pick(head) as number[]).map((_, c) => records.reduce((s, r, i) => s + weights[i]! * ((pick(r) as number[] | null)?.[c] ?? 0), 0)) : null;
    return { ...head, prediction: head.categories?.[best] ?? head.prediction, probabilities, lowerBound: bound((r) => r.lowerBound), upperBound: bound((r) => r.upperBound) };
  }
  if (records.some((r) => typeof r.prediction !== 'number')) return { ...head, prediction: null, std: null, lowerBound: null, upperBound: null };
  const mean = records.reduce((s, r, i) => s + weights[i]! * (r.prediction as number), 0);
  const second = records.reduce((s, r, i) => s + weights[i]! * ((r.std ?? 0) ** 2 + (r.prediction as number) ** 2), 0);
  const std = Math.sqrt(Math.max(0, second - mean * mean));
  const z = normalCritical(head.confidenceLevel);
  return { ...head, prediction: mean, std, lowerBound: mean - z * std, upperBound: mean + z * std };
}

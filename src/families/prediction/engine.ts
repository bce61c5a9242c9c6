import { runPrediction } from '../../engine/inference/prediction.js';
import type { PredictionScenario } from '../../engine/inference/scenario.js';
import type { FamilyEngine, FamilyOutcome, InferenceContext, ResultRecord } from '../../engine/inference/outcome.js';
import { rowEnvironment } from '../../engine/panel/keys.js';
import { environmentModel, isPanelModel, type PanelModel } from '../../engine/panel/model.js';
import { perEnvironment } from '../../engine/panel/questions.js';
import { namesEnvironment, recordsByEnvironment, routedNetwork, routeRows } from '../../engine/panel/routing.js';
import type { CbnModel, Frame } from '../../engine/types.js';
import { selectRows } from '../../engine/frame.js';

const perPlace = perEnvironment<PredictionScenario>({ run: runPrediction } as FamilyEngine<CbnModel, never>, 'prediction', { artifacts: true });

/**
 * A static twin's network; on a panel, each record by its own environment's mechanisms when the records name their
 * environment (the environment columns; validated at submit), else every environment asked and their combination.
 */
export default {
  run: (model, scenario, context) => {
    if (!isPanelModel(model)) return runPrediction(model, scenario, context);
    if (context.rows !== undefined) return byRowEnvironment(model, scenario, context.rows, context);
    const first = scenario.sample?.[0];
    const routed = first !== undefined && model.environmentColumns.length > 0 && namesEnvironment(first, model.environmentColumns);
    return routed ? byRecord(model, scenario, context) : perPlace.run(model, scenario, context);
  },
} satisfies FamilyEngine<CbnModel | PanelModel, PredictionScenario>;

/**
 * Records grouped by the environment they name, each group predicted by that environment's network; results in the
 * records' order (each record keeps its `row`), and each environment's records as the run's panel artifacts.
 */
async function byRecord(model: PanelModel, scenario: PredictionScenario, context: InferenceContext): Promise<FamilyOutcome> {
  const sample = scenario.sample!;
  const keys = sample.map((row) => rowEnvironment(row, model.environmentColumns));
  const groups = recordsByEnvironment(sample, model.environmentColumns);
  const results: Record<string, ResultRecord[]> = {};
  const panelResults: Record<string, Record<string, ResultRecord[]>> = {};
  const environments: Record<string, { rows: number; summary: string }> = {};
  let done = 0;
  for (const [key, rows] of groups) {
    const own = rows.map((row) => Object.fromEntries(Object.entries(sample[row]!).filter(([name]) => !model.environmentColumns.includes(name))));
    const hooks: InferenceContext['hooks'] = {
      progress: (fraction, state) => context.hooks.progress?.((done + fraction * rows.length) / sample.length, `${key}: ${state}`),
      ...(context.hooks.aborted === undefined ? {} : { aborted: context.hooks.aborted }),
    };
    const outcome = await runPrediction(environmentModel(model, key), { ...scenario, sample: own }, { ...context, hooks });
    panelResults[key] = {};
    for (const [variable, records] of Object.entries(outcome.results)) {
      const placed = records.map((record, i) => ({ ...record, row: rows[i]! }));
      panelResults[key][variable] = placed;
      results[variable] ??= new Array<ResultRecord>(sample.length);
      for (const record of placed) results[variable][record.row] = record;
    }
    environments[key] = { rows: rows.length, summary: outcome.summary.summary };
    done += rows.length;
  }
  return {
    results,
    details: { routing: 'byRecord', recordEnvironments: keys, environments },
    panelResults,
    summary: {
      summary: `Predicted ${sample.length} record${sample.length === 1 ? '' : 's'}, each with the mechanisms of the environment it names (${groups.size} environment${groups.size === 1 ? '' : 's'}).`,
      keyPoints: Object.entries(environments).slice(0, 5).map(([key, e]) => `${key} (${e.rows} record${e.rows === 1 ? '' : 's'}): ${e.summary}`),
    },
  };
}

/**
 * A batch's rows on a panel (read by reference): each row predicted by the mechanisms of the environment its
 * ROW_ENVIRONMENT code names, a row naming no environment of the twin by the pooled mechanisms; results in the rows'
 * order.
 */
async function byRowEnvironment(model: PanelModel, scenario: PredictionScenario, frame: Frame, context: InferenceContext): Promise<FamilyOutcome> {
  const { variables, groups } = routeRows(model, frame);
  const results: Record<string, ResultRecord[]> = {};
  let method: unknown;
  for (const [code, rows] of groups) {
    const outcome = await runPrediction(routedNetwork(model, code), scenario, { ...context, rows: selectRows(variables, rows) });
    method ??= outcome.details.method;
    for (const [variable, records] of Object.entries(outcome.results)) {
      results[variable] ??= new Array<ResultRecord>(frame.nRows);
      records.forEach((record, i) => (results[variable]![rows[i]!] = record));
    }
  }
  const unknown = groups.get(-1)?.length ?? 0;
  return {
    results,
    details: { method, routing: 'byRecord', environments: [...groups.keys()].filter((k) => k >= 0).length, unknownEnvironmentRows: unknown },
    summary: { summary: `Predicted ${frame.nRows} rows, each with the mechanisms of the environment it names.`, keyPoints: [] },
  };
}

/**
 * panel_forecast: each environment's simulated future from the end of its own data (or from an origin), and the
 * combined series. Each environment's records are the run's panel result artifacts; the combined series is, at
 * each timestamp, the aggregate (sum, avg, min, max) over the environments forecasting it, taken path by path over
 * their Monte Carlo paths (environments simulated independently, each with its own noise), so its interval is the
 * aggregate's own, not a combination of the environments' intervals.
 */
import type { FamilyEngine, FamilyOutcome, ResultRecord } from '../inference/outcome.js';
import { DEFAULT_PATHS, futureFrom, originOf, stepRecord } from '../temporal/forecast.js';
import { timeOfStep, timeText } from '../temporal/model.js';
import type { ForecastScenario } from '../temporal/scenario.js';
import { type TemporalPanelModel, environmentTemporalModel } from './temporal.js';

export type AggregateMode = 'sum' | 'avg' | 'min' | 'max';

export interface PanelForecastScenario extends Omit<ForecastScenario, 'type'> {
  type: 'panel_forecast';
  environments?: string[];
  aggregateMode?: AggregateMode;
}

const STEP_OF: Record<AggregateMode, (acc: number, x: number) => number> = {
  sum: (acc, x) => acc + x,
  avg: (acc, x) => acc + x,
  min: (acc, x) => Math.min(acc, x),
  max: (acc, x) => Math.max(acc, x),
};
const START: Record<AggregateMode, number> = { sum: 0, avg: 0, min: Infinity, max: -Infinity };

export const panelForecast: FamilyEngine<TemporalPanelModel, PanelForecastScenario> = {
  async run(model, scenario, context): Promise<FamilyOutcome> {
    const keys = scenario.environments ?? model.environments.map((e) => e.key);
    const mode = scenario.aggregateMode ?? 'avg';
    const level = scenario.confidenceLevel ?? 0.95;
    const samples = scenario.samples ?? DEFAULT_PATHS;
    const targets = scenario.targetVars ?? model.variables.map((v) => v.name);
    const numeric = targets.filter((name) => model.variables.find((v) => v.name === name)?.kind === 'continuous');
    const combined = new Map<number, { values: Record<string, Float64Array>; environments: number }>();
    const panelResults: Record<string, Record<string, ResultRecord[]>> = {};
    const environments: Record<string, unknown> = {};
    for (const [e, key] of keys.entries()) {
      context.hooks.progress?.(e / keys.length, `${key}: simulating the future`);
      if (context.hooks.aborted?.() === true) break;
      const own = environmentTemporalModel(model, key);
      const origin = originOf(own, scenario.originTimestamp);
      const paths = futureFrom(own, origin, scenario.forecastH, { samples, seed: context.seed + e });
      const times = Array.from({ length: scenario.forecastH }, (_, h) => timeOfStep(own, origin.report + h));
      panelResults[key] = Object.fromEntries(targets.map((name) => [name, paths[name]!.map((values, h) => stepRecord(own, name, values, times[h]!, level))]));
      times.forEach((t, h) => {
        const slot = combined.get(t) ?? { values: Object.fromEntries(numeric.map((name) => [name, new Float64Array(samples).fill(START[mode])])), environments: 0 };
        for (const name of numeric) {
          const into = slot.values[name]!;
          const path = paths[name]![h]!;
          for (let p = 0; p < samples; p++) into[p] = STEP_OF[mode](into[p]!, path[p]!);
        }
        slot.environments++;
        combined.set(t, slot);
      });
      const first = targets[0]!;
      const end = panelResults[key]![first]!.at(-1)!;
      environments[key] = {
        origin: { timestamp: times[0]!, step: origin.report, fromEndOfData: scenario.originTimestamp === undefined },
        summary: `${first} ${typeof end.prediction === 'number' ? Number(end.prediction.toPrecision(4)) : String(end.prediction)} by ${timeText(own, times.at(-1)!)}`,
      };
    }
    const timestamps = [...combined.keys()].sort((a, b) => a - b);
    const reference = environmentTemporalModel(model, keys[0]!);
    const results: Record<string, ResultRecord[]> = {};
    for (const name of numeric) {
      results[name] = timestamps.map((t) => {
        const slot = combined.get(t)!;
        const values = mode === 'avg' ? slot.values[name]!.map((v) => v / slot.environments) : slot.values[name]!;
        return stepRecord(reference, name, values, t, level);
      });
    }
    const counts = timestamps.map((t) => ({ timestamp: t, environments: combined.get(t)!.environments }));
    const first = numeric[0];
    const last = first === undefined ? undefined : results[first]!.at(-1);
    const describe = (r: ResultRecord) => `${Number((r.prediction as number).toPrecision(4))} (${Number((r.lowerBound as number).toPrecision(4))} to ${Number((r.upperBound as number).toPrecision(4))})`;
    return {
      results,
      panelResults,
      details: {
        aggregateMode: mode,
        horizon: scenario.forecastH,
        samples,
        combined: Object.fromEntries(numeric.map((name) => [name, counts])),
        environments,
      },
      summary: {
        summary: `Forecast of ${targets.length} variable${targets.length === 1 ? '' : 's'} over ${scenario.forecastH} step${scenario.forecastH === 1 ? '' : 's'} in ${keys.length} environments`
          + (last === undefined ? '.' : `; the ${mode} of ${first} over them reaches ${describe(last)} by ${timeText(reference, timestamps.at(-1)!)} (${Math.round(level * 100)}% interval).`),
        keyPoints: keys.slice(0, 10).map((key) => `${key}: ${(environments[key] as { summary: string }).summary}`),
      },
    };
  },
};

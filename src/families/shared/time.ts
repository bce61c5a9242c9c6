/** Rules of the temporal families: times must fall where the version can forecast from. */
import { MAX_SIMULATED_VALUES } from '../../engine/temporal/future.js';
import type { QuestionTime, ScenarioError } from '../family.js';

/** A time (origin or intervention start) before the history the version keeps is refused, saying from when. */
export function timeRule(time: number | undefined, context: QuestionTime | undefined, location: string): ScenarioError[] {
  if (time === undefined || context === undefined || time >= context.earliestOrigin) return [];
  const shown = (t: number) => (context.axis === 'time' ? new Date(t).toISOString() : String(t));
  return [{ location, message: `${shown(time)} is before the history this version keeps for forecasting; use ${shown(context.earliestOrigin)} or later (the data run ${shown(context.first)} to ${shown(context.last)})` }];
}

/** Paths x steps x variables within the budget, or a 422 saying what to lower. */
export function simulationBudget(samples: number | undefined, steps: number, variables: number, defaultSamples: number): ScenarioError[] {
  const paths = samples ?? defaultSamples;
  const values = paths * steps * variables;
  if (values <= MAX_SIMULATED_VALUES) return [];
  return [{ location: samples === undefined ? '/forecastH' : '/samples', message: `${paths} paths x ${steps} steps x ${variables} variables is ${values} simulated values; at most ${MAX_SIMULATED_VALUES}: lower samples or forecastH` }];
}

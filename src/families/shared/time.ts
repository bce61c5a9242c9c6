/** Rules of the temporal families: times must fall where the version can forecast from. */
import type { QuestionTime, ScenarioError } from '../family.js';

/** A time (origin or intervention start) before the history the version keeps is refused, saying from when. */
export function timeRule(time: number | undefined, context: QuestionTime | undefined, location: string): ScenarioError[] {
  if (time === undefined || context === undefined || time >= context.earliestOrigin) return [];
  const shown = (t: number) => (context.axis === 'time' ? new Date(t).toISOString() : String(t));
  return [{ location, message: `${shown(time)} is before the history this version keeps for forecasting; use ${shown(context.earliestOrigin)} or later (the data run ${shown(context.first)} to ${shown(context.last)})` }];
}

/**
 * Forecasts on a temporal twin: "forecast sales for the next 14 days", "what will visits be over the next 3
 * weeks", "predict sales for 10 steps". The horizon is the number before a time unit (converted to the twin's
 * steps) or before "steps"/"periods"; the variables named are the ones forecast (default: every variable).
 */
import type { ForecastScenario } from '../../../engine/temporal/scenario.js';
import { unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { readConfidence } from '../values.js';
import { PREDICT_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

const DAY = 86_400_000;
/** A unit word's length in milliseconds (months and years by their mean length). */
const UNITS: Record<string, number> = {
  second: 1000, minute: 60_000, hour: 3_600_000, day: DAY, week: 7 * DAY, month: 30.436875 * DAY, quarter: 91.310625 * DAY, year: 365.2425 * DAY,
};
const STEP_WORDS = new Set(['step', 'steps', 'period', 'periods']);
const FUTURE_WORDS = new Set([...PREDICT_WORDS, 'will', 'next', 'coming', 'ahead', 'outlook']);
const DEFAULT_STEPS = 10;
const MAX_STEPS = 1000;

export function parseForecast(r: QueryReader): Parsed<ForecastScenario> | null {
  if (!r.tokens.some((_, i) => r.is(i, FUTURE_WORDS))) return null;
  const confidenceLevel = readConfidence(r);
  let forecastH = DEFAULT_STEPS;
  let said = `${DEFAULT_STEPS} steps (the default)`;
  for (let i = 0; i < r.length; i++) {
    const number = r.numberAt(i);
    if (number === null || r.isConsumed(i)) continue;
    const word = r.lower(number.next).replace(/s$/, '');
    const step = r.context.stepMs;
    if (STEP_WORDS.has(r.lower(number.next))) forecastH = Math.round(number.value);
    else if (UNITS[word] !== undefined && step !== undefined) forecastH = Math.round((number.value * UNITS[word]!) / step);
    else continue;
    said = `${number.value} ${r.lower(number.next)}`;
    r.consume(i, number.next + 1);
    break;
  }
  if (!(forecastH >= 1 && forecastH <= MAX_STEPS)) throw unmappable(`a forecast runs 1 to ${MAX_STEPS} steps of this twin; "${said}" is ${forecastH}`);
  const named = r.freeVariables().map((v) => v.name);
  const targetVars = named.length > 0 ? named : r.context.variables.map((v) => v.name);
  const scenario: ForecastScenario = { type: 'forecast', forecastH, targetVars };
  if (confidenceLevel !== undefined) scenario.confidenceLevel = confidenceLevel;
  return { scenario, interpretation: `Forecast ${targetVars.join(', ')} over the next ${forecastH} step${forecastH === 1 ? '' : 's'} (${said}) from the end of the data.` };
}

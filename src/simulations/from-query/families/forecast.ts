/**
 * Forecasts on a temporal twin: "forecast sales for the next 14 days", "what will visits be over the next 3
 * weeks", "predict sales for 10 steps". The horizon is the number before a time unit (converted to the twin's
 * steps) or before "steps"/"periods"; the variables named are the ones forecast (default: every variable).
 */
import type { ForecastScenario } from '../../../engine/temporal/scenario.js';
import { unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { readSpan } from '../steps.js';
import { readConfidence } from '../values.js';
import { PREDICT_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

const FUTURE_WORDS = new Set([...PREDICT_WORDS, 'will', 'next', 'coming', 'ahead', 'outlook']);
const DEFAULT_STEPS = 10;
const MAX_STEPS = 1000;

export function parseForecast(r: QueryReader): Parsed<ForecastScenario> | null {
  if (!r.tokens.some((_, i) => r.is(i, FUTURE_WORDS))) return null;
  const confidenceLevel = readConfidence(r);
  let forecastH = DEFAULT_STEPS;
  let said = `${DEFAULT_STEPS} steps (the default)`;
  const span = readSpan(r);
  if (span !== null) ({ steps: forecastH, said } = span);
  if (!(forecastH >= 1 && forecastH <= MAX_STEPS)) throw unmappable(`a forecast runs 1 to ${MAX_STEPS} steps of this twin; "${said}" is ${forecastH}`);
  const named = r.freeVariables().map((v) => v.name);
  const targetVars = named.length > 0 ? named : r.context.variables.map((v) => v.name);
  const scenario: ForecastScenario = { type: 'forecast', forecastH, targetVars };
  if (confidenceLevel !== undefined) scenario.confidenceLevel = confidenceLevel;
  return { scenario, interpretation: `Forecast ${targetVars.join(', ')} over the next ${forecastH} step${forecastH === 1 ? '' : 's'} (${said}) from the end of the data.` };
}

/**
 * Predictions: "predict revenue for price 12 and region North". The values given are the sample (one row, or
 * several separated by ";"); the variables named without a value are the ones predicted. Without the word
 * "predict" a query still reads as one when it gives values and names a variable to read off ("revenue for price
 * 12?").
 */
import type { PredictionScenario } from '../../../engine/inference/scenario.js';
import { describeRow } from '../describe.js';
import { exampleVariables, unknownVariable, unmappable } from '../problems.js';
import type { QueryReader } from '../reader.js';
import { assertNumbersClaimed, readSamples } from '../samples.js';
import { readConfidence } from '../values.js';
import { DETERMINERS, PREDICT_WORDS } from '../vocabulary.js';
import type { Parsed } from './parsed.js';

/** Words between "predict" and what is predicted ("predict the expected value of revenue"). */
const PREDICTED_FILLER = new Set([...DETERMINERS, 'what', 'value', 'values', 'of', 'will', 'be', 'is', 'future', 'next', 'likely', 'probable']);

export function parsePrediction(r: QueryReader, options: { explicit: boolean }): Parsed<PredictionScenario> | null {
  const keyword = r.tokens.findIndex((_, i) => r.is(i, PREDICT_WORDS));
  if (options.explicit !== keyword >= 0) return null;
  const confidenceLevel = readConfidence(r);
  if (keyword >= 0) {
    const slot = r.skip(keyword + 1, PREDICTED_FILLER);
    const unknown = r.variableAt(slot) === null ? r.contentAfter(slot) : null;
    if (unknown !== null) throw unknownVariable(unknown.phrase, r.names);
  }
  const rows = readSamples(r);
  assertNumbersClaimed(r);
  const given = new Set(rows.flatMap((row) => Object.keys(row)));
  let targetVars = r.freeVariables().map((v) => v.name).filter((name) => !given.has(name));
  if (!options.explicit && (rows.length === 0 || targetVars.length === 0)) return null;
  if (targetVars.length === 0) targetVars = r.context.variables.filter((v) => v.role === 'target' && !given.has(v.name)).map((v) => v.name);
  if (targetVars.length === 0) {
    const { cause, effect } = exampleVariables(r.context);
    throw unmappable(`Say which variable to predict, e.g. "predict ${effect} for ${cause} 12"`);
  }
  const scenario: PredictionScenario = { type: 'prediction', sample: rows.length === 0 ? [{}] : rows, targetVars };
  if (confidenceLevel !== undefined) scenario.confidenceLevel = confidenceLevel;
  const givenText = rows.length === 0 ? 'with nothing observed (the population average)' : `given ${rows.map(describeRow).join('; ')}`;
  return { scenario, interpretation: `Predict ${targetVars.join(', ')} ${givenText}.` };
}

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AppError } from '../../../src/errors.js';
import { assertFitsTwin } from '../../../src/simulations/from-query/check.js';
import { findMentions } from '../../../src/simulations/from-query/mentions.js';
import { QueryReader } from '../../../src/simulations/from-query/reader.js';
import { nameKeys, tokenize } from '../../../src/simulations/from-query/tokenize.js';
import { lettered, letteredWith, operations, retail, retailWithA } from './from-query-fixtures.js';

const numbers = (text: string) => tokenize(text).filter((t) => t.kind === 'number').map((t) => [t.value, t.unit]);

test('numbers fold in their scale, currency and unit', () => {
  assert.deepEqual(numbers('2k $1,500 €3.5m 1.2bn 2 thousand 30 dollars'), [[2000, null], [1500, null], [3_500_000, null], [1_200_000_000, null], [2000, null], [30, null]]);
  assert.deepEqual(numbers('10% 10 % 10 percent 10 per cent 10 percentage points 10 points 10pp'), [
    [10, 'percent'], [10, 'percent'], [10, 'percent'], [10, 'percent'], [10, 'points'], [10, 'points'], [10, 'points'],
  ]);
  assert.deepEqual(numbers('tenure -2, = -0.5 and .25'), [[-2, null], [-0.5, null], [0.25, null]]);
});

test('a dash between numbers or inside a word is not a minus sign', () => {
  assert.deepEqual(numbers('10-20'), [[10, null], [20, null]]);
  assert.deepEqual(tokenize('base-price a-5').map((t) => t.lower), ['base', 'price', 'a', '-', '5']);
  assert.deepEqual(numbers('5th 12'), [[12, null]]);
});

test('names split on snake_case, kebab-case, camelCase and spaces, and compare in the singular', () => {
  assert.deepEqual(nameKeys('avgLatencyMs'), ['avg', 'latency', 'ms']);
  assert.deepEqual(nameKeys('CPUUsage'), ['cpu', 'usage']);
  assert.deepEqual(nameKeys('error-rate'), ['error', 'rate']);
  assert.deepEqual(nameKeys('total sales'), ['total', 'sale']);
  assert.deepEqual(nameKeys('Categories_classes_prices_status'), ['category', 'class', 'price', 'status']);
});

function mentionsOf(query: string, names: string[]) {
  return findMentions(query, tokenize(query), names).map((m) => [m.phrase, m.candidates]);
}

const NAMES = operations.variables.map((v) => v.name);

test('a variable is matched by its words, a unique part of them, or a synonym', () => {
  assert.deepEqual(mentionsOf('the Avg Latency MS and cpu', NAMES), [['Avg Latency MS', ['avgLatencyMs']], ['cpu', ['CPUUsage']]]);
  assert.deepEqual(mentionsOf('latency', NAMES), [['latency', ['avgLatencyMs']]]);
  assert.deepEqual(mentionsOf('operating expenses and revenue', NAMES), [['operating expenses', ['operating_expense']], ['revenue', ['total sales']]]);
  // "rate" alone is a qualifier, not enough to name error-rate; "error" is.
  assert.deepEqual(mentionsOf('the rate', NAMES), []);
  assert.deepEqual(mentionsOf('errors', NAMES), [['errors', ['error-rate']]]);
});

test('the longest phrase wins, an exact name beats a part of another, and a tie is kept as ambiguous', () => {
  assert.deepEqual(mentionsOf('competitor price', NAMES), [['competitor price', ['competitor_price']]]);
  assert.deepEqual(mentionsOf('price', NAMES), [['price', ['base_price', 'competitor_price']]]);
  assert.deepEqual(mentionsOf('price', [...NAMES, 'price']), [['price', ['price']]]);
  // Through a synonym ranks below the name's own words: with both revenue and sales, "sales" is sales.
  assert.deepEqual(mentionsOf('sales', ['revenue', 'sales']), [['sales', ['sales']]]);
});

/** The mentions a query reader keeps: each as [phrase, token index]. */
const kept = (query: string, context = lettered) => new QueryReader(query, context).mentions.map((m) => [m.phrase, m.start]);

test('a variable named by a grammar word is the variable where it stands alone, and English before a noun phrase', () => {
  assert.deepEqual(kept('what if a rises 10%'), [['a', 2]]);
  assert.deepEqual(kept('predict c for a 12, b x'), [['c', 1], ['a', 3], ['b', 6]]);
  assert.deepEqual(kept('maximise a'), [['a', 1]]);
  assert.deepEqual(kept('minimise c with a below 5 keeping b fixed'), [['c', 1], ['a', 3], ['b', 7]]);
  // The article: before a noun of the parser's, another variable, another variable's category or an amount of change.
  assert.deepEqual(kept('predict c for a customer with a 12'), [['c', 1], ['a', 6]]);
  assert.deepEqual(kept('what is the effect of a 10% increase in a on c'), [['a', 9], ['c', 11]]);
  assert.deepEqual(kept('lower the chance of a premium plan by 5 points', retailWithA), [['plan', 6]]);
  assert.deepEqual(kept('what if a North customer sees a price rise of 10%', retailWithA), [['price', 7]]);
  // The asker, as the subject of a verb acting on a variable; but a variable before a verb that only describes it.
  assert.deepEqual(kept('how can i increase c', letteredWith('i')), [['c', 4]]);
  assert.deepEqual(kept('how does i affect c', letteredWith('i')), [['i', 2], ['c', 4]]);
  assert.deepEqual(kept('what happens to c if to rises by 10%', letteredWith('to')), [['c', 3], ['to', 5]]);
  // A twin without such a variable has no mention to keep or drop: the words stay grammar.
  assert.deepEqual(kept('what if a rises 10%', retail), []);
});

const rejectsScenario = (run: () => void, message: RegExp) =>
  assert.throws(run, (error: unknown) => error instanceof AppError && error.status === 422 && message.test(error.message));

test('the final check refuses scenarios that do not fit the twin', () => {
  rejectsScenario(() => assertFitsTwin({ type: 'intervention', interventions: [{ variable: 'region', valueSpec: { type: 'set_value', value: 'West' } }] }, retail), /^region has no category "West"/);
  rejectsScenario(() => assertFitsTwin({ type: 'intervention', interventions: [{ variable: 'price', valueSpec: { type: 'set_value', value: 'high' } }] }, retail), /^price is continuous/);
  rejectsScenario(
    () =>
      assertFitsTwin(
        {
          type: 'intervention',
          interventions: [
            { variable: 'price', valueSpec: { type: 'relative_change', mode: 'percentage', value: 5 } },
            { variable: 'price', valueSpec: { type: 'set_value', value: 3 } },
          ],
        },
        retail,
      ),
    /^price is changed twice for the same rows/,
  );
  rejectsScenario(() => assertFitsTwin({ type: 'prediction', sample: [{ price: 1 }], targetVars: ['price'] }, retail), /^price is both given and predicted/);
  rejectsScenario(() => assertFitsTwin({ type: 'explanation', explanationMode: 'discovery', effectVariable: 'profit' }, retail), /^No variable of this twin matches "profit"/);
  assert.doesNotThrow(() => assertFitsTwin({ type: 'explanation', explanationMode: 'directional', causeVariable: 'price', effectVariable: 'churn' }, retail));
});

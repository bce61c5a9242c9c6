import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StaticScenario } from '../../../src/engine/inference/scenario.js';
import type { CbnModel, NodeModel } from '../../../src/engine/types.js';
import { AppError } from '../../../src/errors.js';
import { scenarioFromQuery, type QueryContext } from '../../../src/simulations/from-query/index.js';
import { queryReaders } from '../../../src/families/registry.js';
import { scenarioFamily, validateScenario } from '../../../src/simulations/validate.js';
import staticKind from '../../../src/twins/kinds/static/index.js';

const STATIC_READERS = queryReaders('static');
/** The validation a submit applies to a static twin's scenario. */
const validateStaticScenario = (scenario: Record<string, unknown>, model: CbnModel) => validateScenario(scenarioFamily(scenario, 'static'), scenario, { twinType: 'static', ...staticKind.questionContext(model) });
import { lettered, letteredWith, operations, retail, retailWithA } from './from-query-fixtures.js';

type Case = [query: string, expected: StaticScenario];

/** The twin as the submit validator reads a version's model: names, kinds and categories (nothing else is read). */
function modelOf(context: QueryContext): CbnModel {
  const nodes = context.variables.map((v) => ({ name: v.name, kind: v.type, categories: v.categories ?? [] }) as unknown as NodeModel);
  return { nodes };
}

const pct = (value: number) => ({ type: 'relative_change', mode: 'percentage', value }) as const;
const abs = (value: number) => ({ type: 'relative_change', mode: 'absolute', value }) as const;
const set = (value: number | string) => ({ type: 'set_value', value }) as const;

/** Every retail query of the cases, to read again on a twin that also has a variable named `a`. */
const retailQueries: string[] = [];

/** Each query answers exactly the expected scenario, and POST /simulations' validator accepts it as it is. */
function expectCases(family: string, context: QueryContext, cases: Case[]): void {
  for (const [query, expected] of cases) {
    if (context === retail) retailQueries.push(query);
    test(`${family}: "${query}"`, () => {
      const { scenario } = scenarioFromQuery(query, context, STATIC_READERS);
      assert.deepEqual(scenario, expected);
      assert.deepEqual(validateStaticScenario(structuredClone(scenario) as unknown as Record<string, unknown>, modelOf(context)), scenario);
    });
  }
}

expectCases('intervention', retail, [
  ['what happens to churn if price rises 10%?', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(10) }], targetVars: ['churn'] }],
  ['what if discount is set to 5', { type: 'intervention', interventions: [{ variable: 'discount', valueSpec: set(5) }] }],
  ['if we increase marketing spend by 2000', { type: 'intervention', interventions: [{ variable: 'marketing_spend', valueSpec: abs(2000) }] }],
  ['set region to North', { type: 'intervention', interventions: [{ variable: 'region', valueSpec: set('North') }] }],
  [
    'raise the probability of plan = premium by 10 points',
    { type: 'intervention', interventions: [{ variable: 'plan', valueSpec: { type: 'adjust_probability', category: 'premium', delta: 10 } }] },
  ],
  [
    'lower the chance of a premium plan by 5 percentage points',
    { type: 'intervention', interventions: [{ variable: 'plan', valueSpec: { type: 'adjust_probability', category: 'premium', delta: -5 } }] },
  ],
  [
    'set the probability of plan premium to 30%',
    { type: 'intervention', interventions: [{ variable: 'plan', valueSpec: { type: 'set_probability', category: 'premium', probability: 0.3 } }] },
  ],
  ['what if price ranges from 10 to 20', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: { type: 'range', from: 10, to: 20, steps: 10 } }] }],
  [
    'vary price between 10 and 30 in 5 steps and show revenue',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: { type: 'range', from: 10, to: 30, steps: 5 } }], targetVars: ['revenue'] },
  ],
  ['what if price doubles', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(100) }] }],
  ['if prices halve, what happens to revenue and churn?', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(-50) }], targetVars: ['revenue', 'churn'] }],
  ['what if the discount drops by 2', { type: 'intervention', interventions: [{ variable: 'discount', valueSpec: abs(-2) }] }],
  ['what if price falls by 10 percent', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(-10) }] }],
  ['what if price changes by -5%', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(-5) }] }],
  [
    'what if price increases 10% and discount decreases 2',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(10) }, { variable: 'discount', valueSpec: abs(-2) }] },
  ],
  ['cut marketing spend by $1.5k', { type: 'intervention', interventions: [{ variable: 'marketing_spend', valueSpec: abs(-1500) }] }],
  ['what if marketing spend were 2k higher', { type: 'intervention', interventions: [{ variable: 'marketing_spend', valueSpec: abs(2000) }] }],
  ['what is the effect of a 10% increase in price on churn', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(10) }], targetVars: ['churn'] }],
  ['add 500 to the discount', { type: 'intervention', interventions: [{ variable: 'discount', valueSpec: abs(500) }] }],
  ['what if region were South', { type: 'intervention', interventions: [{ variable: 'region', valueSpec: set('South') }] }],
  ['make region East', { type: 'intervention', interventions: [{ variable: 'region', valueSpec: set('East') }] }],
  ['what if all customers were on the premium plan', { type: 'intervention', interventions: [{ variable: 'plan', valueSpec: set('premium') }] }],
  ['increase price to 12', { type: 'intervention', interventions: [{ variable: 'price', valueSpec: set(12) }] }],
  [
    'what if price and discount rise 10%',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(10) }, { variable: 'discount', valueSpec: pct(10) }] },
  ],
  [
    'what if we cut discount by 2 and raise price by 5% for region North',
    {
      type: 'intervention',
      interventions: [
        { variable: 'discount', valueSpec: abs(-2), conditions: [{ variable: 'region', operator: 'eq', value: 'North' }] },
        { variable: 'price', valueSpec: pct(5), conditions: [{ variable: 'region', operator: 'eq', value: 'North' }] },
      ],
    },
  ],
  [
    'set price to 12 for customers with tenure above 5',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: set(12), conditions: [{ variable: 'tenure', operator: 'gt', value: 5 }] }] },
  ],
  [
    'what happens when we lower price by 10% in the East region',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(-10), conditions: [{ variable: 'region', operator: 'eq', value: 'East' }] }] },
  ],
  [
    'raise price by 5% where region is North or South',
    { type: 'intervention', interventions: [{ variable: 'price', valueSpec: pct(5), conditions: [{ variable: 'region', operator: 'in', value: ['North', 'South'] }] }] },
  ],
  [
    'how would revenue respond if we set discount to 0, at 90% confidence',
    { type: 'intervention', interventions: [{ variable: 'discount', valueSpec: set(0) }], targetVars: ['revenue'], confidenceLevel: 0.9 },
  ],
]);

expectCases('prediction', retail, [
  ['predict revenue for price 12 and region North', { type: 'prediction', sample: [{ price: 12, region: 'North' }], targetVars: ['revenue'] }],
  // Seeing is not doing: in a prediction "price is 12" is an observed value, not a setting.
  ['predict revenue when price is 12', { type: 'prediction', sample: [{ price: 12 }], targetVars: ['revenue'] }],
  ['estimate the revenue if price is 12', { type: 'prediction', sample: [{ price: 12 }], targetVars: ['revenue'] }],
  ['forecast churn and revenue for price = 12, tenure: 3; price = 15, tenure: 3', { type: 'prediction', sample: [{ price: 12, tenure: 3 }, { price: 15, tenure: 3 }], targetVars: ['churn', 'revenue'] }],
  ['what is the expected churn for a North customer with a price of $30', { type: 'prediction', sample: [{ region: 'North', price: 30 }], targetVars: ['churn'] }],
  ['predict revenue with 95% confidence for price 12', { type: 'prediction', sample: [{ price: 12 }], targetVars: ['revenue'], confidenceLevel: 0.95 }],
  ['predict for price 12', { type: 'prediction', sample: [{ price: 12 }], targetVars: ['revenue', 'cost'] }],
  ['revenue for price 12 and discount 3?', { type: 'prediction', sample: [{ price: 12, discount: 3 }], targetVars: ['revenue'] }],
]);

expectCases('optimisation', retail, [
  ['how should we set price and discount to maximise revenue', { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'revenue' }], decisionVars: ['price', 'discount'] }],
  // cost's ancestors are discount and marketing_spend, both source-role variables.
  ['minimise cost', { type: 'optimisation', objectives: [{ direction: 'minimise', variable: 'cost' }], decisionVars: ['discount', 'marketing_spend'] }],
  // churn's source-role ancestors, in the twin's order: price, discount, region (through plan) and tenure; plan has no role.
  ['how can we reduce churn?', { type: 'optimisation', objectives: [{ direction: 'minimise', variable: 'churn' }], decisionVars: ['price', 'discount', 'region', 'tenure'] }],
  ['what price gives the highest revenue', { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'revenue' }], decisionVars: ['price'] }],
  [
    'maximize revenue and minimize cost by changing price and marketing spend',
    {
      type: 'optimisation',
      objectives: [{ direction: 'maximise', variable: 'revenue' }, { direction: 'minimise', variable: 'cost' }],
      decisionVars: ['price', 'marketing_spend'],
    },
  ],
  [
    'maximise revenue by setting price and discount, with price between 10 and 20 and discount at most 5, while keeping cost below 1000',
    {
      type: 'optimisation',
      objectives: [{ direction: 'maximise', variable: 'revenue' }],
      decisionVars: ['price', 'discount'],
      variableConstraints: [
        { variable: 'price', type: 'range', minValue: 10, maxValue: 20 },
        { variable: 'discount', type: 'range', maxValue: 5 },
      ],
      metricConstraints: [{ metricName: 'Mean cost', sqlQuery: 'SELECT avg(`cost`) AS value FROM df', constraintType: 'max_value', value: 1000 }],
    },
  ],
  [
    'maximise revenue changing at most 2 variables, keeping tenure fixed',
    {
      type: 'optimisation',
      objectives: [{ direction: 'maximise', variable: 'revenue' }],
      decisionVars: ['price', 'discount', 'marketing_spend', 'region'],
      interventionCountConfig: { maxInterventions: 2 },
    },
  ],
  [
    'minimise churn by changing region and price, with region in North or East and price within 10%',
    {
      type: 'optimisation',
      objectives: [{ direction: 'minimise', variable: 'churn' }],
      decisionVars: ['region', 'price'],
      variableConstraints: [
        { variable: 'region', type: 'set', allowedValues: ['North', 'East'] },
        { variable: 'price', type: 'range', maxChangePercent: 10 },
      ],
    },
  ],
]);

// `a` is also the English article: where a variable goes it is the variable, elsewhere still the article.
expectCases('a twin named a, b, c', lettered, [
  ['what if a rises 10%', { type: 'intervention', interventions: [{ variable: 'a', valueSpec: pct(10) }] }],
  ['what happens to c if a rises by 10%?', { type: 'intervention', interventions: [{ variable: 'a', valueSpec: pct(10) }], targetVars: ['c'] }],
  ['what if b is set to y', { type: 'intervention', interventions: [{ variable: 'b', valueSpec: set('y') }] }],
  ['set a to 5 for b x', { type: 'intervention', interventions: [{ variable: 'a', valueSpec: set(5), conditions: [{ variable: 'b', operator: 'eq', value: 'x' }] }] }],
  ['predict c for a 12', { type: 'prediction', sample: [{ a: 12 }], targetVars: ['c'] }],
  // No roles: the decision variables are the graph's roots upstream of c.
  ['maximise c', { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'c' }], decisionVars: ['a'] }],
  ['what drives c?', { type: 'explanation', explanationMode: 'discovery', effectVariable: 'c' }],
  ['how does a affect c', { type: 'explanation', explanationMode: 'directional', causeVariable: 'a', effectVariable: 'c' }],
  ['what is the effect of a 10% increase in a on c', { type: 'intervention', interventions: [{ variable: 'a', valueSpec: pct(10) }], targetVars: ['c'] }],
  ['predict c for a customer with a 12', { type: 'prediction', sample: [{ a: 12 }], targetVars: ['c'] }],
  ['minimise c with a below 5', { type: 'optimisation', objectives: [{ direction: 'minimise', variable: 'c' }], decisionVars: ['a'], variableConstraints: [{ variable: 'a', type: 'range', maxValue: 5 }] }],
  [
    'what would it take for c to be below 100 for a 12 keeping a fixed',
    { type: 'counterfactual', samples: [{ a: 12 }], targets: [{ variable: 'c', value: 100, matchMode: 'orLess' }], constraints: { a: { type: 'fixed' } } },
  ],
]);

test('a variable named by any grammar word reads as the variable where one goes', () => {
  for (const name of ['i', 'it', 'on', 'in', 'by', 'to', 'or', 'and', 'if', 'is', 'at', 'the', 'this']) {
    const twin = letteredWith(name);
    const read = (query: string) => scenarioFromQuery(query, twin, STATIC_READERS).scenario;
    assert.deepEqual(read(`what if ${name} rises 10%`), { type: 'intervention', interventions: [{ variable: name, valueSpec: pct(10) }] }, name);
    assert.deepEqual(read(`what happens to c if ${name} rises by 10%?`), { type: 'intervention', interventions: [{ variable: name, valueSpec: pct(10) }], targetVars: ['c'] }, name);
    assert.deepEqual(read(`set ${name} to 5`), { type: 'intervention', interventions: [{ variable: name, valueSpec: set(5) }] }, name);
    assert.deepEqual(read(`predict c for ${name} 12`), { type: 'prediction', sample: [{ [name]: 12 }], targetVars: ['c'] }, name);
    // "i" here is the asker, whatever the twin calls its variables.
    assert.deepEqual(read('how can i increase c'), { type: 'optimisation', objectives: [{ direction: 'maximise', variable: 'c' }], decisionVars: [name] }, name);
  }
});

test('a variable named `a` leaves the article alone: every retail query reads the same on a twin that has one', () => {
  for (const query of retailQueries) assert.deepEqual(scenarioFromQuery(query, retailWithA, STATIC_READERS), scenarioFromQuery(query, retail, STATIC_READERS), query);
});

test('a name that begins with a determiner is read whole', () => {
  assert.deepEqual(scenarioFromQuery('what if total sales rise 10%', operations, STATIC_READERS).scenario, { type: 'intervention', interventions: [{ variable: 'total sales', valueSpec: pct(10) }] });
  assert.deepEqual(scenarioFromQuery('what gives the highest total sales', operations, STATIC_READERS).scenario, {
    type: 'optimisation',
    objectives: [{ direction: 'maximise', variable: 'total sales' }],
    decisionVars: ['base_price', 'competitor_price'],
  });
});

expectCases('counterfactual', retail, [
  [
    'what would it take for churn to be below 0.1 for customer with price 30, tenure 5',
    { type: 'counterfactual', samples: [{ price: 30, tenure: 5 }], targets: [{ variable: 'churn', value: 0.1, matchMode: 'orLess' }] },
  ],
  [
    'how can we get revenue above 1000 for price 12, tenure 3 keeping tenure fixed',
    { type: 'counterfactual', samples: [{ price: 12, tenure: 3 }], targets: [{ variable: 'revenue', value: 1000, matchMode: 'orMore' }], constraints: { tenure: { type: 'fixed' } } },
  ],
  [
    'what would it take for plan to be premium for region North, price 30',
    { type: 'counterfactual', samples: [{ region: 'North', price: 30 }], targets: [{ variable: 'plan', value: 'premium' }] },
  ],
  [
    'what needs to change for revenue to reach 500 or more and churn to stay under 0.2 for price 20, discount 1, with at most 1 change',
    {
      type: 'counterfactual',
      samples: [{ price: 20, discount: 1 }],
      targets: [
        { variable: 'revenue', value: 500, matchMode: 'orMore' },
        { variable: 'churn', value: 0.2, matchMode: 'orLess' },
      ],
      maxChanges: 1,
    },
  ],
  [
    'what would it take for churn to be 0.1 within 0.02 for price 30 without changing price',
    { type: 'counterfactual', samples: [{ price: 30 }], targets: [{ variable: 'churn', value: 0.1, matchMode: 'tolerance', toleranceValue: 0.02 }], constraints: { price: { type: 'fixed' } } },
  ],
]);

expectCases('explanation', retail, [
  ['why does churn change', { type: 'explanation', explanationMode: 'discovery', effectVariable: 'churn' }],
  ['what drives revenue', { type: 'explanation', explanationMode: 'discovery', effectVariable: 'revenue' }],
  ['what are the main drivers of sales?', { type: 'explanation', explanationMode: 'discovery', effectVariable: 'revenue' }],
  ['why did revenue drop', { type: 'explanation', explanationMode: 'discovery', effectVariable: 'revenue' }],
  ['what does price affect', { type: 'explanation', explanationMode: 'impact', causeVariable: 'price' }],
  ['what is the effect of pricing', { type: 'explanation', explanationMode: 'impact', causeVariable: 'price' }],
  ['what is affected by the discount', { type: 'explanation', explanationMode: 'impact', causeVariable: 'discount' }],
  ['how does price affect churn', { type: 'explanation', explanationMode: 'directional', causeVariable: 'price', effectVariable: 'churn' }],
  ['what is the impact of discount on churn', { type: 'explanation', explanationMode: 'directional', causeVariable: 'discount', effectVariable: 'churn' }],
  ['is churn driven by tenure?', { type: 'explanation', explanationMode: 'directional', causeVariable: 'tenure', effectVariable: 'churn' }],
  ['does revenue depend on marketing spend', { type: 'explanation', explanationMode: 'directional', causeVariable: 'marketing_spend', effectVariable: 'revenue' }],
  // The graph orients a relationship: price -> revenue, whatever the order of the words.
  ['what is the relationship between revenue and price', { type: 'explanation', explanationMode: 'directional', causeVariable: 'price', effectVariable: 'revenue' }],
]);

expectCases('root cause', operations, [
  [
    'why is latency high for cpu 90, memory 70, latency 300',
    { type: 'root_cause_analysis', targetVariable: 'avgLatencyMs', samples: [{ CPUUsage: 90, memory_pct: 70, avgLatencyMs: 300 }] },
  ],
  ['root cause of the error rate for deploy yes, error rate 0.3', { type: 'root_cause_analysis', targetVariable: 'error-rate', samples: [{ deploy: 'yes', 'error-rate': 0.3 }] }],
  ['why did latency spike when cpu usage was 95', { type: 'root_cause_analysis', targetVariable: 'avgLatencyMs', samples: [{ CPUUsage: 95 }] }],
]);

expectCases('anomaly', operations, [
  ['is this unusual: cpu 90, latency 300', { type: 'anomaly_detection', samples: [{ CPUUsage: 90, avgLatencyMs: 300 }] }],
  [
    'are these outliers? cpu=95, latency=250; cpu=20, latency=100 and explain why',
    { type: 'anomaly_detection', samples: [{ CPUUsage: 95, avgLatencyMs: 250 }, { CPUUsage: 20, avgLatencyMs: 100 }], autoRca: true },
  ],
]);

test('the interpretation reads the scenario back and matched lists the phrases that named variables', () => {
  const out = scenarioFromQuery('What happens to Churn if the marketing-spend rises 10%?', retail, STATIC_READERS);
  assert.equal(out.interpretation, 'What-if: raise marketing_spend by 10%; report churn.');
  assert.deepEqual(out.matched, [
    { phrase: 'Churn', variable: 'churn' },
    { phrase: 'marketing-spend', variable: 'marketing_spend' },
  ]);
  assert.equal(scenarioFromQuery('minimise cost', retail, STATIC_READERS).interpretation, 'Find the settings of discount, marketing_spend (the source variables upstream) that minimise cost.');
  assert.equal(scenarioFromQuery('predict revenue', retail, STATIC_READERS).interpretation, 'Predict revenue with nothing observed (the population average).');
});

test('the same query always answers the same scenario', () => {
  const query = 'what if we cut discount by 2 and raise price by 5% for region North';
  assert.deepEqual(scenarioFromQuery(query, retail, STATIC_READERS), scenarioFromQuery(query, retail, STATIC_READERS));
});

/** The 422 and its message, located at the query. */
function rejects(query: string, context: QueryContext, message: RegExp): void {
  assert.throws(
    () => scenarioFromQuery(query, context, STATIC_READERS),
    (error: unknown) => {
      assert.ok(error instanceof AppError, String(error));
      assert.equal(error.status, 422);
      assert.equal(error.code, 'validation_failed');
      assert.match(error.message, message);
      assert.deepEqual(error.extras.errors, [{ location: 'body/query', message: error.message }]);
      return true;
    },
  );
}

const RETAIL_NAMES = 'variables are: price, discount, marketing_spend, region, plan, tenure, churn, revenue, cost';

test('an unknown variable in any role is a 422 that quotes it and lists the twin variables', () => {
  rejects('what happens to retention if price rises 10%', retail, new RegExp(`^No variable of this twin matches "retention"; ${RETAIL_NAMES}$`));
  rejects('what if shipping fees rise 10%', retail, /^No variable of this twin matches "shipping fees"/);
  rejects('maximise profit', retail, /^No variable of this twin matches "profit"/);
  rejects('what drives retention', retail, /^No variable of this twin matches "retention"/);
  rejects('predict lifetime value for price 12', retail, /^No variable of this twin matches "lifetime value"/);
  rejects('predict revenue for colour 12', retail, /^No variable of this twin matches "colour"/);
  rejects('why is throughput high for cpu 90', operations, /^No variable of this twin matches "throughput"/);
});

test('a query with nothing recognisable is a 422 that lists the variables and example questions', () => {
  rejects('hello there', retail, new RegExp(`^This query names no variable of this twin and asks nothing recognisable; ${RETAIL_NAMES}; ask e.g. "what if price rises 10%"`));
  rejects('   ', retail, /^The query is empty/);
  rejects('tell me about price', retail, /^Could not tell what this query asks about price; ask e\.g\./);
});

test('on a twin without such variables, grammar words stay grammar', () => {
  rejects('what if a rises 10%', retail, /^This query names no variable of this twin and asks nothing recognisable/);
  rejects('what if it rises 10%', retail, /^This query names no variable of this twin and asks nothing recognisable/);
  assert.deepEqual(scenarioFromQuery('predict revenue for a customer with a price of 12', retail, STATIC_READERS).scenario, { type: 'prediction', sample: [{ price: 12 }], targetVars: ['revenue'] });
});

/** The questions a query's 422 suggests (quoted after its "e.g."); none when it parses. */
function suggestions(query: string, context: QueryContext): string[] {
  try {
    scenarioFromQuery(query, context, STATIC_READERS);
    return [];
  } catch (error) {
    assert.ok(error instanceof AppError, String(error));
    const at = error.message.indexOf('e.g.');
    return at === -1 ? [] : [...error.message.slice(at).matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  }
}

test('every question a 422 suggests parses on the twin it names', () => {
  for (const [context, cause, effect] of [[lettered, 'a', 'c'], [retail, 'price', 'revenue'], [operations, 'CPUUsage', 'total sales']] as const) {
    // One query per 422 that suggests questions (on the retail twin, "predict" alone predicts its targets).
    const asked = [
      '',
      'hello there',
      `tell me about ${effect}`,
      `increase ${cause}`,
      `optimise ${effect}`,
      `what's the optimal ${cause} for ${effect}`,
      `why is ${effect} high`,
      'diagnose',
      'find anomalies',
      `what would it take for ${effect} to be above 100`,
      'predict',
    ];
    const suggested = asked.map((query) => suggestions(query, context));
    if (context === lettered) suggested.forEach((questions, i) => assert.ok(questions.length > 0, `no suggestion for "${asked[i]}"`));
    for (const query of new Set(suggested.flat())) assert.doesNotThrow(() => scenarioFromQuery(query, context, STATIC_READERS), query);
  }
});

test('a range or a relative change on a categorical variable is a 422', () => {
  rejects('what if region ranges from 1 to 3', retail, /^a range applies only to continuous variables; region is categorical/);
  rejects('what if region rises 10%', retail, /^a relative change applies only to continuous variables; region is categorical/);
});

test('a root cause or anomaly question without observed values is a 422 saying samples are needed', () => {
  rejects('why is latency high', operations, /^Root cause analysis needs the observed values to diagnose; give them in the query, e\.g\. "why is avgLatencyMs high for CPUUsage 90, avgLatencyMs 300"$/);
  rejects('diagnose the error rate', operations, /^Root cause analysis needs the observed values/);
  rejects('find anomalies', operations, /^An anomaly check needs the observations to scan; give their values in the query, e\.g\. "is this unusual: CPUUsage 90, memory_pct 300"$/);
});

test('values a variable cannot take, two ranges and vague changes are 422s that say what to fix', () => {
  rejects('set region to West', retail, /^region has no category "West"; its categories are: North, South, East$/);
  rejects('what if segment is 4', operations, /^segment has no category "4"; its categories are: 1, 2, 3$/);
  rejects('set price to high', retail, /^price is continuous: expected a number after "to", found "high"$/);
  rejects('what if price ranges from 10 to 20 and discount from 0 to 5', retail, /^a scenario sweeps at most one range; this asks for ranges of price, discount$/);
  rejects('increase price', retail, /^Could not build a scenario from this query: say by how much price should change, e\.g\. "increase price by 10%"$/);
  rejects('optimise revenue', retail, /^Say whether to maximise or minimise, and what: e\.g\. "maximise revenue" or "minimise revenue"$/);
  rejects("what's the optimal price for revenue", retail, /^Say whether to maximise or minimise, and what: e\.g\. "maximise revenue by changing price"$/);
  rejects('what would it take for churn to be below 0.1', retail, /^A what-would-it-take question needs the current values of the unit to change/);
  rejects('vary price from 10 to 20 in 500 steps', retail, /^a range takes a whole number of steps from 2 to 200, not 500$/);
  rejects('what would it take for churn to be below 0.2 and churn above 0.1 for price 3', retail, /^churn is named twice as a target$/);
  rejects('raise the probability of price = 3 by 10 points', retail, /^a probability applies to a category of a categorical variable; price is continuous$/);
});

test('a name that fits several variables equally is a 422 naming them; a longer or exact name wins', () => {
  rejects('what if price rises 10%', operations, /^"price" could mean any of base_price, competitor_price; name the variable in full$/);
  assert.deepEqual(scenarioFromQuery('what if competitor prices rise 10%', operations, STATIC_READERS).scenario, {
    type: 'intervention',
    interventions: [{ variable: 'competitor_price', valueSpec: pct(10) }],
  });
});

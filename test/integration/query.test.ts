/**
 * The anchor query facility (issue 18): a corpus of queries over generated sources (test/helpers/ontology.ts),
 * valid ones checked against hand-written SQL on the same tables, misspelled, ambiguous, fan-out, SHOW and
 * DESCRIBE, paging and errors, each error with its span and a suggested query that validates.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type TestApp, buildTestApp } from '../helpers/app.js';
import { businessData } from '../helpers/ontology.js';

const API = '/api/v1';

interface World {
  app: TestApp;
  ws: string;
  ids: Record<string, string>;
  ask(query: string, extra?: Record<string, unknown>): Promise<any>;
  sql(build: (table: (name: string) => string) => string): Promise<Array<Record<string, unknown>>>;
}

/** One workspace for the whole corpus: six sources extracted, a dataset over each. */
function world(t: TestContext): Promise<World> {
  return (async () => {
    const app = await buildTestApp(t);
    const ws = app.tenant.libraryWorkspaceId;
    const data = businessData(41, { names: 0 });
    const ids: Record<string, string> = {};
    for (const [name, rows] of Object.entries(data.sources)) {
      const source = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
      ids[name] = source.body.data.id;
      for (let i = 0; ; i++) {
        const status = (await app.call({ method: 'GET', url: `${API}/sources/${ids[name]}` })).body.data.ontologyStatus;
        if (status === 'completed') break;
        assert.ok(i < 1500 && status !== 'failed', `extraction of ${name}: ${status}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const dataset = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, body: { name, sources: [{ id: ids[name] }] } });
      assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
    }
    return {
      app,
      ws,
      ids,
      ask: async (query, extra = {}) => {
        const response = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/query`, body: { query, ...extra } });
        assert.equal(response.status, 200, JSON.stringify(response.body));
        return response.body.data;
      },
      sql: (build) => app.context.data().query(app.tenant.organisationId, (sql) => build((name) => sql.table(ids[name]!))),
    };
  })();
}

const CHECKS: Array<[string, (w: World) => Promise<void>]> = [];

const round = (value: unknown) => (typeof value === 'number' ? Math.round(value * 1e6) / 1e6 : value === null || value === undefined ? null : Number.isFinite(Number(value)) && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value) ? Math.round(Number(value) * 1e6) / 1e6 : value);
const normalise = (rows: Array<Record<string, unknown>>) => rows.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, round(v)])));

/** A state as written, read as its canonical spelling (the generator's own list of spellings). */
const canonicalState = (column: string) => {
  const pairs = Object.entries(businessData(41, { names: 0 }).spellings).flatMap(([canonical, others]) => others.map((other) => [other, canonical]));
  const list = (values: string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;
  return `transform(${column}, ${list(pairs.map(([other]) => other!))}, ${list(pairs.map(([, canonical]) => canonical!))}, ${column})`;
};

/** Valid queries and the hand-written SQL over the source tables that must answer the same rows (both fully ordered). */
const VALID: Array<[string, (table: (name: string) => string) => string]> = [
  ['SELECT sum(amount) AS revenue, currency FROM orders GROUP BY currency ORDER BY currency', (t) => `SELECT sum(amount) AS revenue, currency FROM ${t('orders')} GROUP BY currency ORDER BY currency`],
  ['SELECT count(*) AS n FROM orders', (t) => `SELECT count() AS n FROM ${t('orders')}`],
  ['SELECT country, count(*) AS n GROUP BY country ORDER BY n DESC, country', (t) => `SELECT country, count() AS n FROM ${t('orders')} GROUP BY country ORDER BY n DESC, country`],
  ['SELECT avg(amount) AS mean FROM orders WHERE country = \'Germany\'', (t) => `SELECT avg(amount) AS mean FROM ${t('orders')} WHERE country = 'Germany'`],
  ['SELECT max(amount) AS top, min(amount) AS bottom FROM orders WHERE amount > 100', (t) => `SELECT max(amount) AS top, min(amount) AS bottom FROM ${t('orders')} WHERE amount > 100`],
  ['SELECT month(order_date) AS m, sum(amount) AS revenue GROUP BY m ORDER BY m', (t) => `SELECT toStartOfMonth(order_date) AS m, sum(amount) AS revenue FROM ${t('orders')} GROUP BY m ORDER BY m`],
  ['SELECT quarter(ship_date) AS q, count(*) AS n GROUP BY q ORDER BY q', (t) => `SELECT toStartOfQuarter(ship_date) AS q, count() AS n FROM ${t('orders')} GROUP BY q ORDER BY q`],
  ['SELECT week(opened_at) AS w, count(*) AS n GROUP BY w ORDER BY w', (t) => `SELECT toMonday(opened_at) AS w, count() AS n FROM ${t('tickets')} GROUP BY w ORDER BY w`],
  ['SELECT channel, avg(satisfaction) AS s WHERE channel IN (\'email\', \'chat\') GROUP BY channel ORDER BY channel', (t) => `SELECT channel, avg(satisfaction) AS s FROM ${t('tickets')} WHERE channel IN ('email', 'chat') GROUP BY channel ORDER BY channel`],
  ['SELECT channel, count(*) AS n WHERE channel NOT IN (\'email\') GROUP BY channel ORDER BY channel', (t) => `SELECT channel, count() AS n FROM ${t('tickets')} WHERE channel NOT IN ('email') GROUP BY channel ORDER BY channel`],
  ['SELECT countDistinct(customerId) AS buyers FROM orders', (t) => `SELECT uniqExact(customerId) AS buyers FROM ${t('orders')}`],
  ['SELECT countDistinct(Customer) AS buyers FROM orders', (t) => `SELECT uniqExact(customerId) AS buyers FROM ${t('orders')}`],
  ['SELECT segment, count(*) AS n FROM customers GROUP BY segment ORDER BY segment', (t) => `SELECT segment, count() AS n FROM ${t('customers')} GROUP BY segment ORDER BY segment`],
  ['SELECT segment, sum(amount) AS revenue FROM orders GROUP BY segment ORDER BY segment', (t) => `SELECT c.segment AS segment, sum(o.amount) AS revenue FROM ${t('orders')} AS o LEFT JOIN ${t('customers')} AS c ON o.customerId = c.cust_id GROUP BY segment ORDER BY segment`],
  ['SELECT segment, channel, count(*) AS n FROM orders GROUP BY segment, channel ORDER BY segment, channel', (t) => `SELECT c.segment AS segment, k.channel AS channel, count() AS n FROM ${t('orders')} AS o LEFT JOIN ${t('customers')} AS c ON o.customerId = c.cust_id LEFT JOIN ${t('tickets')} AS k ON o.customerId = k.client GROUP BY segment, channel ORDER BY segment, channel`],
  ['SELECT category, sum(quantity) AS units FROM order_lines GROUP BY category ORDER BY category', (t) => `SELECT p.category AS category, sum(l.quantity) AS units FROM ${t('order_lines')} AS l LEFT JOIN ${t('products')} AS p ON l.product_code = p.sku GROUP BY category ORDER BY category`],
  // A chain: order lines reach the customers through the orders (Order, then Customer).
  ['SELECT segment, sum(quantity) AS units FROM order_lines GROUP BY segment ORDER BY segment', (t) => `SELECT c.segment AS segment, sum(l.quantity) AS units FROM ${t('order_lines')} AS l LEFT JOIN ${t('orders')} AS o ON l.order_ref = o.order_id LEFT JOIN ${t('customers')} AS c ON o.customerId = c.cust_id GROUP BY segment ORDER BY segment`],
  ['SELECT "Full name" FROM customers ORDER BY "Full name" LIMIT 3', (t) => `SELECT full_name AS \`Full name\` FROM ${t('customers')} ORDER BY \`Full name\` LIMIT 3`],
  // The query reads the state through the State concept's value map: its spellings are one value.
  ['SELECT state, count(*) AS n FROM customers WHERE state STARTS WITH \'New\' GROUP BY state ORDER BY state', (t) => `SELECT s AS state, n FROM (SELECT ${canonicalState('state')} AS s, count() AS n FROM ${t('customers')} WHERE startsWith(lowerUTF8(s), 'new') GROUP BY s) ORDER BY state`],
  ['SELECT count(*) AS n FROM customers WHERE full_name CONTAINS \'10\'', (t) => `SELECT count() AS n FROM ${t('customers')} WHERE positionCaseInsensitiveUTF8(full_name, '10') > 0`],
  ['SELECT count(*) AS n FROM orders WHERE order_date BEFORE \'2024-08-01\'', (t) => `SELECT count() AS n FROM ${t('orders')} WHERE order_date < toDate32('2024-08-01')`],
  ['SELECT count(*) AS n FROM orders WHERE ship_date AFTER \'2024-09-15\' AND currency = \'EUR\'', (t) => `SELECT count() AS n FROM ${t('orders')} WHERE ship_date > toDate32('2024-09-15') AND currency = 'EUR'`],
  ['SELECT count(*) AS n FROM orders WHERE currency = \'EUR\' OR currency = \'GBP\'', (t) => `SELECT count() AS n FROM ${t('orders')} WHERE currency = 'EUR' OR currency = 'GBP'`],
  ['SELECT orders.amount AS a FROM orders ORDER BY a DESC LIMIT 3', (t) => `SELECT amount AS a FROM ${t('orders')} ORDER BY a DESC LIMIT 3`],
  ['SELECT sum(list_price) AS total FROM products WHERE category != \'toys\'', (t) => `SELECT sum(list_price) AS total FROM ${t('products')} WHERE category != 'toys'`],
  ['SELECT first(country) AS c FROM orders WHERE order_id = 50000', (t) => `SELECT any(country) AS c FROM ${t('orders')} WHERE order_id = 50000`],
  ['SELECT year(signup_date) AS y, count(*) AS n FROM customers GROUP BY y ORDER BY y', (t) => `SELECT toStartOfYear(signup_date) AS y, count() AS n FROM ${t('customers')} GROUP BY y ORDER BY y`],
  ['SELECT count(*) AS n FROM customers WHERE state IS NOT EMPTY', (t) => `SELECT count() AS n FROM ${t('customers')} WHERE state IS NOT NULL AND state != ''`],
];

CHECKS.push(['valid queries answer what hand-written SQL over the same tables answers', async (w) => {
  for (const [query, hand] of VALID) {
    const result = await w.ask(query, { limit: 1000 });
    assert.equal(result.ok, true, `${query}: ${JSON.stringify(result.error)}`);
    assert.equal(result.kind, 'rows', query);
    const expected = await w.sql(hand);
    assert.deepEqual(normalise(result.rows), normalise(expected), query);
    assert.equal(result.totalRowCount, expected.length, query);
    assert.ok(result.sql.startsWith('SELECT'), query);
  }
}]);

CHECKS.push(['a join goes through an anchor concept and says so; a join whose key repeats warns with its fanout', async (w) => {
  const joined = await w.ask('SELECT segment, sum(amount) AS revenue FROM orders GROUP BY segment');
  assert.equal(joined.plan.strategy, 'anchor_join');
  assert.deepEqual(joined.plan.joinPlan.map((j: { conceptName: string; strategy: string; fanout: number }) => [j.conceptName, j.strategy, j.fanout]), [['Customer', 'lookup', 1]]);
  assert.ok(joined.involvedConcepts.some((c: { role: string; name: string }) => c.role === 'anchor' && c.name === 'Customer'));
  assert.deepEqual(joined.warnings, []);
  // From the customers, the tickets' channel: tickets have many rows per customer.
  const fan = await w.ask('SELECT count(*) AS n, channel FROM customers GROUP BY channel');
  assert.equal(fan.ok, true, JSON.stringify(fan.error));
  assert.equal(fan.plan.joinPlan[0].strategy, 'fanout');
  assert.ok(fan.plan.joinPlan[0].fanout > 1, JSON.stringify(fan.plan.joinPlan));
  assert.ok(fan.warnings.some((warning: string) => /repeats the rows/.test(warning)), JSON.stringify(fan.warnings));
  // Two datasets joined around the one read (a star), each through the customer.
  const star = await w.ask('SELECT segment, channel, count(*) AS n FROM orders GROUP BY segment, channel');
  assert.deepEqual(star.plan.joinPlan.map((j: { conceptName: string; strategy: string }) => [j.conceptName, j.strategy]), [['Customer', 'lookup'], ['Customer', 'fanout']]);
  assert.equal(star.plan.requestPlan.length, 3);
  // A chain: each hop joins onto the dataset before it, through the concept the two share.
  const chain = await w.ask('SELECT segment, sum(quantity) AS units FROM order_lines GROUP BY segment');
  const names = new Map((await w.ask('SHOW DATASETS')).rows.map((r: { id: string; name: string }) => [r.id, r.name]));
  assert.deepEqual(chain.plan.joinPlan.map((j: { sourceDatasetId: string; targetDatasetId: string; strategy: string }) => [names.get(j.sourceDatasetId), names.get(j.targetDatasetId), j.strategy]),
    [['order_lines', 'orders', 'lookup'], ['orders', 'customers', 'lookup']]);
  assert.deepEqual(chain.involvedConcepts.filter((c: { role: string }) => c.role === 'anchor').map((c: { name: string }) => c.name).sort(), ['Customer', 'Order']);
  // The shortest chain is taken: the sessions' pages from the products, through lines, orders (and the customer).
  const long = await w.ask('SELECT pages_viewed FROM products');
  assert.deepEqual(long.plan.joinPlan.map((j: { targetDatasetId: string }) => names.get(j.targetDatasetId)), ['order_lines', 'orders', 'sessions']);
  assert.ok(long.warnings.some((warning: string) => /repeats the rows/.test(warning)), 'sessions repeat per customer');
  const validated = await w.ask('SELECT segment, sum(amount) FROM orders GROUP BY segment', { mode: 'validate' });
  assert.equal(validated.kind, 'validated');
  assert.match(validated.sql, /LEFT JOIN/);
  assert.equal(validated.plan.joinPlan[0].fanout, null);
}]);

CHECKS.push(['SHOW and DESCRIBE answer metadata; pages continue with nextStartKey', async (w) => {
  const datasets = await w.ask('SHOW DATASETS');
  assert.equal(datasets.kind, 'metadata');
  assert.equal(datasets.totalRowCount, 6);
  const concepts = await w.ask('show concepts', { limit: 5 });
  assert.equal(concepts.rowCount, 5);
  assert.equal(concepts.truncated, true);
  const next = await w.ask('SHOW CONCEPTS', { limit: 5, startKey: concepts.nextStartKey });
  assert.notDeepEqual(next.rows, concepts.rows);
  const metrics = await w.ask('SHOW METRICS');
  assert.ok(metrics.rows.some((r: { name: string }) => r.name === 'Amount'));
  assert.ok(metrics.rows.every((r: { classification: string }) => r.classification === 'measure'));
  const customer = await w.ask('DESCRIBE Customer');
  assert.deepEqual(customer.rows.map((r: { dataset: string }) => r.dataset).sort(), ['customers', 'orders', 'sessions', 'tickets']);
  const orders = await w.ask('DESCRIBE orders');
  assert.ok(orders.rows.some((r: { column: string; concept: string }) => r.column === 'customerId' && r.concept === 'Customer'));
  const viaField = await w.ask('DESCRIBE cust_id');
  assert.equal(viaField.command, 'DESCRIBE Customer');

  const pageOne = await w.ask('SELECT order_id FROM orders ORDER BY order_id', { limit: 400 });
  assert.equal(pageOne.rowCount, 400);
  assert.equal(pageOne.nextStartKey, 400);
  const all: number[] = pageOne.rows.map((r: { order_id: number }) => r.order_id);
  for (let key = pageOne.nextStartKey; key !== null; ) {
    const page = await w.ask('SELECT order_id FROM orders ORDER BY order_id', { limit: 400, startKey: key });
    all.push(...page.rows.map((r: { order_id: number }) => r.order_id));
    key = page.nextStartKey;
  }
  assert.equal(all.length, pageOne.totalRowCount);
  assert.deepEqual(all, [...all].sort((a, b) => a - b));
  const limited = await w.ask('SELECT order_id FROM orders ORDER BY order_id LIMIT 7', { limit: 5 });
  assert.equal(limited.totalRowCount, 7);
  assert.equal(limited.nextStartKey, 5);
}]);

/** Queries that must fail: the code, and the text the span must cover (null: no span). */
const FAILING: Array<[string, string, string | null]> = [
  ['', 'empty_query', null],
  ['   ', 'empty_query', null],
  ['SELEC amount FROM orders', 'syntax_error', 'SELEC'],
  ['SELECT sum(amont) FROM orders', 'unknown_name', 'amont'],
  ['SELECT sum(ammount) AS r FROM orders', 'unknown_name', 'ammount'],
  ['SELECT countrey, count(*) FROM orders GROUP BY countrey', 'unknown_name', 'countrey'],
  ['SELECT count(*) FROM orderz', 'unknown_name', 'orderz'],
  ['SELECT sum(amount) FROM orders WHERE curency = \'EUR\'', 'unknown_name', 'curency'],
  ['SELECT segmnt, count(*) FROM customers GROUP BY segmnt', 'unknown_name', 'segmnt'],
  ['DESCRIBE custmer', 'unknown_name', 'custmer'],
  ['SELECT orders.satisfaction FROM orders', 'unknown_name', 'orders.satisfaction'],
  ['SELECT total(amount) FROM orders', 'unknown_function', 'total'],
  ['SELECT median(amount) FROM orders', 'unknown_function', 'median'],
  ['SELECT sum(currency) FROM orders', 'invalid_aggregate', 'sum(currency)'],
  ['SELECT avg(country) FROM orders', 'invalid_aggregate', 'avg(country)'],
  ['SELECT month(amount) FROM orders', 'type_mismatch', 'month(amount)'],
  ['SELECT count(*) FROM orders WHERE amount CONTAINS \'1\'', 'type_mismatch', 'amount CONTAINS \'1\''],
  ['SELECT count(*) FROM orders WHERE amount > \'lots\'', 'type_mismatch', 'amount > \'lots\''],
  ['SELECT sum(amount) FROM orders WHERE country = \'US\' AND currency = \'USD\' OR amount > 3', 'mixed_boolean', 'OR'],
  ['SELECT sum(amount) FROM orders LIMIT 0', 'invalid_limit', '0'],
  ['SELECT sum(amount) FROM orders LIMIT many', 'invalid_limit', 'many'],
  ['SELECT sum(amount FROM orders', 'syntax_error', 'FROM'],
  ['SELECT sum(amount) FROM', 'syntax_error', ''],
  ['SELECT amount, FROM orders', 'syntax_error', 'FROM'],
  ['SELECT amount FROM orders WHERE amount', 'syntax_error', ''],
  ['SELECT amount FROM orders WHERE amount = ', 'syntax_error', ''],
  ['SELECT amount FROM orders ORDER amount', 'syntax_error', 'amount'],
  ['SHOW TABLES', 'syntax_error', 'TABLES'],
  ['SELECT \'amount\' FROM orders', 'syntax_error', "'amount'"],
  ['SELECT amount FROM orders extra', 'syntax_error', 'extra'],
  ['SELECT "amount FROM orders', 'syntax_error', '"amount FROM orders'],
  ['SELECT amount FROM orders WHERE amount = 5 ;', 'syntax_error', ';'],
  ['SELECT pages_viewed, channel, segment FROM products', 'no_join_path', 'segment'],
  ['SELECT Customer FROM orders, tickets', 'syntax_error', ','],
  ['SELECT count(*) FROM orders ORDER BY nothing', 'unknown_name', 'nothing'],
  ['SELECT country, amount FROM orders GROUP BY country', 'invalid_aggregate', 'amount'],
  ['SELECT hour(order_date) AS h, count(*) AS n FROM orders GROUP BY h', 'type_mismatch', 'hour(order_date) AS h'],
  ['SELECT count(*) FROM orders LIMIT 99999999999', 'invalid_limit', '99999999999'],
  ['SELECT count(*) FROM orders.amount', 'syntax_error', 'orders.amount'],
  ['SELECT count(*) AS n', 'ambiguous_name', 'count(*) AS n'],
  ['SELECT count(*) AS n ORDER BY n', 'ambiguous_name', 'count(*) AS n'],
];

CHECKS.push(['every failing query answers its code, the span of the problem and a suggested query that validates', async (w) => {
  for (const [query, code, spanText] of FAILING) {
    const result = await w.ask(query);
    assert.equal(result.ok, false, `${query} should fail`);
    assert.equal(result.error.code, code, `${query}: ${JSON.stringify(result.error)}`);
    if (spanText !== null) {
      assert.ok(Array.isArray(result.error.span), `${query}: a span`);
      assert.equal(query.slice(result.error.span[0], result.error.span[1]), spanText, `${query}: span ${JSON.stringify(result.error.span)}`);
    }
    assert.ok(typeof result.error.suggestedQuery === 'string' && result.error.suggestedQuery.length > 0, `${query}: a suggested query`);
    const check = await w.ask(result.error.suggestedQuery, { mode: 'validate' });
    assert.equal(check.ok, true, `${query} -> ${result.error.suggestedQuery}: ${JSON.stringify(check.error)}`);
  }
}]);

CHECKS.push(['misspelled names are corrected to the name meant, ranked first among the candidates', async (w) => {
  const cases: Array<[string, string, string]> = [
    ['SELECT sum(amont) FROM orders', 'amount', 'SELECT sum(amount) FROM orders'],
    ['SELECT countrey, count(*) AS n FROM orders GROUP BY country', 'country', 'SELECT country, count(*) AS n FROM orders GROUP BY country'],
    ['SELECT count(*) FROM orderz', 'orders', 'SELECT count(*) FROM orders'],
    ['SELECT total(amount) FROM orders', 'sum', 'SELECT sum(amount) FROM orders'],
    ['SELECT sum(amount FROM orders', ')', 'SELECT sum(amount) FROM orders'],
  ];
  for (const [query, meant, suggested] of cases) {
    const result = await w.ask(query);
    if (result.error.candidates.length > 0) assert.equal(result.error.candidates[0].name.toLowerCase(), meant, `${query}: ${JSON.stringify(result.error.candidates)}`);
    assert.equal(result.error.suggestedQuery, suggested, query);
  }
  const ambiguous = await w.ask('SELECT count(*) AS n ORDER BY n');
  assert.equal(ambiguous.error.candidates.length, 6, 'any dataset could be counted');
  assert.equal(ambiguous.error.suggestedQuery, 'SELECT count(*) AS n FROM customers ORDER BY n');
  // The entity's own dataset wins a tie: customers is where Customer is the key.
  const home = await w.ask('SELECT Customer, count(*) AS n GROUP BY Customer LIMIT 1');
  assert.equal(home.plan.chips[0].label, 'customers');
  // A dataset's tag points at it.
  const orders = (await w.ask('SHOW DATASETS')).rows.find((r: { name: string }) => r.name === 'orders');
  await w.app.call({ method: 'PATCH', url: `${API}/workspaces/${w.ws}/datasets/${orders.id}`, body: { tags: ['sales ledger'] } });
  const tagged = await w.ask('SELECT count(*) AS n FROM "sales ledger"');
  assert.deepEqual(tagged.error.candidates[0], { kind: 'tag', id: orders.id, name: 'sales ledger', score: 1, syntax: 'orders' });
  assert.equal(tagged.error.suggestedQuery, 'SELECT count(*) AS n FROM orders');
  // A column a dataset computes is a derived candidate.
  const margins = await w.app.call({
    method: 'POST', url: `${API}/workspaces/${w.ws}/datasets`,
    body: { name: 'margins', sources: [{ id: w.ids.orders }], operations: [{ sourceId: w.ids.orders, config: { type: 'derive', column: 'margin', expression: 'amount * 0.2' } }] },
  });
  assert.equal(margins.status, 201, JSON.stringify(margins.body));
  const derived = await w.ask('SELECT sum(margn) AS m FROM margins');
  assert.deepEqual(derived.error.candidates[0], { kind: 'derived', id: margins.body.data.id, name: 'margin', score: derived.error.candidates[0].score, syntax: 'margin' });
  assert.equal(derived.error.suggestedQuery, 'SELECT sum(margin) AS m FROM margins');
}]);

CHECKS.push(['a metric concept\'s formula is named like a column, aggregated per group, shown by SHOW METRICS and DESCRIBE, and checked when written', async (w) => {
  const concepts = `${API}/workspaces/${w.ws}/ontology/concepts`;
  const created = await w.app.call({ method: 'POST', url: concepts, body: { name: 'Revenue per customer', conceptKind: 'metric', conceptClassification: 'measure', metricSql: 'sum(amount) / countDistinct(Customer)' } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const result = await w.ask('SELECT segment, "Revenue per customer" AS rpc FROM orders GROUP BY segment ORDER BY segment', { limit: 1000 });
  assert.equal(result.ok, true, JSON.stringify(result.error));
  const expected = await w.sql((t) => `SELECT c.segment AS segment, sum(o.amount) / uniqExact(o.customerId) AS rpc FROM ${t('orders')} AS o LEFT JOIN ${t('customers')} AS c ON o.customerId = c.cust_id GROUP BY segment ORDER BY segment`);
  assert.deepEqual(normalise(result.rows), normalise(expected));
  assert.ok(result.involvedConcepts.some((c: { name: string; role: string }) => c.name === 'Revenue per customer' && c.role === 'referenced'));
  // A formula with arithmetic on numbers; a division by zero is null.
  await w.app.call({ method: 'POST', url: concepts, body: { name: 'Share shipped late', conceptKind: 'metric', metricSql: '100 * count(ship_date) / (count(*) - count(*))' } });
  const nulls = await w.ask('SELECT "Share shipped late" FROM orders');
  assert.deepEqual(nulls.rows, [{ 'Share shipped late': null }], JSON.stringify(nulls));
  const shown = await w.ask('SHOW METRICS');
  assert.equal(shown.rows.find((r: { name: string }) => r.name === 'Revenue per customer').metricSql, 'sum(amount) / countDistinct(Customer)');
  const described = await w.ask('DESCRIBE "Revenue per customer"');
  assert.deepEqual(described.rows, [{ metric: 'Revenue per customer', formula: 'sum(amount) / countDistinct(Customer)', unit: null, description: null }]);
  assert.equal((await w.ask('SELECT count(*) AS n FROM orders WHERE "Revenue per customer" > 5')).error.code, 'invalid_aggregate');
  assert.equal((await w.ask('SELECT count(*) AS n FROM orders GROUP BY "Revenue per customer"')).error.code, 'invalid_aggregate');
  // Written formulas are checked: a located 422, nothing stored.
  const bad = await w.app.call({ method: 'POST', url: concepts, body: { name: 'Broken', conceptKind: 'metric', metricSql: 'amount / 2' } });
  assert.equal(bad.status, 422);
  assert.equal(bad.body.errors[0].location, 'body/metricSql');
  const notMetric = await w.app.call({ method: 'POST', url: concepts, body: { name: 'Plain', metricSql: 'sum(amount)' } });
  assert.equal(notMetric.status, 422);
  assert.match(notMetric.body.errors[0].message, /conceptKind to metric/);
  const typed = await w.app.call({ method: 'POST', url: concepts, body: { name: 'Text sum', conceptKind: 'metric', metricSql: 'sum(country)' } });
  assert.equal(typed.status, 201, 'names resolve per query, in the dataset read');
  assert.equal((await w.ask('SELECT "Text sum" FROM orders')).error.code, 'invalid_aggregate');
}]);

CHECKS.push(['a dataset no chain of anchor concepts reaches is never joined (no_join_path naming it)', async (w) => {
  const source = await w.app.call({ method: 'POST', url: `${API}/workspaces/${w.ws}/sources/from-data`, body: { name: 'weather', ontologyMode: 'manual', rows: [{ reading_day: '2024-05-01', temperature: 21.5 }, { reading_day: '2024-05-02', temperature: 19 }] } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  assert.equal((await w.app.call({ method: 'POST', url: `${API}/workspaces/${w.ws}/datasets`, body: { name: 'weather', sources: [{ id: source.body.data.id }] } })).status, 201);
  const noJoin = await w.ask('SELECT temperature FROM products');
  assert.equal(noJoin.error.code, 'no_join_path');
  assert.deepEqual(noJoin.error.perSource.map((p: { datasetName: string }) => p.datasetName), ['weather'], JSON.stringify(noJoin.error));
  assert.equal((await w.ask('SELECT avg(temperature) AS t FROM weather')).ok, true);
}]);

CHECKS.push(['the query endpoint refuses malformed requests with a problem document, and other organisations see nothing', async (w) => {
  const url = `${API}/workspaces/${w.ws}/query`;
  assert.equal((await w.app.call({ method: 'POST', url, body: {} })).status, 422);
  assert.equal((await w.app.call({ method: 'POST', url, body: { query: 'SHOW DATASETS', limit: 0 } })).status, 422);
  assert.equal((await w.app.call({ method: 'POST', url, body: { query: 'SHOW DATASETS', mode: 'explain' } })).status, 422);
  const other = await w.app.call({ method: 'POST', url, body: { query: 'SHOW DATASETS' }, key: w.app.other.key });
  assert.ok([403, 404].includes(other.status), String(other.status));
  const theirs = await w.app.call({ method: 'POST', url: `${API}/workspaces/${w.app.other.libraryWorkspaceId}/query`, body: { query: 'SHOW DATASETS' }, key: w.app.other.key });
  assert.equal(theirs.body.data.totalRowCount, 0, 'the other organisation has no datasets, and none of ours');
}]);

test('the anchor query facility over one workspace', async (t) => {
  const w = await world(t);
  for (const [name, check] of CHECKS) await t.test(name, () => check(w));
});

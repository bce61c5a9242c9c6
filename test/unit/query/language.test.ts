import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MetricExpression, QuerySyntaxError, aggregatesOf, parse, parseMetric } from '../../../src/query/language.js';
import { similarity } from '../../../src/query/suggest.js';

test('SELECT parses into items, source, conditions, groups, order and limit with their spans', () => {
  const text = 'SELECT sum(amount) AS revenue, month(order_date) AS m, "Full name" FROM orders WHERE country IN (\'US\', \'DE\') AND amount >= 10 GROUP BY m ORDER BY revenue DESC LIMIT 5';
  const statement = parse(text);
  assert.equal(statement.kind, 'select');
  if (statement.kind !== 'select') return;
  assert.deepEqual(statement.items.map((i) => [i.kind, i.fn, i.name?.text ?? null, i.alias]), [['aggregate', 'sum', 'amount', 'revenue'], ['grain', 'month', 'order_date', 'm'], ['column', null, 'Full name', null]]);
  assert.equal(text.slice(...statement.items[0]!.span), 'sum(amount) AS revenue');
  assert.equal(statement.from?.text, 'orders');
  assert.deepEqual(statement.where?.conditions.map((c) => [c.name.text, c.operator, c.values]), [['country', 'Equal to', ['US', 'DE']], ['amount', 'Greater than or equal to', [10]]]);
  assert.equal(text.slice(...statement.where!.conditions[0]!.span), "country IN ('US', 'DE')");
  assert.deepEqual(statement.orderBy.map((o) => [o.target.name?.text, o.direction]), [['revenue', 'desc']]);
  assert.equal(statement.limit, 5);
});

test('every comparison word reads as the spec\'s operator; qualified and quoted names; doubled quotes escape', () => {
  const cases: Array<[string, string]> = [
    ["a = 'x'", 'Equal to'], ['a != 1', 'Not Equal to'], ['a <> 1', 'Not Equal to'], ['a < 1', 'Less than'], ['a > 1', 'Greater than'],
    ['a <= 1', 'Less than or equal to'], ['a >= 1', 'Greater than or equal to'], ["a CONTAINS 'x'", 'Contains'], ["a NOT CONTAINS 'x'", 'Does not contain'],
    ["a STARTS WITH 'x'", 'Starts with'], ["a ends with 'x'", 'Ends with'], ["a BEFORE '2024-01-01'", 'Before'], ["a AFTER '2024-01-01'", 'After'],
    ['a IS EMPTY', 'Is Empty'], ['a IS NOT EMPTY', 'Is not Empty'], ['a NOT IN (1, 2)', 'Not Equal to'],
  ];
  for (const [condition, operator] of cases) {
    const statement = parse(`SELECT a FROM d WHERE ${condition}`);
    assert.equal(statement.kind === 'select' && statement.where!.conditions[0]!.operator, operator, condition);
  }
  const qualified = parse('select "my data"."the col" from "my data" where x = \'it\'\'s\'');
  assert.ok(qualified.kind === 'select');
  if (qualified.kind === 'select') {
    assert.deepEqual([qualified.items[0]!.name!.qualifier, qualified.items[0]!.name!.text], ['my data', 'the col']);
    assert.deepEqual(qualified.where!.conditions[0]!.values, ["it's"]);
  }
  assert.deepEqual(parse('show metrics'), { kind: 'show', what: 'METRICS' });
  assert.equal(parse('DESCRIBE orders').kind, 'describe');
});

test('syntax errors name the code and the span of the problem', () => {
  const cases: Array<[string, string, string]> = [
    ['SELEC a', 'syntax_error', 'SELEC'],
    ['SELECT a FROM d WHERE a = 1 AND b = 2 OR c = 3', 'mixed_boolean', 'OR'],
    ['SELECT a FROM d LIMIT 0', 'invalid_limit', '0'],
    ['SELECT mean(a) FROM d', 'unknown_function', 'mean'],
    ["SELECT a FROM d WHERE a = 'open", 'syntax_error', "'open"],
    ['SELECT a FROM d WHERE a ~ 1', 'syntax_error', '~'],
    ['SELECT sum(*) FROM d', 'syntax_error', '*'],
  ];
  for (const [text, code, spanned] of cases) {
    assert.throws(() => parse(text), (error: unknown) => {
      assert.ok(error instanceof QuerySyntaxError, text);
      assert.equal(error.code, code, text);
      assert.equal(text.slice(...error.span!), spanned, text);
      return true;
    });
  }
  assert.throws(() => parse('  '), (error: unknown) => error instanceof QuerySyntaxError && error.code === 'empty_query' && error.span === null);
});

test('similarity ranks the name meant: spelling, shared words, containment', () => {
  assert.ok(similarity('amont', 'amount') > similarity('amont', 'country'));
  assert.ok(similarity('cust', 'customer') >= 0.8);
  assert.equal(similarity('client', 'customer'), 1, 'synonyms read as one word');
  assert.equal(similarity('', 'x'), 0);
});

test('a metric formula parses with precedence, parentheses, signs and spans; a formula without an aggregate is refused', () => {
  const text = 'sum(amount) - 2 * count(*) / (countDistinct(Customer) + -1)';
  const formula = parseMetric(text);
  const show = (f: MetricExpression): string => f.kind === 'number' ? String(f.value) : f.kind === 'aggregate' ? `${f.fn}(${f.name?.text ?? '*'})` : f.kind === 'negate' ? `-${show(f.operand)}` : `(${show(f.left)} ${f.operator} ${show(f.right)})`;
  assert.equal(show(formula), '(sum(amount) - ((2 * count(*)) / (countDistinct(Customer) + -1)))');
  assert.equal(show(parseMetric('sum(a)-1')), '(sum(a) - 1)', 'a minus after a value subtracts');
  assert.equal(show(parseMetric('-sum(a)')), '-sum(a)');
  assert.deepEqual(aggregatesOf(formula).map((a) => text.slice(...a.span)), ['sum(amount)', 'count(*)', 'countDistinct(Customer)']);
  for (const [bad, code] of [['amount / 2', 'invalid_aggregate'], ['1 + 2', 'invalid_aggregate'], ['sum(amount) +', 'syntax_error'], ['sum(amount) AS x', 'syntax_error'], ['(sum(a)', 'syntax_error'], ['', 'empty_query'], ['median(a)', 'unknown_function']] as const) {
    assert.throws(() => parseMetric(bad), (error: unknown) => error instanceof QuerySyntaxError && error.code === code, bad);
  }
  // Queries keep reading negative numbers as values.
  const statement = parse('SELECT a FROM d WHERE a > -5');
  assert.deepEqual(statement.kind === 'select' && statement.where!.conditions[0]!.values, [-5]);
});

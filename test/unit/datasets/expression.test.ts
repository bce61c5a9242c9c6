import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { compileExpression } from '../../../src/datasets/compiler/expression.js';
import { Params } from '../../../src/datasets/compiler/params.js';
import { columnOf } from '../../../src/datasets/compiler/relation.js';
import { AppError } from '../../../src/errors.js';
import { type TestApp, buildTestApp } from '../../helpers/app.js';

/**
 * The derived-column expression language (`derive` operation). First at unit level, calling compileExpression
 * with a fake relation: error messages, and the guarantee that a client's literals reach the engine only as
 * bound parameters. Then through the API over real rows, comparing with values computed here in JS.
 */

// ---------------------------------------------------------------------------------------------------------------
// Unit level
// ---------------------------------------------------------------------------------------------------------------

const RELATION = {
  columns: [
    columnOf('qty', 'integer'),
    columnOf('price', 'decimal'),
    columnOf('name', 'text'),
    columnOf('region', 'categorical'),
    columnOf('day', 'date'),
    columnOf('at', 'datetime'),
    columnOf('paid', 'boolean'),
    columnOf('tags', 'array', 'text'),
    columnOf('unit price', 'decimal'),
    columnOf('we`ird\\name', 'integer'),
  ],
};
const LOCATION = 'body/operations/0/config/expression';

function compile(source: string) {
  const params = new Params();
  const compiled = compileExpression(source, RELATION, 's', params, LOCATION);
  return { ...compiled, values: params.values };
}

/** The message of the 422 an expression is refused with; it must name the expression's place in the request. */
function refusal(source: string): string {
  let caught: unknown;
  try {
    compile(source);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof AppError, `${source} was not refused`);
  assert.equal(caught.code, 'validation_failed');
  assert.equal(caught.extras.errors?.[0]?.location, LOCATION);
  assert.ok(caught.message.startsWith('operations/0/config/expression: '), caught.message);
  return caught.extras.errors![0]!.message;
}

/** Every {name:Type} placeholder of the SQL, by name. */
const placeholders = (sql: string) => [...sql.matchAll(/\{(\w+):[^}]+\}/g)].map((m) => m[1]!);

test('expressions compile to typed SQL over the relation\'s qualified columns', () => {
  const cases: Array<[string, string]> = [
    ['qty + 1', 'integer'],
    ['qty * price', 'decimal'],
    ['qty / 2', 'decimal'],
    ['-qty % 3', 'integer'],
    ['qty > 1', 'boolean'],
    ['not paid and qty >= 2 or isNull(price)', 'boolean'],
    ["concat(name, ' ', qty)", 'text'],
    ['lower(region)', 'text'],
    ['coalesce(qty, price)', 'decimal'],
    ['coalesce(qty, 0)', 'integer'],
    ["if(paid, 'y', 'n')", 'text'],
    ['year(day) + month(at)', 'integer'],
    ["dateDiff('day', day, at)", 'integer'],
    ['length(tags)', 'integer'],
    ['"unit price" * qty', 'decimal'],
    ["day < '2024-02-01'", 'boolean'],
    ['null', 'text'],
  ];
  for (const [source, type] of cases) assert.equal(compile(source).type, type, source);
  assert.equal(compile('qty').sql, 's.`qty`');
  assert.equal(compile('"unit price"').sql, 's.`unit price`');
  // Names and keywords are case-insensitive, columns are not.
  assert.equal(compile('ROUND(price) + Abs(qty)').type, 'integer');
  assert.equal(compile('TRUE AND NOT False').type, 'boolean');
});

test('unknown columns and functions are refused, naming what is available', () => {
  assert.match(refusal('qty + nope'), /^unknown column "nope" \(available: "qty", "price", "name", /);
  assert.match(refusal('QTY'), /unknown column "QTY"/);
  assert.match(refusal('"unit  price"'), /unknown column "unit  price"/);
  assert.match(refusal('""'), /unknown column ""/);
  assert.match(refusal('frobnicate(qty)'), /^unknown function frobnicate\(\) \(available: abs, floor, .*datediff\)$/);
  // ClickHouse functions that are not in the language do not exist for it.
  assert.match(refusal('sleep(3)'), /unknown function sleep\(\)/);
  assert.match(refusal('file(\'/etc/passwd\')'), /unknown function file\(\)/);
  assert.match(refusal('toString(qty)'), /unknown function tostring\(\)/);
});

test('type errors are refused with a message saying what was needed', () => {
  assert.match(refusal("'a' * 2"), /^"\*" needs numbers on both sides \(use concat\(\) for text\)$/);
  assert.match(refusal("name + 1"), /"\+" needs numbers on both sides/);
  assert.match(refusal('not 5'), /^"not" needs a condition$/);
  assert.match(refusal('-name'), /^"-" needs a number$/);
  assert.match(refusal('qty and paid'), /^"and" needs conditions on both sides$/);
  assert.match(refusal('name = 5'), /^cannot compare text with integer$/);
  assert.match(refusal("qty > 'five'"), /^cannot compare integer with text$/);
  assert.match(refusal('day > 5'), /^cannot compare date with integer$/);
  assert.match(refusal("day > 'next tuesday'"), /^'next tuesday' is not a date$/);
  assert.match(refusal('paid = 1'), /^cannot compare boolean with integer$/);
  assert.match(refusal('if(qty, 1, 2)'), /^if\(condition, then, else\) takes a condition and two values$/);
  assert.match(refusal("if(paid, 1, 'one')"), /^if\(\) needs arguments of one type$/);
  assert.match(refusal('coalesce(name, 0)'), /^coalesce\(\) needs arguments of one type$/);
  assert.match(refusal('coalesce(qty)'), /takes at least two arguments/);
  assert.match(refusal("sqrt('x')"), /^sqrt\(number\) takes one number$/);
  assert.match(refusal('round(price, 1, 2)'), /^round\(number\[, digits\]\) takes one or two numbers$/);
  assert.match(refusal('least(name, qty)'), /^least\(\) takes two or more numbers$/);
  assert.match(refusal('year(qty)'), /^year\(date\) takes one date or datetime$/);
  assert.match(refusal("substring(name, 'a')"), /^substring\(text, start\[, length\]\)/);
  assert.match(refusal('lower(name, name)'), /^lower\(text\) takes one argument$/);
});

test('syntax errors name the character where they are', () => {
  assert.equal(refusal("concat(name, 'abc)"), "unclosed ' at character 14");
  assert.equal(refusal('"unit price * 2'), 'unclosed " at character 1');
  // A doubled quote inside a literal is not its end.
  assert.equal(refusal("'it''s"), "unclosed ' at character 1");
  assert.equal(refusal('qty 2'), 'unexpected "2" at character 5');
  assert.equal(refusal('qty + 1)'), 'unexpected ")" at character 8');
  assert.equal(refusal('price price'), 'unexpected "price" at character 7');
  assert.equal(refusal('qty > 1 > 0'), 'unexpected ">" at character 9');
  assert.equal(refusal('qty +'), 'the expression ends too early at character 6');
  assert.equal(refusal('abs(qty'), 'expected ")" at character 8');
  assert.equal(refusal('qty; DROP TABLE x'), 'unexpected ";" at character 4');
  assert.equal(refusal('system.tables'), 'unexpected "." at character 7');
  assert.equal(refusal('`qty`'), 'unexpected "`" at character 1');
  // "--" starts no comment: it is two minus signs, and "comment" a column name.
  assert.match(refusal('qty -- comment'), /^unknown column "comment"/);
});

test('nesting and length are bounded', () => {
  const parens = (n: number) => `${'('.repeat(n)}qty${')'.repeat(n)}`;
  const calls = (n: number) => `${'abs('.repeat(n)}qty${')'.repeat(n)}`;
  // 40 levels compile; 41 do not, however the nesting is written.
  assert.equal(compile(parens(40)).type, 'integer');
  assert.equal(compile(calls(40)).type, 'integer');
  assert.equal(compile(`${'-'.repeat(40)}qty`).type, 'integer');
  assert.equal(compile(`${'not '.repeat(40)}paid`).type, 'boolean');
  for (const deep of [parens(41), calls(41), `${'-'.repeat(41)}qty`, `${'not '.repeat(41)}paid`]) {
    assert.match(refusal(deep), /^the expression nests more than 40 levels$/);
  }
  // Long expressions are bounded by their number of tokens too (the engine's parser nests flat chains).
  assert.match(refusal(parens(900)), /^an expression has at most 300 terms and operators$/);
  assert.match(refusal(`qty + ${'1'.repeat(2000)}`), /^an expression is at most 2000 characters$/);
});

test('dateDiff takes one unit of a fixed list, written as a literal', () => {
  for (const unit of ['second', 'minute', 'hour', 'day', 'week', 'month', 'year']) {
    const compiled = compile(`dateDiff('${unit}', day, at)`);
    assert.equal(compiled.sql, `dateDiff('${unit}', s.\`day\`, s.\`at\`)`);
  }
  const message = "dateDiff(unit, from, to) takes one of 'second', 'minute', 'hour', 'day', 'week', 'month', 'year' and two dates";
  assert.equal(refusal("dateDiff('fortnight', day, at)"), message);
  assert.equal(refusal("dateDiff('Day', day, at)"), message);
  assert.equal(refusal("dateDiff('day''); DROP TABLE x; --', day, at)"), message);
  assert.equal(refusal('dateDiff(name, day, at)'), message);
  assert.equal(refusal("dateDiff('day', day)"), message);
  assert.equal(refusal("dateDiff('day', day, qty)"), message);
});

test('every literal is a bound parameter: the SQL never contains a value the client wrote', () => {
  const cases: Array<[source: string, literal: unknown, forbidden: string[]]> = [
    ["concat(name, 'it''s')", "it's", ["it's", "it''s"]],
    ["concat(name, 'x''); DROP TABLE y; --')", "x'); DROP TABLE y; --", ['DROP', ';']],
    // A backslash escapes nothing: the doubled quote after it is a quote inside the same literal.
    ["name = 'a\\'' OR 1=1 --'", "a\\' OR 1=1 --", ['OR 1=1']],
    ["concat(name, '{p1:String}')", '{p1:String}', []],
    ["concat('\"qty\"', name)", '"qty"', ['"qty"']],
    ['qty * 12345', 12345, ['12345']],
    ['price > 0.75', 0.75, ['0.75']],
    ['qty + 1e3', 1000, ['1e3', '1000']],
    ['paid = true', true, ['true', 'TRUE']],
    ["day < '2024-02-01'", '2024-02-01', ['2024']],
    ["at >= '2024-02-01T10:00:00Z'", '2024-02-01 10:00:00.000', ['2024']],
  ];
  for (const [source, literal, forbidden] of cases) {
    const { sql, values } = compile(source);
    assert.ok(Object.values(values).some((v) => v === literal), `${source}: ${JSON.stringify(literal)} not among ${JSON.stringify(values)}`);
    for (const text of forbidden) assert.ok(!sql.includes(text), `${source}: the SQL ${sql} contains ${text}`);
    // Every placeholder of the SQL is bound.
    for (const name of placeholders(sql)) assert.ok(name in values, `${source}: {${name}} is not bound`);
  }
  // '{p1:String}' is a value, not a placeholder: the SQL holds only the placeholder the compiler made.
  assert.deepEqual(placeholders(compile("concat(name, '{p1:String}')").sql), ['p0']);
  // The attempt written without doubling the quote is not a literal followed by SQL: ";" is no token at all.
  assert.equal(refusal("'x'); DROP TABLE y; --'"), 'unexpected ";" at character 5');
});

test('column names are quoted as identifiers, never spliced as SQL', () => {
  assert.equal(compile('"we`ird\\name" + 1').sql, '(s.`we\\`ird\\\\name` + {p0:Int64})');
  assert.match(refusal('"qty` + 1; --"'), /unknown column "qty` \+ 1; --"/);
  // A doubled quote in a quoted name stands for a quote in the name.
  assert.match(refusal('"say ""hi"""'), /unknown column "say "hi""/);
});

// ---------------------------------------------------------------------------------------------------------------
// Through the API, over real rows
// ---------------------------------------------------------------------------------------------------------------

const API = '/api/v1';

interface Item {
  item: string | null;
  qty: number | null;
  'unit price': number | null;
  discount: number | null;
  reading: string | null;
  placed: string | null;
  shipped: string | null;
  at: string | null;
  done: string | null;
  paid: boolean | null;
  tags: string[] | null;
}

// Inferred as: item text, qty integer, unit price and discount decimal, reading text, placed and shipped date,
// at and done datetime, paid boolean, tags array of text (asserted below). No .5 ties, so rounding rules agree.
const ITEMS: Item[] = [
  { item: 'Bolt', qty: 3, 'unit price': 2.4, discount: 0.1, reading: '12.5', placed: '2024-01-05', shipped: '2024-03-01', at: '2024-01-05T10:55:00Z', done: '2024-01-05T11:05:00Z', paid: true, tags: ['a', 'b'] },
  { item: 'Nut', qty: -7, 'unit price': 10.75, discount: 0, reading: 'abc', placed: '2023-12-31', shipped: '2024-01-01', at: '2023-12-31T23:00:00Z', done: '2024-01-02T01:30:00Z', paid: false, tags: [] },
  { item: 'Washer Large', qty: 0, 'unit price': 0.3, discount: null, reading: '7', placed: '2024-02-29', shipped: '2024-02-29', at: '2024-02-29T00:00:00Z', done: '2024-02-29T23:59:59Z', paid: null, tags: ['c'] },
  { item: 'Émile', qty: null, 'unit price': 99.99, discount: 0.25, reading: '-3e2', placed: '2024-01-28', shipped: '2025-02-01', at: '2024-06-15T18:45:00Z', done: '2024-06-16T18:44:00Z', paid: true, tags: ['x', 'y', 'z'] },
  { item: null, qty: 12, 'unit price': null, discount: 0.5, reading: null, placed: null, shipped: null, at: null, done: null, paid: false, tags: null },
];

type Value = number | string | boolean | null;
type Case = [expression: string, type: string, expected: (row: Item) => Value];

/** SQL null semantics for arithmetic: any null operand gives null. Non-finite results (x/0, sqrt(-1)) read as null. */
const lift = (fn: (...args: number[]) => number) => (...args: Array<number | null>): number | null => {
  if (args.some((a) => a === null)) return null;
  const value = fn(...(args as number[]));
  return Number.isFinite(value) ? value : null;
};
/** SQL three-valued logic. */
const and3 = (a: boolean | null, b: boolean | null) => (a === false || b === false ? false : a === null || b === null ? null : true);
const or3 = (a: boolean | null, b: boolean | null) => (a === true || b === true ? true : a === null || b === null ? null : false);
const not3 = (a: boolean | null) => (a === null ? null : !a);
const cmp = <T>(a: T | null, b: T | null, test: (a: T, b: T) => boolean): boolean | null => (a === null || b === null ? null : test(a, b));
/** least/greatest skip nulls (null only when every argument is null), as coalesce does. */
const pick = (fn: (...n: number[]) => number) => (...args: Array<number | null>) => {
  const present = args.filter((a): a is number => a !== null);
  return present.length === 0 ? null : fn(...present);
};
const price = (r: Item) => r['unit price'];
const ms = (iso: string) => Date.parse(iso.length === 10 ? `${iso}T00:00:00Z` : iso);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const utc = (iso: string | null) => (iso === null ? null : new Date(ms(iso)));
const chars = (text: string) => [...text];
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Numbers compare with a relative tolerance (floating point); everything else exactly. */
function assertValues(actual: unknown[], expected: Value[], label: string) {
  assert.equal(actual.length, expected.length, label);
  actual.forEach((value, i) => {
    const want = expected[i];
    if (typeof want === 'number' && typeof value === 'number') {
      assert.ok(Math.abs(value - want) <= 1e-9 * Math.max(1, Math.abs(want)), `${label}, row ${i + 1}: ${value} is not ${want}`);
    } else {
      assert.deepEqual(value, want, `${label}, row ${i + 1}`);
    }
  });
}

async function setupItems(t: TestContext) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name: 'Items', rows: ITEMS } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return { app, ws, source: res.body.data.id as string, schema: res.body.data.schemaEntries as Array<{ field: string; type: string; subtype: string | null }> };
}

/** Creates a dataset deriving one column per expression (named e0, e1, ...). */
function createDerived(app: TestApp, ws: string, source: string, expressions: string[]) {
  return app.call({
    method: 'POST',
    url: `${API}/workspaces/${ws}/datasets`,
    body: {
      name: 'Derived',
      sources: [{ id: source }],
      operations: expressions.map((expression, i) => ({ sourceId: source, config: { type: 'derive', column: `e${i}`, expression } })),
    },
  });
}

/**
 * Derives every case's column in one dataset, then checks each column's values against the case's JS function
 * and its type in the dataset schema.
 */
async function checkCases(t: TestContext, cases: Case[]) {
  const { app, ws, source } = await setupItems(t);
  const created = await createDerived(app, ws, source, cases.map(([expression]) => expression));
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.id;
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${id}/records` });
  assert.equal(records.status, 200, JSON.stringify(records.body));
  const schema = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${id}/schema` });
  const types = new Map(schema.body.data.map((e: { field: string; type: string }) => [e.field, e.type]));
  cases.forEach(([expression, type, expected], i) => {
    const column = `e${i}`;
    assertValues(records.body.data.map((row: Record<string, unknown>) => row[column]), ITEMS.map(expected), expression);
    assert.equal(types.get(column), type, `type of ${expression}`);
  });
}

/**
 * An expression the compiler accepts must be readable: a 422 when the dataset is written is fine, a 500 on every
 * later read is not. Answers the values, or null when the definition was refused.
 */
async function refusedOrReadable(t: TestContext, expression: string): Promise<unknown[] | null> {
  const { app, ws, source } = await setupItems(t);
  const created = await createDerived(app, ws, source, [expression]);
  if (created.status === 422) return null;
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/records` });
  assert.equal(records.status, 200, `accepted at create, but reading answers ${records.status}: ${JSON.stringify(records.body)}`);
  return records.body.data.map((row: Record<string, unknown>) => row.e0);
}

test('the item rows have the column types the cases rely on', async (t) => {
  const { schema } = await setupItems(t);
  assert.deepEqual(Object.fromEntries(schema.map((e) => [e.field, e.type === 'array' ? `array of ${e.subtype}` : e.type])), {
    item: 'text', qty: 'integer', 'unit price': 'decimal', discount: 'decimal', reading: 'text', placed: 'date', shipped: 'date',
    at: 'datetime', done: 'datetime', paid: 'boolean', tags: 'array of text',
  });
});

test('derived arithmetic over integers, decimals and nulls', async (t) => {
  await checkCases(t, [
    ['qty + 1', 'integer', (r) => lift((q) => q + 1)(r.qty)],
    ['qty - 10', 'integer', (r) => lift((q) => q - 10)(r.qty)],
    ['-qty', 'integer', (r) => lift((q) => -q)(r.qty)],
    ['qty * "unit price"', 'decimal', (r) => lift((q, p) => q * p)(r.qty, price(r))],
    ['qty / 4', 'decimal', (r) => lift((q) => q / 4)(r.qty)],
    ['qty % 3', 'integer', (r) => lift((q) => q % 3)(r.qty)],
    ['"unit price" * (1 - discount)', 'decimal', (r) => lift((p, d) => p * (1 - d))(price(r), r.discount)],
    ['qty * 2 + "unit price" / 2', 'decimal', (r) => lift((q, p) => q * 2 + p / 2)(r.qty, price(r))],
    ['(qty + 1) * 2', 'integer', (r) => lift((q) => (q + 1) * 2)(r.qty)],
    ['"unit price" / qty', 'decimal', (r) => lift((p, q) => p / q)(price(r), r.qty)],
    ['qty + null', 'integer', () => null],
  ]);
});

test('derived numeric functions', async (t) => {
  await checkCases(t, [
    ['round("unit price")', 'integer', (r) => lift(Math.round)(price(r))],
    ['round("unit price" / 3, 2)', 'decimal', (r) => lift((p) => Math.round((p / 3) * 100) / 100)(price(r))],
    ['floor("unit price")', 'decimal', (r) => lift(Math.floor)(price(r))],
    ['ceil("unit price")', 'decimal', (r) => lift(Math.ceil)(price(r))],
    ['abs(qty)', 'integer', (r) => lift(Math.abs)(r.qty)],
    ['sqrt(abs(qty))', 'decimal', (r) => lift((q) => Math.sqrt(Math.abs(q)))(r.qty)],
    ['sqrt(qty)', 'decimal', (r) => lift(Math.sqrt)(r.qty)],
    ['pow(qty, 2)', 'decimal', (r) => lift((q) => q ** 2)(r.qty)],
    ['pow(2, qty)', 'decimal', (r) => lift((q) => 2 ** q)(r.qty)],
    ['least(qty, 5)', 'integer', (r) => pick(Math.min)(r.qty, 5)],
    ['greatest("unit price", discount * 100, qty)', 'decimal', (r) => pick(Math.max)(price(r), lift((d) => d * 100)(r.discount), r.qty)],
    ['coalesce(discount, 0)', 'decimal', (r) => r.discount ?? 0],
    ['coalesce(qty, "unit price", -1)', 'decimal', (r) => r.qty ?? price(r) ?? -1],
    ["if(qty > 2, 'many', 'few')", 'text', (r) => (r.qty !== null && r.qty > 2 ? 'many' : 'few')],
    ['if(paid, "unit price", 0)', 'decimal', (r) => (r.paid === true ? price(r) : 0)],
    ['isNull(discount)', 'boolean', (r) => r.discount === null],
  ]);
});

test('derived text functions', async (t) => {
  await checkCases(t, [
    ['lower(item)', 'text', (r) => r.item?.toLowerCase() ?? null],
    ['upper(item)', 'text', (r) => r.item?.toUpperCase() ?? null],
    ["trim(concat('  ', item, '  '))", 'text', (r) => r.item ?? ''],
    ['length(item)', 'integer', (r) => (r.item === null ? null : chars(r.item).length)],
    ['length(tags)', 'integer', (r) => (r.tags ?? []).length],
    // concat reads a missing value as empty text.
    ["concat(item, ' x', qty)", 'text', (r) => `${r.item ?? ''} x${r.qty ?? ''}`],
    ['substring(item, 2, 3)', 'text', (r) => (r.item === null ? null : chars(r.item).slice(1, 4).join(''))],
    ['substring(item, 3)', 'text', (r) => (r.item === null ? null : chars(r.item).slice(2).join(''))],
    ['toNumber(reading)', 'decimal', (r) => (r.reading !== null && NUMBER.test(r.reading) ? Number(r.reading) : null)],
    ['toNumber(reading) * 2', 'decimal', (r) => (r.reading !== null && NUMBER.test(r.reading) ? Number(r.reading) * 2 : null)],
    ['toText(qty)', 'text', (r) => (r.qty === null ? null : String(r.qty))],
    ['toText("unit price")', 'text', (r) => (price(r) === null ? null : String(price(r)))],
    ["concat(toText(qty), '/', upper(item))", 'text', (r) => `${r.qty ?? ''}/${r.item?.toUpperCase() ?? ''}`],
  ]);
});

test('derived date functions', async (t) => {
  const part = (iso: string | null, fn: (d: Date) => number) => (iso === null ? null : fn(utc(iso)!));
  // dateDiff counts the unit boundaries crossed between the two instants (10:55 to 11:05 is 1 hour), as ClickHouse does.
  const crossed = (from: string | null, to: string | null, unitIndex: (d: Date) => number) =>
    from === null || to === null ? null : unitIndex(utc(to)!) - unitIndex(utc(from)!);
  await checkCases(t, [
    ['year(placed)', 'integer', (r) => part(r.placed, (d) => d.getUTCFullYear())],
    ['month(placed)', 'integer', (r) => part(r.placed, (d) => d.getUTCMonth() + 1)],
    ['day(placed)', 'integer', (r) => part(r.placed, (d) => d.getUTCDate())],
    ['hour(at)', 'integer', (r) => part(r.at, (d) => d.getUTCHours())],
    ['year(at)', 'integer', (r) => part(r.at, (d) => d.getUTCFullYear())],
    // ISO weekday: Monday is 1, Sunday is 7.
    ['dayOfWeek(placed)', 'integer', (r) => part(r.placed, (d) => ((d.getUTCDay() + 6) % 7) + 1)],
    ["dateDiff('day', placed, shipped)", 'integer', (r) => crossed(r.placed, r.shipped, (d) => Math.floor(d.getTime() / DAY))],
    ["dateDiff('month', placed, shipped)", 'integer', (r) => crossed(r.placed, r.shipped, (d) => d.getUTCFullYear() * 12 + d.getUTCMonth())],
    ["dateDiff('year', placed, shipped)", 'integer', (r) => crossed(r.placed, r.shipped, (d) => d.getUTCFullYear())],
    ["dateDiff('hour', at, done)", 'integer', (r) => crossed(r.at, r.done, (d) => Math.floor(d.getTime() / HOUR))],
    ["dateDiff('minute', at, done)", 'integer', (r) => crossed(r.at, r.done, (d) => Math.floor(d.getTime() / 60_000))],
    ["dateDiff('day', placed, at)", 'integer', (r) => crossed(r.placed, r.at, (d) => Math.floor(d.getTime() / DAY))],
  ]);
});

test('comparisons and logic produce booleans (true/false, not 1/0), null when unknown', async (t) => {
  await checkCases(t, [
    ['qty > 2', 'boolean', (r) => cmp(r.qty, 2, (a, b) => a > b)],
    ['qty <= 0', 'boolean', (r) => cmp(r.qty, 0, (a, b) => a <= b)],
    ['"unit price" >= 10', 'boolean', (r) => cmp(price(r), 10, (a, b) => a >= b)],
    ["item = 'Nut'", 'boolean', (r) => cmp(r.item, 'Nut', (a, b) => a === b)],
    ["item != 'Nut'", 'boolean', (r) => cmp(r.item, 'Nut', (a, b) => a !== b)],
    ["item <> 'Bolt'", 'boolean', (r) => cmp(r.item, 'Bolt', (a, b) => a !== b)],
    ['qty = "unit price"', 'boolean', (r) => cmp(r.qty, price(r), (a, b) => a === b)],
    ["placed < '2024-02-01'", 'boolean', (r) => cmp(r.placed, '2024-02-01', (a, b) => ms(a) < ms(b))],
    ["at >= '2024-01-05T11:00:00Z'", 'boolean', (r) => cmp(r.at, '2024-01-05T11:00:00Z', (a, b) => ms(a) >= ms(b))],
    ['shipped > placed', 'boolean', (r) => cmp(r.shipped, r.placed, (a, b) => ms(a) > ms(b))],
    ['paid = true', 'boolean', (r) => cmp(r.paid, true, (a, b) => a === b)],
    ['not paid', 'boolean', (r) => not3(r.paid)],
    ['(qty > 0 and paid) or isNull(qty)', 'boolean', (r) => or3(and3(cmp(r.qty, 0, (a, b) => a > b), r.paid), r.qty === null)],
    ['paid or qty > 5', 'boolean', (r) => or3(r.paid, cmp(r.qty, 5, (a, b) => a > b))],
  ]);
});

test('literals arrive intact, and SQL written into an expression is refused or stays text', async (t) => {
  const { app, ws, source } = await setupItems(t);
  const created = await createDerived(app, ws, source, ["'it''s'", "'x''); DROP TABLE y; --'", "concat(item, ' \\ ', 'a\\''b')", "'{p0:String}'"]);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/records` });
  assert.equal(records.status, 200, JSON.stringify(records.body));
  for (const [i, row] of (records.body.data as Array<Record<string, unknown>>).entries()) {
    assert.equal(row.e0, "it's");
    assert.equal(row.e1, "x'); DROP TABLE y; --");
    assert.equal(row.e2, `${ITEMS[i]!.item ?? ''} \\ a\\'b`);
    assert.equal(row.e3, '{p0:String}');
  }
  const attempt = await createDerived(app, ws, source, ["'x'); DROP TABLE y; --'"]);
  assert.equal(attempt.status, 422, JSON.stringify(attempt.body));
  assert.equal(attempt.body.errors[0].location, 'body/operations/0/config/expression');
  assert.match(attempt.body.detail, /unexpected ";" at character 5/);
  const unknown = await createDerived(app, ws, source, ['qty + 1', 'e0 * 2', 'e5']);
  assert.equal(unknown.status, 422, JSON.stringify(unknown.body));
  assert.equal(unknown.body.errors[0].location, 'body/operations/2/config/expression');
  assert.match(unknown.body.detail, /unknown column "e5" \(available: .*"e0", "e1"\)/);
});

test('a quoted column name with a space, and a derived column later steps can use', async (t) => {
  await checkCases(t, [
    ['"unit price" * qty', 'decimal', (r) => lift((p, q) => p * q)(price(r), r.qty)],
    ['round(coalesce(e0, 0) * 100)', 'integer', (r) => Math.round((lift((p, q) => p * q)(price(r), r.qty) ?? 0) * 100)],
    ['e1 > 0', 'boolean', (r) => Math.round((lift((p, q) => p * q)(price(r), r.qty) ?? 0) * 100) > 0],
  ]);
});

// Expressions the engine could fail on while reading. Each must be refused at create (422) or read correctly:
// never stored to answer 500 on every later read.

test('integer % by a zero divisor', async (t) => {
  const values = await refusedOrReadable(t, '10 % qty');
  // "/" by zero reads as null; "%" should too.
  if (values !== null) assertValues(values, ITEMS.map((r) => (r.qty === null || r.qty === 0 ? null : 10 % r.qty)), '10 % qty');
});

test('hour() of a date column', async (t) => {
  const values = await refusedOrReadable(t, 'hour(placed)');
  if (values !== null) assertValues(values, ITEMS.map((r) => (r.placed === null ? null : 0)), 'hour(placed)');
});

test('substring() from position 0', async (t) => {
  await refusedOrReadable(t, 'substring(item, 0)');
});

test('a long flat chain of additions within the length limit', async (t) => {
  const terms = 200;
  const values = await refusedOrReadable(t, Array.from({ length: terms }, () => 'qty').join(' + '));
  if (values !== null) assertValues(values, ITEMS.map((r) => (r.qty === null ? null : r.qty * terms)), 'chain');
});

test('round() takes halves away from zero', async (t) => {
  const { app, ws, source } = await setupItems(t);
  const created = await createDerived(app, ws, source, ['round(2.5)', 'round(-2.5)', 'round(0.125, 2)', 'round(3.4)']);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const records = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${created.body.data.id}/records?limit=1` });
  const [row] = records.body.data;
  assert.deepEqual([row.e0, row.e1, row.e2, row.e3], [3, -3, 0.13, 3]);
});

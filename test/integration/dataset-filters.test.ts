import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { COMPARISON_OPERATORS } from '../../schemas/datasets.js';
import { type TestApp, buildTestApp } from '../helpers/app.js';

/**
 * The `filter` operation of datasets, through the HTTP API: every ComparisonOperator of the spec, nested groups,
 * correctType, the 422s naming the place in the definition, and tenant isolation of the sources a dataset names.
 * Expected rows are computed here with plain predicates over ROWS, never copied from the service's output.
 */

const API = '/api/v1';

interface Row {
  ref: string;
  name: string | null;
  region: string | null;
  qty: number | null;
  price: number | null;
  day: string | null;
  at: string | null;
  tags: string[] | null;
  nums: number[] | null;
  paid: boolean | null;
}

// Inferred as: ref text, name text, region categorical, qty integer, price decimal, day date, at datetime,
// tags array of text, nums array of integers, paid boolean (asserted in the first test).
const ROWS: Row[] = [
  { ref: 'r1', name: 'Alpha Widget', region: 'north', qty: 3, price: 2.5, day: '2024-01-05', at: '2024-01-05T10:00:00Z', tags: ['a', 'b'], nums: [1, 2], paid: true },
  { ref: 'r2', name: 'beta gadget', region: 'south', qty: 0, price: 10, day: '2024-02-10', at: '2024-02-10T08:30:00Z', tags: [], nums: [3], paid: false },
  { ref: 'r3', name: 'GAMMA widget', region: 'north', qty: 7, price: null, day: null, at: null, tags: null, nums: [], paid: true },
  { ref: 'r4', name: 'Émile Zola', region: 'east', qty: 42, price: 99.99, day: '2023-12-31', at: '2023-12-31T23:59:59Z', tags: ['a', 'c', 'd'], nums: [2, 2, 9], paid: null },
  { ref: 'r5', name: '100% cotton', region: 'south', qty: null, price: 0.5, day: '2024-03-01', at: '2024-03-01T12:00:00Z', tags: ['c'], nums: null, paid: false },
  { ref: 'r6', name: null, region: null, qty: 12, price: 3, day: '2024-02-29', at: '2024-02-10T08:30:01Z', tags: ['b', 'c'], nums: [5], paid: true },
  { ref: 'r7', name: 'delta', region: 'north', qty: 5, price: 12.75, day: '2024-01-31', at: '2024-01-31T00:00:00Z', tags: ['a'], nums: [1, 2, 3, 4], paid: false },
  { ref: 'r8', name: 'Widgetry', region: 'east', qty: 42, price: 7, day: '2023-03-01', at: '2023-03-01T00:00:00Z', tags: ['d', 'a', 'b'], nums: [7], paid: true },
  { ref: 'r9', name: 'under_score', region: 'south', qty: 1, price: 100, day: '2024-06-15', at: '2024-06-15T18:45:00Z', tags: ['b'], nums: [], paid: false },
  { ref: 'r10', name: 'zeta', region: 'north', qty: 8, price: 1.25, day: '2024-02-10', at: '2024-02-10T08:29:59Z', tags: [], nums: [2], paid: true },
];

/** Arrays are stored as ClickHouse Arrays, which cannot be null: a null array is stored (and read) as []. */
const tagsOf = (row: Row) => row.tags ?? [];
const numsOf = (row: Row) => row.nums ?? [];
const ms = (iso: string) => Date.parse(iso);
const lower = (text: string) => text.toLowerCase();

type FilterSpec = { column: string; comparisonOperator: string; value?: unknown; correctType?: boolean };
type Group = { booleanOperator: 'AND' | 'OR'; filters: Array<FilterSpec | Group> };
type Case = [label: string, filter: FilterSpec, keep: (row: Row) => boolean];

const and = (...filters: Array<FilterSpec | Group>): Group => ({ booleanOperator: 'AND', filters });
const or = (...filters: Array<FilterSpec | Group>): Group => ({ booleanOperator: 'OR', filters });
const f = (column: string, comparisonOperator: string, value?: unknown, correctType?: boolean): FilterSpec => ({
  column,
  comparisonOperator,
  ...(value !== undefined && { value }),
  ...(correctType !== undefined && { correctType }),
});
const refs = (keep: (row: Row) => boolean) => ROWS.filter(keep).map((row) => row.ref);

async function fromData(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>, key?: string): Promise<string> {
  const res = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/sources/from-data`, body: { name, rows }, ...(key !== undefined && { key }) });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.data.id;
}

/** An app with ROWS as a source, and helpers to create a filtered dataset over it and read its refs. */
async function setup(t: TestContext) {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const source = await fromData(app, ws, 'Items', ROWS as unknown as Array<Record<string, unknown>>);
  const createFiltered = (filterGroup: Group, sourceId = source) =>
    app.call({
      method: 'POST',
      url: `${API}/workspaces/${ws}/datasets`,
      body: { name: 'Filtered', sources: [{ id: sourceId }], operations: [{ sourceId, config: { type: 'filter', filterGroup } }] },
    });
  const records = async (datasetId: string): Promise<Array<Record<string, unknown>>> => {
    const res = await app.call({ method: 'GET', url: `${API}/workspaces/${ws}/datasets/${datasetId}/records?limit=1000` });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };
  /** The refs of the rows a filter group keeps, in ingestion order (the records' default order). */
  const kept = async (filterGroup: Group): Promise<string[]> => {
    const res = await createFiltered(filterGroup);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return (await records(res.body.data.id)).map((row) => row.ref as string);
  };
  /** The problem document of a definition that must be refused. */
  const refused = async (filterGroup: Group) => {
    const res = await createFiltered(filterGroup);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    return res.body as { detail: string; errors: Array<{ location: string; message: string }> };
  };
  return { app, ws, source, createFiltered, records, kept, refused };
}

/** Runs each case as a subtest: the filter alone in an AND group must keep exactly the rows its predicate keeps. */
async function runCases(t: TestContext, kept: (group: Group) => Promise<string[]>, cases: Case[]) {
  for (const [label, filter, keep] of cases) {
    await t.test(label, async () => {
      const expected = refs(keep);
      // A case that keeps no row or every row would not show that the operator works.
      assert.ok(expected.length > 0 && expected.length < ROWS.length, `case "${label}" does not discriminate`);
      assert.deepEqual(await kept(and(filter)), expected);
    });
  }
}

const FILTER_AT = 'body/operations/0/config/filterGroup/filters/0';

test('the source has the column types the cases rely on', async (t) => {
  const { app, source } = await setup(t);
  const res = await app.call({ method: 'GET', url: `${API}/sources/${source}` });
  const types = Object.fromEntries(res.body.data.schemaEntries.map((e: { field: string; type: string; subtype: string | null }) => [e.field, e.type === 'array' ? `array of ${e.subtype}` : e.type]));
  assert.deepEqual(types, {
    ref: 'text', name: 'text', region: 'categorical', qty: 'integer', price: 'decimal', day: 'date', at: 'datetime',
    tags: 'array of text', nums: 'array of integer', paid: 'boolean',
  });
});

test('Equal to and Not Equal to: scalars, lists, null; not equal keeps rows without a value', async (t) => {
  const { kept } = await setup(t);
  await runCases(t, kept, [
    ['Equal to text', f('region', 'Equal to', 'north'), (r) => r.region === 'north'],
    ['Equal to integer', f('qty', 'Equal to', 42), (r) => r.qty === 42],
    ['Equal to decimal', f('price', 'Equal to', 99.99), (r) => r.price === 99.99],
    ['Equal to boolean', f('paid', 'Equal to', false), (r) => r.paid === false],
    ['Equal to date', f('day', 'Equal to', '2024-02-10'), (r) => r.day === '2024-02-10'],
    ['Equal to datetime (zone offset applied)', f('at', 'Equal to', '2024-01-05T12:00:00+02:00'), (r) => r.at !== null && ms(r.at) === ms('2024-01-05T10:00:00Z')],
    ['Equal to a list of text: any of them', f('region', 'Equal to', ['east', 'south']), (r) => r.region === 'east' || r.region === 'south'],
    ['Equal to a list of integers', f('qty', 'Equal to', [0, 7, 42]), (r) => r.qty !== null && [0, 7, 42].includes(r.qty)],
    ['Equal to a list of dates', f('day', 'Equal to', ['2024-01-05', '2023-12-31']), (r) => r.day === '2024-01-05' || r.day === '2023-12-31'],
    ['Equal to null: rows without a value', f('qty', 'Equal to', null), (r) => r.qty === null],
    ['Not Equal to text keeps null regions', f('region', 'Not Equal to', 'north'), (r) => r.region !== 'north'],
    ['Not Equal to integer keeps null quantities', f('qty', 'Not Equal to', 42), (r) => r.qty !== 42],
    ['Not Equal to boolean keeps null', f('paid', 'Not Equal to', true), (r) => r.paid !== true],
    ['Not Equal to a list keeps null', f('region', 'Not Equal to', ['north', 'south']), (r) => r.region !== 'north' && r.region !== 'south'],
    ['Not Equal to null: rows with a value', f('price', 'Not Equal to', null), (r) => r.price !== null],
  ]);
  await t.test('Equal to an empty list keeps nothing; Not Equal to it keeps everything', async () => {
    assert.deepEqual(await kept(and(f('region', 'Equal to', []))), []);
    assert.deepEqual(await kept(and(f('region', 'Not Equal to', []))), refs(() => true));
  });
});

test('text operators are case-insensitive and treat the value literally (no LIKE wildcards)', async (t) => {
  const { kept } = await setup(t);
  const has = (r: Row, needle: string) => r.name !== null && lower(r.name).includes(lower(needle));
  await runCases(t, kept, [
    ['Contains', f('name', 'Contains', 'WIDGET'), (r) => has(r, 'widget')],
    ['Contains a % sign literally', f('name', 'Contains', '%'), (r) => has(r, '%')],
    ['Contains an underscore literally', f('name', 'Contains', '_'), (r) => has(r, '_')],
    ['Contains on a categorical column', f('region', 'Contains', 'OUT'), (r) => r.region !== null && r.region.includes('out')],
    // Like Not Equal to, "does not contain" keeps rows without a value (r6 has no name).
    ['Does not contain keeps rows without a value', f('name', 'Does not contain', 'Widget'), (r) => !has(r, 'widget')],
    ['Starts with', f('name', 'Starts with', 'widg'), (r) => r.name !== null && lower(r.name).startsWith('widg')],
    ['Starts with a non-ASCII letter in the other case', f('name', 'Starts with', 'émile'), (r) => r.name !== null && lower(r.name).startsWith('émile')],
    ['Ends with', f('name', 'Ends with', 'GET'), (r) => r.name !== null && lower(r.name).endsWith('get')],
  ]);
});

test('Is Empty and Is not Empty on text, numbers, dates, booleans and arrays', async (t) => {
  const { kept } = await setup(t);
  await runCases(t, kept, [
    ['Is Empty on text', f('name', 'Is Empty'), (r) => r.name === null],
    ['Is not Empty on text', f('name', 'Is not Empty'), (r) => r.name !== null],
    ['Is Empty on a categorical column', f('region', 'Is Empty'), (r) => r.region === null],
    // 0 is a value, not an empty cell.
    ['Is Empty on integers (0 is not empty)', f('qty', 'Is Empty'), (r) => r.qty === null],
    ['Is not Empty on integers', f('qty', 'Is not Empty'), (r) => r.qty !== null],
    ['Is Empty on decimals', f('price', 'Is Empty'), (r) => r.price === null],
    ['Is Empty on dates', f('day', 'Is Empty'), (r) => r.day === null],
    ['Is not Empty on datetimes', f('at', 'Is not Empty'), (r) => r.at !== null],
    ['Is Empty on booleans (false is not empty)', f('paid', 'Is Empty'), (r) => r.paid === null],
    ['Is Empty on an array of text: [] and missing', f('tags', 'Is Empty'), (r) => tagsOf(r).length === 0],
    ['Is not Empty on an array of text', f('tags', 'Is not Empty'), (r) => tagsOf(r).length > 0],
    ['Is Empty on an array of numbers', f('nums', 'Is Empty'), (r) => numsOf(r).length === 0],
  ]);
});

test('ordering operators on numbers, text and dates', async (t) => {
  const { kept } = await setup(t);
  const num = (v: number | null, test: (n: number) => boolean) => v !== null && test(v);
  const txt = (v: string | null, test: (s: string) => boolean) => v !== null && test(v);
  await runCases(t, kept, [
    ['Less than on integers', f('qty', 'Less than', 5), (r) => num(r.qty, (n) => n < 5)],
    ['Greater than on integers', f('qty', 'Greater than', 7), (r) => num(r.qty, (n) => n > 7)],
    ['Less than or equal to on integers', f('qty', 'Less than or equal to', 5), (r) => num(r.qty, (n) => n <= 5)],
    ['Greater than or equal to on integers', f('qty', 'Greater than or equal to', 42), (r) => num(r.qty, (n) => n >= 42)],
    ['a fractional bound on an integer column', f('qty', 'Less than', 2.5), (r) => num(r.qty, (n) => n < 2.5)],
    ['Less than on decimals', f('price', 'Less than', 2.5), (r) => num(r.price, (n) => n < 2.5)],
    ['Greater than or equal to on decimals', f('price', 'Greater than or equal to', 12.75), (r) => num(r.price, (n) => n >= 12.75)],
    ['Less than on text (byte order: upper case first)', f('name', 'Less than', 'beta'), (r) => txt(r.name, (s) => Buffer.compare(Buffer.from(s), Buffer.from('beta')) < 0)],
    ['Greater than on text', f('name', 'Greater than', 'delta'), (r) => txt(r.name, (s) => Buffer.compare(Buffer.from(s), Buffer.from('delta')) > 0)],
    ['Less than or equal to on a categorical column', f('region', 'Less than or equal to', 'north'), (r) => txt(r.region, (s) => s <= 'north')],
    ['Less than on dates', f('day', 'Less than', '2024-02-10'), (r) => txt(r.day, (d) => d < '2024-02-10')],
    ['Greater than on dates', f('day', 'Greater than', '2024-02-10'), (r) => txt(r.day, (d) => d > '2024-02-10')],
    ['Less than or equal to on dates', f('day', 'Less than or equal to', '2024-02-10'), (r) => txt(r.day, (d) => d <= '2024-02-10')],
    ['Greater than or equal to on dates', f('day', 'Greater than or equal to', '2024-02-29'), (r) => txt(r.day, (d) => d >= '2024-02-29')],
    ['Greater than on datetimes', f('at', 'Greater than', '2024-02-10T08:30:00Z'), (r) => txt(r.at, (a) => ms(a) > ms('2024-02-10T08:30:00Z'))],
    ['Less than or equal to on datetimes', f('at', 'Less than or equal to', '2024-02-10T08:30:00Z'), (r) => txt(r.at, (a) => ms(a) <= ms('2024-02-10T08:30:00Z'))],
  ]);
});

test('Before and After on date and datetime columns', async (t) => {
  const { kept } = await setup(t);
  const on = (v: string | null, test: (t: number) => boolean) => v !== null && test(ms(v));
  await runCases(t, kept, [
    ['Before on a date column', f('day', 'Before', '2024-01-31'), (r) => on(r.day, (d) => d < ms('2024-01-31'))],
    ['After on a date column', f('day', 'After', '2024-02-10'), (r) => on(r.day, (d) => d > ms('2024-02-10'))],
    ['Before on a datetime column, to the second', f('at', 'Before', '2024-02-10T08:30:00Z'), (r) => on(r.at, (a) => a < ms('2024-02-10T08:30:00Z'))],
    ['After on a datetime column, to the second', f('at', 'After', '2024-02-10T08:30:00Z'), (r) => on(r.at, (a) => a > ms('2024-02-10T08:30:00Z'))],
    ['After on a datetime column with a zone offset', f('at', 'After', '2024-03-01T13:00:00+02:00'), (r) => on(r.at, (a) => a > ms('2024-03-01T11:00:00Z'))],
    ['Before on a datetime column given a date (its midnight, UTC)', f('at', 'Before', '2024-01-31'), (r) => on(r.at, (a) => a < ms('2024-01-31T00:00:00Z'))],
  ]);
});

test('array membership operators on arrays of text and of numbers', async (t) => {
  const { kept } = await setup(t);
  const some = (row: string[], values: string[]) => values.some((v) => row.includes(v));
  const every = (row: string[], values: string[]) => values.every((v) => row.includes(v));
  await runCases(t, kept, [
    ['Array contains', f('tags', 'Array contains', 'a'), (r) => tagsOf(r).includes('a')],
    ['Array contains any', f('tags', 'Array contains any', ['d', 'zzz']), (r) => some(tagsOf(r), ['d', 'zzz'])],
    ['Array contains all', f('tags', 'Array contains all', ['a', 'b']), (r) => every(tagsOf(r), ['a', 'b'])],
    ['Array does not contain', f('tags', 'Array does not contain', 'a'), (r) => !tagsOf(r).includes('a')],
    ['Array does not contain any', f('tags', 'Array does not contain any', ['a', 'c']), (r) => !some(tagsOf(r), ['a', 'c'])],
    ['Array does not contain all', f('tags', 'Array does not contain all', ['a', 'b']), (r) => !every(tagsOf(r), ['a', 'b'])],
    ['Array contains a number', f('nums', 'Array contains', 2), (r) => numsOf(r).includes(2)],
    ['Array contains any of numbers', f('nums', 'Array contains any', [5, 9]), (r) => numsOf(r).some((n) => n === 5 || n === 9)],
    ['Array contains all of numbers', f('nums', 'Array contains all', [1, 2]), (r) => [1, 2].every((n) => numsOf(r).includes(n))],
  ]);
  await t.test('element matching is exact: "A" does not match "a"', async () => {
    assert.deepEqual(await kept(and(f('tags', 'Array contains', 'A'))), []);
  });
  await t.test('an empty list: contains any keeps nothing, contains all keeps everything', async () => {
    assert.deepEqual(await kept(and(f('tags', 'Array contains any', []))), []);
    assert.deepEqual(await kept(and(f('tags', 'Array contains all', []))), refs(() => true));
  });
});

test('array size operators', async (t) => {
  const { kept } = await setup(t);
  await runCases(t, kept, [
    ['Array size equal to', f('tags', 'Array size equal to', 2), (r) => tagsOf(r).length === 2],
    ['Array size equal to 0 (missing arrays count as empty)', f('tags', 'Array size equal to', 0), (r) => tagsOf(r).length === 0],
    ['Array size greater than', f('nums', 'Array size greater than', 1), (r) => numsOf(r).length > 1],
    ['Array size less than', f('tags', 'Array size less than', 2), (r) => tagsOf(r).length < 2],
  ]);
});

test('the operators with cases here are exactly the spec\'s ComparisonOperator enumeration', () => {
  // Guards against an operator added to the enumeration without a case in this file.
  const covered = new Set([
    'Equal to', 'Not Equal to', 'Contains', 'Does not contain', 'Starts with', 'Ends with', 'Is Empty', 'Is not Empty',
    'Less than', 'Greater than', 'Less than or equal to', 'Greater than or equal to', 'Before', 'After',
    'Array contains', 'Array contains any', 'Array contains all', 'Array does not contain', 'Array does not contain any',
    'Array does not contain all', 'Array size equal to', 'Array size greater than', 'Array size less than',
  ]);
  assert.deepEqual([...COMPARISON_OPERATORS].sort(), [...covered].sort());
});

test('nested AND/OR groups over three levels, and empty groups', async (t) => {
  const { kept } = await setup(t);
  const north = f('region', 'Equal to', 'north');
  const many = f('qty', 'Greater than', 5);
  const widget = f('name', 'Contains', 'widget');
  const cheap = f('price', 'Less than', 1);
  const paid = f('paid', 'Equal to', true);
  const isNorth = (r: Row) => r.region === 'north';
  const isMany = (r: Row) => r.qty !== null && r.qty > 5;
  const isWidget = (r: Row) => r.name !== null && lower(r.name).includes('widget');
  const isCheap = (r: Row) => r.price !== null && r.price < 1;
  const isPaid = (r: Row) => r.paid === true;

  await t.test('OR of ANDs holding an OR', async () => {
    // (north AND (qty > 5 OR name has "widget")) OR (paid AND price < 1) OR qty = 42
    const group = or(and(north, or(many, widget)), and(paid, cheap), f('qty', 'Equal to', 42));
    assert.deepEqual(await kept(group), refs((r) => (isNorth(r) && (isMany(r) || isWidget(r))) || (isPaid(r) && isCheap(r)) || r.qty === 42));
  });
  await t.test('AND of ORs holding an AND', async () => {
    // (paid OR (price < 1 AND region != north)) AND (qty > 5 OR tags contain "b")
    const group = and(or(paid, and(cheap, f('region', 'Not Equal to', 'north'))), or(many, f('tags', 'Array contains', 'b')));
    const expected = refs((r) => (isPaid(r) || (isCheap(r) && r.region !== 'north')) && (isMany(r) || tagsOf(r).includes('b')));
    assert.ok(expected.length > 0 && expected.length < ROWS.length);
    assert.deepEqual(await kept(group), expected);
  });
  await t.test('four levels, the deepest the schema allows', async () => {
    const group = or(and(paid, or(many, and(widget, north))), f('price', 'Equal to', 99.99));
    assert.deepEqual(await kept(group), refs((r) => (isPaid(r) && (isMany(r) || (isWidget(r) && isNorth(r)))) || r.price === 99.99));
  });
  await t.test('an empty group matches every row, with AND or OR', async () => {
    assert.deepEqual(await kept(and()), refs(() => true));
    assert.deepEqual(await kept(or()), refs(() => true));
  });
  await t.test('an empty group nested in an AND does not restrict it', async () => {
    assert.deepEqual(await kept(and(or(), north)), refs(isNorth));
  });
});

test('correctType: a value of another type is refused without it and converted with it', async (t) => {
  const { kept, refused } = await setup(t);
  const problem = await refused(and(f('qty', 'Equal to', '42')));
  assert.equal(problem.errors[0]!.location, `${FILTER_AT}/value`);
  assert.match(problem.detail, /correctType/);
  assert.deepEqual(await kept(and(f('qty', 'Equal to', '42', true))), refs((r) => r.qty === 42));
  // Also for lists, decimals, booleans and text compared with a number.
  assert.equal((await refused(and(f('qty', 'Equal to', ['0', 7])))).errors[0]!.location, `${FILTER_AT}/value/0`);
  assert.deepEqual(await kept(and(f('qty', 'Equal to', ['0', 7], true))), refs((r) => r.qty === 0 || r.qty === 7));
  assert.deepEqual(await kept(and(f('price', 'Greater than', ' 12.5 ', true))), refs((r) => r.price !== null && r.price > 12.5));
  await refused(and(f('paid', 'Equal to', 'true')));
  assert.deepEqual(await kept(and(f('paid', 'Equal to', 'true', true))), refs((r) => r.paid === true));
  await refused(and(f('name', 'Starts with', 100)));
  assert.deepEqual(await kept(and(f('name', 'Starts with', 100, true))), refs((r) => r.name !== null && r.name.startsWith('100')));
});

test('definitions that cannot work answer 422 naming the place', async (t) => {
  const { refused } = await setup(t);
  const cases: Array<[label: string, group: Group, location: string, detail: RegExp]> = [
    ['unknown column', and(f('colour', 'Equal to', 'red')), `${FILTER_AT}/column`, /unknown column "colour" \(available: "ref", "name", /],
    ['unknown column in a nested group', and(f('region', 'Equal to', 'north'), or(f('qty', 'Greater than', 1), f('nope', 'Is Empty'))), 'body/operations/0/config/filterGroup/filters/1/filters/1/column', /unknown column "nope"/],
    ['Contains on a number column', and(f('qty', 'Contains', '4')), `${FILTER_AT}/comparisonOperator`, /"Contains" needs a text column; column "qty" is integer/],
    ['Starts with on a date column', and(f('day', 'Starts with', '2024')), `${FILTER_AT}/comparisonOperator`, /needs a text column/],
    ['Array contains on a text column', and(f('name', 'Array contains', 'a')), `${FILTER_AT}/comparisonOperator`, /"Array contains" needs an array column; column "name" is text/],
    ['Array size on a number column', and(f('qty', 'Array size equal to', 1)), `${FILTER_AT}/comparisonOperator`, /needs an array column/],
    ['Before on a number column', and(f('qty', 'Before', 3)), `${FILTER_AT}/comparisonOperator`, /"Before" needs a date or datetime column; column "qty" is integer/],
    ['After on a text column', and(f('name', 'After', '2024-01-01')), `${FILTER_AT}/comparisonOperator`, /needs a date or datetime column/],
    ['Less than on a boolean column', and(f('paid', 'Less than', true)), `${FILTER_AT}/comparisonOperator`, /needs a number, date or text column/],
    ['Equal to on an array column', and(f('tags', 'Equal to', 'a')), `${FILTER_AT}/comparisonOperator`, /Array operators/],
    ['a list for Contains', and(f('name', 'Contains', ['a', 'b'])), `${FILTER_AT}/value`, /one value, not a list/],
    ['a list for Greater than', and(f('qty', 'Greater than', [1, 2])), `${FILTER_AT}/value`, /one value, not a list/],
    ['a list for Array contains', and(f('tags', 'Array contains', ['a', 'b'])), `${FILTER_AT}/value`, /one value, not a list/],
    ['a list for Array size', and(f('tags', 'Array size equal to', [1])), `${FILTER_AT}/value`, /one value, not a list/],
    ['no value for Greater than', and(f('qty', 'Greater than')), `${FILTER_AT}/value`, /needs a value/],
    ['a negative array size', and(f('tags', 'Array size greater than', -1)), `${FILTER_AT}/value`, /not a size/],
    ['bad date text', and(f('day', 'Before', 'next tuesday')), `${FILTER_AT}/value`, /"next tuesday" is not a date/],
    ['a month that does not exist', and(f('day', 'Equal to', '2024-13-01')), `${FILTER_AT}/value`, /is not a date/],
    ['bad datetime text', and(f('at', 'After', '2024-01-05T25:00:00Z')), `${FILTER_AT}/value`, /is not a datetime/],
    ['a number for a date', and(f('day', 'Equal to', 20240105)), `${FILTER_AT}/value`, /is not a date/],
    ['bad element of a list', and(f('day', 'Equal to', ['2024-01-05', 'soon'])), `${FILTER_AT}/value/1`, /"soon" is not a date/],
  ];
  for (const [label, group, location, detail] of cases) {
    await t.test(label, async () => {
      const problem = await refused(group);
      assert.equal(problem.errors[0]!.location, location);
      assert.match(problem.detail, detail);
    });
  }
});

test('a date that does not exist in the calendar is refused, not rolled over', async (t) => {
  const { createFiltered, records } = await setup(t);
  const res = await createFiltered(and(f('day', 'Equal to', '2023-02-29')));
  // Today: 201, and the dataset silently keeps the 2023-03-01 row (r8).
  if (res.status === 201) assert.deepEqual((await records(res.body.data.id)).map((r) => r.ref), [], 'a filter on 2023-02-29 matched rows of another day');
  assert.equal(res.status, 422, JSON.stringify(res.body));
  assert.equal(res.body.errors[0].location, `${FILTER_AT}/value`);
});

test('Is Empty on an array column of objects counts [] as empty', async (t) => {
  const { app, ws, records } = await setup(t);
  const rows = [
    { ref: 'o1', parts: [{ sku: 'x', n: 1 }] },
    { ref: 'o2', parts: [] },
    { ref: 'o3', parts: null },
    { ref: 'o4', parts: [{ sku: 'y', n: 2 }, { sku: 'z', n: 3 }] },
  ];
  const source = await fromData(app, ws, 'Parts', rows);
  const filtered = async (operator: string) => {
    const res = await app.call({
      method: 'POST',
      url: `${API}/workspaces/${ws}/datasets`,
      body: { name: 'Parts', sources: [{ id: source }], operations: [{ sourceId: source, config: { type: 'filter', filterGroup: and(f('parts', operator)) } }] },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return (await records(res.body.data.id)).map((r) => r.ref);
  };
  assert.deepEqual(await filtered('Is Empty'), rows.filter((r) => (r.parts ?? []).length === 0).map((r) => r.ref));
  assert.deepEqual(await filtered('Is not Empty'), rows.filter((r) => (r.parts ?? []).length > 0).map((r) => r.ref));
});

test('tenant isolation: a dataset naming another organisation\'s source is refused and never shows its rows', async (t) => {
  const { app, ws, source, createFiltered, records } = await setup(t);
  const otherWs = app.other.libraryWorkspaceId;
  const secret = 'GLOBEX-SECRET';
  const theirs = await fromData(app, otherWs, 'Their items', [{ ref: `${secret}-1`, qty: 1 }, { ref: `${secret}-2`, qty: 2 }], app.other.key);
  const noLeak = (res: { body: unknown }) => assert.ok(!JSON.stringify(res.body).includes(secret), 'a response carries the other organisation\'s rows');

  await t.test('as the only source', async () => {
    const res = await createFiltered(and(f('qty', 'Greater than', 0)), theirs);
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].location, 'body/sources/0/id');
    noLeak(res);
  });
  await t.test('joined into one of ours', async () => {
    const res = await app.call({
      method: 'POST',
      url: `${API}/workspaces/${ws}/datasets`,
      body: { name: 'Join', sources: [{ id: source }, { id: theirs }], operations: [{ sourceId: source, config: { type: 'join', rightSourceId: theirs, how: 'left', on: [{ left: 'ref', right: 'ref' }] } }] },
    });
    assert.equal(res.status, 422, JSON.stringify(res.body));
    assert.equal(res.body.errors[0].location, 'body/sources/1/id');
    noLeak(res);
  });
  await t.test('swapped in by an update or a validate of one of our datasets', async () => {
    const ours = await createFiltered(and());
    assert.equal(ours.status, 201);
    const url = `${API}/workspaces/${ws}/datasets/${ours.body.data.id}`;
    const patch = await app.call({ method: 'PATCH', url, body: { sources: [{ id: theirs }], operations: [] } });
    assert.equal(patch.status, 422, JSON.stringify(patch.body));
    noLeak(patch);
    const validate = await app.call({ method: 'POST', url: `${url}/validate`, body: { sources: [{ id: theirs }], operations: [] } });
    assert.equal(validate.status, 422, JSON.stringify(validate.body));
    noLeak(validate);
    // The dataset still reads our rows only.
    const rows = await records(ours.body.data.id);
    assert.deepEqual(rows.map((r) => r.ref), refs(() => true));
  });
  await t.test('in our workspace from their side too', async () => {
    // The other organisation cannot name our workspace at all, nor our source in its own workspace.
    const inOurs = await app.call({ method: 'POST', url: `${API}/workspaces/${ws}/datasets`, key: app.other.key, body: { name: 'x', sources: [{ id: theirs }] } });
    assert.ok([403, 404].includes(inOurs.status), String(inOurs.status));
    const ourSource = await app.call({ method: 'POST', url: `${API}/workspaces/${otherWs}/datasets`, key: app.other.key, body: { name: 'x', sources: [{ id: source }] } });
    assert.equal(ourSource.status, 422, JSON.stringify(ourSource.body));
    assert.ok(!JSON.stringify(ourSource.body).includes('Alpha Widget'));
  });
  await t.test('their own dataset over the source works, so the id was a real one', async () => {
    const res = await app.call({ method: 'POST', url: `${API}/workspaces/${otherWs}/datasets`, key: app.other.key, body: { name: 'Theirs', sources: [{ id: theirs }] } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
  });
});

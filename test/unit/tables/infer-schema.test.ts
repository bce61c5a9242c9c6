import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detectDateFormat } from '../../../src/tables/inference/dates.js';
import { inferColumn, inferSchema } from '../../../src/tables/inference/infer-schema.js';
import { parseNumber } from '../../../src/tables/inference/numbers.js';

type Expect = Partial<ReturnType<typeof inferColumn>>;

/** Awkward columns as people export them, and what the inference must make of each. */
const CASES: Array<[string, string, Array<string | null>, Expect]> = [
  ['plain integers with blanks and NA', 'qty', ['1', '22', '', 'NA', '-3'], { type: 'integer', unit: null, originalFormat: null }],
  ['thousands separators', 'revenue', ['1,234', '12,345,678', '999'], { type: 'integer', originalFormat: '#,##0.##' }],
  ['decimals with grouping', 'price', ['1,234.50', '0.99', '12'], { type: 'decimal', originalFormat: '#,##0.##' }],
  ['decimal commas', 'preis', ['1.234,50', '0,99', '12'], { type: 'decimal', originalFormat: '#.##0,##' }],
  ['scientific notation', 'k', ['1e-3', '2.5E+4', '.5'], { type: 'decimal' }],
  ['percentages', 'margin', ['12%', '7.5 %', '-3%'], { type: 'decimal', subtype: 'percentage', unit: '%' }],
  ['dollar amounts with accounting negatives', 'cost', ['$1,200.00', '$3.50', '($12.00)'], { type: 'decimal', subtype: 'currency', unit: 'USD' }],
  ['euro amounts written after the number', 'betrag', ['12,50 €', '3 €'], { type: 'decimal', subtype: 'currency', unit: 'EUR' }],
  ['ISO currency codes', 'amount', ['GBP 10', 'GBP 2.5'], { type: 'decimal', unit: 'GBP' }],
  ['booleans in words', 'active', ['yes', 'No', 'Y', 'n', null], { type: 'boolean', categories: ['false', 'true'] }],
  ['0/1 stays an integer but can be a boolean', 'flag', ['0', '1', '1', '0'], { type: 'integer', availableTypes: ['boolean', 'integer', 'decimal', 'categorical', 'text'] }],
  ['ISO dates', 'day', ['2024-01-05', '2024-12-31'], { type: 'date', originalFormat: 'YYYY-MM-DD', dateOrderAssumed: false, displayFormat: 'YYYY-MM-DD' }],
  ['day-first dates settled by a 13th day', 'datum', ['05/01/2024', '13/02/2024'], { type: 'date', originalFormat: 'DD/MM/YYYY', dateOrderAssumed: false }],
  ['month-first dates settled by a 13th day', 'when', ['01/05/2024', '02/13/2024'], { type: 'date', originalFormat: 'MM/DD/YYYY', dateOrderAssumed: false }],
  ['ambiguous slash dates are read month-first and flagged', 'date', ['01/05/2024', '02/03/2024'], { type: 'date', originalFormat: 'MM/DD/YYYY', dateOrderAssumed: true }],
  ['German dotted dates', 'tag', ['31.12.2024', '1.2.2023'], { type: 'date', originalFormat: 'DD.MM.YYYY' }],
  ['month names', 'signed', ['Jan 5, 2024', 'March 12 2023'], { type: 'date', originalFormat: 'MMM D, YYYY' }],
  ['ISO datetimes with zones and fractions', 'at', ['2024-01-05T10:00:00Z', '2024-01-05 23:59:59.123+02:00'], { type: 'datetime', originalFormat: 'YYYY-MM-DDTHH:mm:ss' }],
  ['categorical labels', 'region', ['north', 'south', 'north', 'east', 'south', 'north'], { type: 'categorical', categories: ['north', 'south', 'east'] }],
  ['free text', 'comment', ['great service', 'late delivery, box damaged', 'ok', 'would buy again'], { type: 'text', isIndex: false }],
  ['string identifiers by name', 'customer_id', ['C-001', 'C-002', 'C-003'], { type: 'text', subtype: 'identifier', isIndex: true }],
  ['UUIDs', 'ref', ['3f2504e0-4f89-11d3-9a0c-0305e82c3301', '7c9e6679-7425-40de-944b-e07fc1f90ae7'], { type: 'text', isIndex: true }],
  ['integer ids', 'id', ['1', '2', '3', '4'], { type: 'integer', isIndex: true }],
  ['repeated ids are not an index', 'user_id', ['1', '2', '2'], { type: 'integer', isIndex: false }],
  ['JSON arrays of numbers', 'scores', ['[1, 2.5]', '[]', '[3]'], { type: 'array', subtype: 'decimal' }],
  ['JSON arrays of strings', 'tags', ['["a","b"]', '["c"]'], { type: 'array', subtype: 'text' }],
  ['JSON objects', 'meta', ['{"a":1}', '{"b":[1]}'], { type: 'object' }],
  ['an impossible date is not a date', 'd', ['2024-02-30', '2024-01-01'], { type: 'text' }],
  ['mixed numbers and words are text', 'mixed', ['12', 'twelve', '13'], { type: 'text' }],
  ['mixed units are not one number', 'u', ['12%', '$3'], { type: 'text' }],
  ['an empty column is text with no width', 'empty', ['', null, 'NA'], { type: 'text', displayWidth: null }],
];

for (const [behaviour, field, cells, expected] of CASES) {
  test(`inference: ${behaviour}`, () => {
    const entry = inferColumn(field, cells);
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual(entry[key as keyof typeof entry], value, `${field}.${key} for ${JSON.stringify(cells)}`);
    }
    assert.ok(entry.availableTypes.includes(entry.type), 'the chosen type is among the available ones');
    assert.ok(entry.availableTypes.includes('text'), 'anything can be re-typed to text');
  });
}

test('every entry carries every field of the spec schema entry', () => {
  const [entry] = inferSchema(['x'], [['1'], ['2']]);
  assert.deepEqual(Object.keys(entry!).sort(), [
    'aliases', 'availableTypes', 'categories', 'dateOrderAssumed', 'description', 'displayFormat', 'displayWidth', 'field', 'isIndex',
    'originalFormat', 'subtype', 'type', 'unit', 'unitModifier',
  ]);
});

test('numbers parse to their values', () => {
  const cases: Array<[string, number]> = [['1,234.5', 1234.5], ['1.234,5', 1234.5], ['1 234', 1234], ['(12.50)', -12.5], ['-$3', -3], ['12%', 12], ['€ 7,5', 7.5], ['.5', 0.5], ['1,23', 1.23], ['($1,200.00)', -1200]];
  for (const [text, value] of cases) assert.equal(parseNumber(text)?.value, value, text);
  for (const text of ['1,2,3', '12abc', '--1', '1.2.3', '$', '']) assert.equal(parseNumber(text), null, text);
});

test('a date column whose values fit no single format is not a date', () => {
  assert.equal(detectDateFormat(['2024-01-05', '05/01/2024']), null);
});

test('dates outside the years the engine stores (1900 to 2299) are not dates, so they are never clamped', () => {
  assert.equal(inferColumn('founded', ['1040-01-01', '1999-05-01']).type, 'text');
  assert.equal(inferColumn('founded', ['1900-01-01', '2299-12-31']).type, 'date');
  assert.equal(inferColumn('at', ['2300-01-01T00:00:00Z']).type, 'text');
});

test('numbers written with leading zeros are codes, not numbers', () => {
  assert.equal(inferColumn('zip', ['02134', '10001', '90210']).type, 'text');
  assert.equal(inferColumn('code', ['007', '042']).type, 'text');
  assert.equal(inferColumn('ratio', ['0.5', '0', '10']).type, 'decimal');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EnvironmentGroupDefinition } from '../../../schemas/environments.js';
import { cellText, definitionErrors, matchEnvironments, meetsStatFilter } from '../../../src/twins/environments/match.js';
import { environmentKey, parseEnvironmentKey } from '../../../src/engine/panel/keys.js';
import type { EnvironmentEntry, EnvironmentProfile } from '../../../src/twins/environments/profile.js';

const COLUMNS = ['region', 'store'];

function entry(region: string, store: string, nRows: number, sales: { mean: number | null; missing?: number }): EnvironmentEntry {
  const values = { region, store };
  return {
    key: environmentKey(COLUMNS, values),
    values,
    nRows,
    timeSpan: null,
    stats: {
      sales: { mean: sales.mean, std: sales.mean === null ? null : 1, min: sales.mean === null ? null : sales.mean - 2, max: sales.mean === null ? null : sales.mean + 2, missing: sales.missing ?? 0 },
      channel: { mean: null, std: null, min: null, max: null, missing: 3 },
    },
    hasEvidence: nRows >= 50,
  };
}

const PROFILE: EnvironmentProfile = {
  columns: COLUMNS,
  environments: [
    entry('north', '12', 400, { mean: 10 }),
    entry('north', '7', 120, { mean: 20, missing: 5 }),
    entry('south', '12', 30, { mean: 30 }),
    entry('east;1', '0.5', 80, { mean: null }),
  ],
  rowsWithoutEnvironment: 0,
  edges: [],
};

const keysOf = (definition: EnvironmentGroupDefinition) => matchEnvironments(definition, PROFILE).matched.map((e) => e.key);

test('columnValues selects environments whose named columns hold an allowed value; unnamed columns are free', () => {
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { region: ['north'] } }), ['region=north;store=12', 'region=north;store=7']);
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { region: ['north', 'south'], store: ['12'] } }), ['region=north;store=12', 'region=south;store=12']);
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { region: ['west'] } }), []);
  assert.deepEqual(matchEnvironments({ mode: 'columnValues', columnValues: { region: ['west'] } }, PROFILE).unknown, [], 'unknown is for environments mode only');
});

test('numbers in a definition match the cells written as text in their shortest form', () => {
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { store: [12] } }), ['region=north;store=12', 'region=south;store=12']);
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { store: [0.5] } }), ['region=east%3B1;store=0.5']);
  assert.deepEqual(keysOf({ mode: 'environments', environments: [{ region: 'north', store: 7 }] }), ['region=north;store=7']);
  assert.equal(cellText(12.0), '12');
  assert.equal(cellText(1e-7), '1e-7');
  assert.deepEqual(keysOf({ mode: 'columnValues', columnValues: { store: ['12.0'] } }), [], 'text is compared as written: "12.0" is not "12"');
});

test('environments mode selects listed environments; a partial map selects every environment with those values', () => {
  const result = matchEnvironments({ mode: 'environments', environments: [{ region: 'north' }, { region: 'east;1', store: '0.5' }] }, PROFILE);
  assert.deepEqual(result.matched.map((e) => e.key), ['region=north;store=12', 'region=north;store=7', 'region=east%3B1;store=0.5']);
  assert.deepEqual(result.unknown, []);
});

test('environments mode names the items that select nothing, in key form over the columns they name', () => {
  const result = matchEnvironments({ mode: 'environments', environments: [{ store: '12', region: 'south' }, { region: 'west' }, { store: 'a=b' }, { region: 'north', aisle: '3' }] }, PROFILE);
  assert.deepEqual(result.matched.map((e) => e.key), ['region=south;store=12']);
  assert.deepEqual(result.unknown, ['region=west', 'store=a%3Db', 'region=north;aisle=3']);
});

test('statFilters selects environments meeting every filter, with each comparison operator', () => {
  const rows = (op: 'lt' | 'lte' | 'gt' | 'gte' | 'eq' | 'ne', value: number) => keysOf({ mode: 'statFilters', statFilters: [{ stat: 'rows', op, value }] });
  assert.deepEqual(rows('lt', 120), ['region=south;store=12', 'region=east%3B1;store=0.5']);
  assert.deepEqual(rows('lte', 120), ['region=north;store=7', 'region=south;store=12', 'region=east%3B1;store=0.5']);
  assert.deepEqual(rows('gt', 120), ['region=north;store=12']);
  assert.deepEqual(rows('gte', 120), ['region=north;store=12', 'region=north;store=7']);
  assert.deepEqual(rows('eq', 120), ['region=north;store=7']);
  assert.deepEqual(rows('ne', 120), ['region=north;store=12', 'region=south;store=12', 'region=east%3B1;store=0.5']);
  const both = keysOf({ mode: 'statFilters', statFilters: [{ variable: 'sales', stat: 'mean', op: 'gte', value: 20 }, { stat: 'rows', op: 'gte', value: 100 }] });
  assert.deepEqual(both, ['region=north;store=7'], 'every filter must hold');
  assert.deepEqual(keysOf({ mode: 'statFilters', statFilters: [{ variable: 'sales', stat: 'missing', op: 'gt', value: 0 }] }), ['region=north;store=7']);
  assert.deepEqual(keysOf({ mode: 'statFilters', statFilters: [{ variable: 'sales', stat: 'max', op: 'lt', value: 15 }] }), ['region=north;store=12']);
});

test('a null statistic or an unknown variable meets no filter, not even ne', () => {
  const noMean = PROFILE.environments[3]!;
  assert.equal(meetsStatFilter(noMean, { variable: 'sales', stat: 'mean', op: 'ne', value: 5 }), false);
  assert.equal(meetsStatFilter(noMean, { variable: 'nope', stat: 'missing', op: 'gte', value: 0 }), false);
  assert.equal(meetsStatFilter(noMean, { variable: 'channel', stat: 'missing', op: 'eq', value: 3 }), true);
});

test('keys round-trip with %, ; and = inside names and values', () => {
  const values = { 'a;b': 'x=1', 'c%d': '50%;', plain: '' };
  const columns = Object.keys(values);
  const key = environmentKey(columns, values);
  assert.equal(key, 'a%3Bb=x%3D1;c%25d=50%25%3B;plain=');
  assert.deepEqual(parseEnvironmentKey(key), values);
  assert.deepEqual(parseEnvironmentKey('region=north;store=12'), { region: 'north', store: '12' });
  assert.deepEqual(parseEnvironmentKey('region=%2541'), { region: '%41' }, 'an escaped % stays a literal %, never a second escape');
});

test('malformed keys parse to null', () => {
  for (const key of ['region', 'region=north;store', 'a=b=c', 'a=%zz', 'a=%E0%A4%A', '']) {
    assert.equal(parseEnvironmentKey(key), null, JSON.stringify(key));
  }
});

const TWIN = {
  environmentColumns: COLUMNS,
  variables: [{ field: 'sales', type: 'decimal' }, { field: 'channel', type: 'categorical' }, { field: 'promo', type: 'boolean' }],
};

test('a definition needs the member its mode names and refuses the members of other modes, located', () => {
  assert.deepEqual(definitionErrors({ mode: 'columnValues' }, TWIN, 'body/definition'), [{ location: 'body/definition/columnValues', message: 'required when mode is columnValues' }]);
  const mixed = definitionErrors({ mode: 'environments', environments: [{ region: 'north' }], statFilters: [{ stat: 'rows', op: 'gt', value: 1 }] }, TWIN, 'body/definition');
  assert.deepEqual(mixed.map((e) => e.location), ['body/definition/statFilters']);
  assert.deepEqual(definitionErrors({ mode: 'environments', environments: [{ region: 'north' }] }, TWIN, 'body/definition'), []);
});

test('definition columns must be environment columns, with the column in the location as a JSON pointer', () => {
  const errors = definitionErrors({ mode: 'columnValues', columnValues: { region: ['north'], 'a/b~c': ['x'] } }, TWIN, 'body/definition');
  assert.deepEqual(errors.map((e) => e.location), ['body/definition/columnValues/a~1b~0c']);
  assert.match(errors[0]!.message, /not an environment column; the twin's environment columns are region, store/);
  const listed = definitionErrors({ mode: 'environments', environments: [{ region: 'north' }, { sales: 3 }] }, TWIN, 'body/definition');
  assert.deepEqual(listed.map((e) => e.location), ['body/definition/environments/1/sales']);
});

test('statFilter variables must be modelled, categorical ones only for missing, and rows takes no variable', () => {
  const errors = definitionErrors({
    mode: 'statFilters',
    statFilters: [
      { variable: 'sales', stat: 'mean', op: 'gt', value: 1 },
      { variable: 'nope', stat: 'mean', op: 'gt', value: 1 },
      { variable: 'channel', stat: 'mean', op: 'gt', value: 1 },
      { variable: 'promo', stat: 'missing', op: 'eq', value: 0 },
      { variable: 'sales', stat: 'rows', op: 'gt', value: 1 },
      { stat: 'std', op: 'gt', value: 1 },
    ],
  }, TWIN, 'body/definition');
  assert.deepEqual(errors.map((e) => [e.location, e.message]), [
    ['body/definition/statFilters/1/variable', 'nope is not a modelled variable of the twin'],
    ['body/definition/statFilters/2/variable', 'channel is categorical: only stat missing applies to it'],
    ['body/definition/statFilters/4/variable', 'omit variable for stat rows (the environment\'s row count)'],
    ['body/definition/statFilters/5/variable', 'required for stat std'],
  ]);
  const unbound = definitionErrors({ mode: 'statFilters', statFilters: [{ variable: 'anything', stat: 'mean', op: 'gt', value: 1 }] }, { environmentColumns: COLUMNS, variables: [] }, 'd');
  assert.deepEqual(unbound, [], 'a twin without data yet cannot judge variables');
});

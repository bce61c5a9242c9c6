import type { Aggregation, OperationConfig } from '../../../schemas/datasets.js';
import type { ColumnType } from '../../tables/inference/infer-schema.js';
import { compileExpression } from './expression.js';
import { compileCondition } from './filter.js';
import { quoteColumn } from '../../store/data/port.js';
import type { Params } from './params.js';
import {
  type Column,
  type Relation,
  type SortKey,
  checkNewName,
  columnOf,
  definitionError,
  findColumn,
  isNumeric,
  isSortable,
  isStoredArray,
  keyName,
  qualified,
  renamed,
} from './relation.js';

type Config<T extends OperationConfig['type']> = Extract<OperationConfig, { type: T }>;

/** Applies one operation to a relation; `right` is the relation a join consumes. */
export function applyOperation(relation: Relation, config: OperationConfig, params: Params, location: string, right?: Relation): Relation {
  switch (config.type) {
    case 'filter':
      return filter(relation, config, params, location);
    case 'select':
      return select(relation, config, location);
    case 'rename':
      return rename(relation, config, location);
    case 'derive':
      return derive(relation, config, params, location);
    case 'join':
      return join(relation, right!, config, location);
    case 'aggregate':
      return aggregate(relation, config, params, location);
    case 'sort':
      return sort(relation, config, location);
    case 'dedupe':
      return dedupe(relation, config, location);
  }
}

const S = 's';
const as = (expression: string, name: string) => `${expression} AS ${quoteColumn(name)}`;
const keysOf = (relation: Relation, alias = S) => relation.keys.map((key) => as(qualified(alias, key), key));

/** SELECT <list> FROM (<previous>) AS s <tail>: every step is a subquery, referenced through one alias. */
function wrap(relation: Relation, list: string[], tail = ''): Relation['sql'] {
  return (tenant) => `SELECT ${list.join(', ')} FROM (${relation.sql(tenant)}) AS ${S}${tail === '' ? '' : ` ${tail}`}`;
}

const passThrough = (relation: Relation, alias = S) => relation.columns.map((column) => as(qualified(alias, column.name), column.name));

function assertUnique(columns: Column[], location: string): void {
  const seen = new Set<string>();
  for (const column of columns) {
    if (seen.has(column.name)) throw definitionError(location, `the output would have two columns named "${column.name}"`);
    seen.add(column.name);
  }
}

function filter(relation: Relation, config: Config<'filter'>, params: Params, location: string): Relation {
  const condition = compileCondition(config.filterGroup, relation, S, params, `${location}/filterGroup`);
  return { ...relation, sql: wrap(relation, [...passThrough(relation), ...keysOf(relation)], `WHERE ${condition}`) };
}

function select(relation: Relation, config: Config<'select'>, location: string): Relation {
  const picked = config.columns.map((entry, i) => {
    const column = findColumn(relation, entry.column, `${location}/columns/${i}/column`);
    const name = entry.alias ?? column.name;
    checkNewName(name, `${location}/columns/${i}/alias`);
    return { from: column.name, column: renamed(column, name) };
  });
  const columns = picked.map((p) => p.column);
  assertUnique(columns, `${location}/columns`);
  const names = new Map(picked.map((p) => [p.from, p.column.name]));
  return {
    ...relation,
    columns,
    sql: wrap(relation, [...picked.map((p) => as(qualified(S, p.from), p.column.name)), ...keysOf(relation)]),
    order: carryOrder(relation.order, names),
  };
}

function rename(relation: Relation, config: Config<'rename'>, location: string): Relation {
  const names = new Map(relation.columns.map((c) => [c.name, c.name]));
  config.renames.forEach((entry, i) => {
    findColumn(relation, entry.column, `${location}/renames/${i}/column`);
    checkNewName(entry.to, `${location}/renames/${i}/to`);
    names.set(entry.column, entry.to);
  });
  const columns = relation.columns.map((c) => renamed(c, names.get(c.name)!));
  assertUnique(columns, `${location}/renames`);
  return {
    ...relation,
    columns,
    sql: wrap(relation, [...relation.columns.map((c) => as(qualified(S, c.name), names.get(c.name)!)), ...keysOf(relation)]),
    order: carryOrder(relation.order, names),
  };
}

/** A sort survives select and rename for the columns that are kept (under their new names). */
function carryOrder(order: SortKey[], names: Map<string, string>): SortKey[] {
  return order.flatMap((key) => (names.has(key.column) ? [{ ...key, column: names.get(key.column)! }] : []));
}

function derive(relation: Relation, config: Config<'derive'>, params: Params, location: string): Relation {
  checkNewName(config.column, `${location}/column`);
  const expression = compileExpression(config.expression, relation, S, params, `${location}/expression`);
  // ClickHouse answers comparisons as 0/1: boolean results are cast so they read as true/false.
  const sql = expression.type === 'boolean' ? `CAST(${expression.sql} AS Nullable(Bool))` : expression.sql;
  const derived = columnOf(config.column, expression.type);
  const replaced = relation.columns.some((c) => c.name === config.column);
  const columns = replaced ? relation.columns.map((c) => (c.name === config.column ? derived : c)) : [...relation.columns, derived];
  const list = columns.map((c) => (c === derived ? as(sql, c.name) : as(qualified(S, c.name), c.name)));
  return { ...relation, columns, sql: wrap(relation, [...list, ...keysOf(relation)]) };
}

const family = (type: ColumnType) => (type === 'integer' || type === 'decimal' ? 'number' : type === 'categorical' || type === 'text' ? 'text' : type);

function join(left: Relation, right: Relation, config: Config<'join'>, location: string): Relation {
  const pairs = config.on.map((pair, i) => {
    const l = findColumn(left, pair.left, `${location}/on/${i}/left`);
    const r = findColumn(right, pair.right, `${location}/on/${i}/right`);
    if (!isSortable(l) || !isSortable(r) || family(l.type) !== family(r.type)) {
      throw definitionError(`${location}/on/${i}`, `cannot join ${l.type} column "${l.name}" with ${r.type} column "${r.name}"`);
    }
    return { l, r };
  });
  const suffix = config.suffix ?? '_right';
  const rightKeysUsed = new Set(pairs.map((p) => p.r.name));
  const taken = new Set(left.columns.map((c) => c.name));
  const rightColumns = right.columns
    .filter((c) => !rightKeysUsed.has(c.name))
    .map((c) => {
      const name = taken.has(c.name) ? `${c.name}${suffix}` : c.name;
      if (taken.has(name)) throw definitionError(`${location}/suffix`, `right column "${c.name}" would be named "${name}", which is taken`);
      taken.add(name);
      return { from: c.name, column: renamed(c, name) };
    });
  const keys = [...left.keys, ...right.keys].map((_, i) => keyName(i));
  const list = [
    ...left.columns.map((c) => as(qualified('l', c.name), c.name)),
    ...rightColumns.map((p) => as(qualified('r', p.from), p.column.name)),
    ...left.keys.map((k, i) => as(qualified('l', k), keys[i]!)),
    // Unmatched rows of a left join get 0 for the right keys: still unique, since the left keys are.
    ...right.keys.map((k, i) => as(qualified('r', k), keys[left.keys.length + i]!)),
  ];
  const on = pairs.map((p) => `${qualified('l', p.l.name)} = ${qualified('r', p.r.name)}`).join(' AND ');
  const how = config.how === 'left' ? 'LEFT JOIN' : 'INNER JOIN';
  return {
    columns: [...left.columns, ...rightColumns.map((p) => p.column)],
    keys,
    order: left.order,
    sql: (tenant) => `SELECT ${list.join(', ')} FROM (${left.sql(tenant)}) AS l ${how} (${right.sql(tenant)}) AS r ON ${on}`,
  };
}

function aggregate(relation: Relation, config: Config<'aggregate'>, params: Params, location: string): Relation {
  const groups = config.groupBy.map((name, i) => {
    const column = findColumn(relation, name, `${location}/groupBy/${i}`);
    if (!isSortable(column)) throw definitionError(`${location}/groupBy/${i}`, `cannot group by ${column.type} column "${name}"`);
    return column;
  });
  const rowKey = relation.keys.length === 1 ? qualified(S, relation.keys[0]!) : `tuple(${relation.keys.map((k) => qualified(S, k)).join(', ')})`;
  const aggregations = config.aggregations.map((aggregation, i) => compileAggregation(relation, aggregation, rowKey, params, `${location}/aggregations/${i}`));
  const columns = [...groups, ...aggregations.map((a) => a.column)];
  assertUnique(columns, `${location}/aggregations`);
  // A group's key is the smallest key of its rows: unique per group, and groups keep the order they first appear in.
  const keys = relation.keys.length === 1
    ? [as(`min(${rowKey})`, keyName(0))]
    : relation.keys.map((_, i) => as(`tupleElement(min(${rowKey}), ${i + 1})`, keyName(i)));
  const list = [...groups.map((c) => as(qualified(S, c.name), c.name)), ...aggregations.map((a) => as(a.sql, a.column.name)), ...keys];
  const tail = groups.length === 0 ? '' : `GROUP BY ${groups.map((c) => qualified(S, c.name)).join(', ')}`;
  return { columns, keys: relation.keys.map((_, i) => keyName(i)), order: [], sql: wrap(relation, list, tail) };
}

function compileAggregation(relation: Relation, aggregation: Aggregation, rowKey: string, params: Params, location: string): { sql: string; column: Column } {
  const column = findColumn(relation, aggregation.column, `${location}/column`);
  const name = aggregation.alias ?? `${aggregation.function}_${column.name}`;
  checkNewName(name, `${location}/alias`);
  const c = qualified(S, column.name);
  const where = aggregation.filter === undefined || aggregation.filter === null ? null : compileCondition(aggregation.filter, relation, S, params, `${location}/filter`);
  const call = (fn: string, args: string[]) => (where === null ? `${fn}(${args.join(', ')})` : `${fn}If(${[...args, where].join(', ')})`);
  const wrong = (what: string) => definitionError(`${location}/function`, `${aggregation.function} needs ${what}; "${column.name}" is ${column.type}`);
  const keep = (sql: string) => ({ sql, column: renamed(column, name) });
  switch (aggregation.function) {
    case 'sum':
      if (!isNumeric(column)) throw wrong('a number column');
      return { sql: call('sum', [c]), column: columnOf(name, column.type === 'integer' ? 'integer' : 'decimal') };
    case 'avg':
      if (!isNumeric(column)) throw wrong('a number column');
      // The average of no values is NaN in ClickHouse: NULL here, as JSON and ordering need.
      return { sql: `if(isFinite(${call('avg', [c])}), ${call('avg', [c])}, NULL)`, column: columnOf(name, 'decimal') };
    case 'min':
    case 'max':
      if (!isSortable(column) || column.type === 'boolean') throw wrong('a number, date or text column');
      return keep(call(aggregation.function, [c]));
    case 'count':
      return { sql: `toInt64(${call('count', [c])})`, column: columnOf(name, 'integer') };
    case 'countDistinct':
      return { sql: `toInt64(${call('uniqExact', [c])})`, column: columnOf(name, 'integer') };
    case 'first':
    case 'last':
      return keep(call(aggregation.function === 'first' ? 'argMin' : 'argMax', [c, rowKey]));
    case 'categoryShare': {
      if (isStoredArray(column) || column.type === 'object') throw wrong('a categorical, text, boolean or number column');
      const present = where === null ? `${c} IS NOT NULL` : `(${c} IS NOT NULL) AND (${where})`;
      const counts = `sumMapIf(map(CAST(ifNull(toString(${c}), '') AS String), toUInt64(1)), ${present})`;
      return { sql: `mapApply((k, v) -> (k, v / countIf(${present})), ${counts})`, column: columnOf(name, 'object', 'map') };
    }
  }
}

function sort(relation: Relation, config: Config<'sort'>, location: string): Relation {
  const order = config.keys.map((key, i) => {
    const column = findColumn(relation, key.column, `${location}/keys/${i}/column`);
    if (!isSortable(column)) throw definitionError(`${location}/keys/${i}/column`, `cannot sort by ${column.type} column "${column.name}"`);
    return { column: column.name, direction: key.direction ?? 'asc' };
  });
  return { ...relation, order };
}

function dedupe(relation: Relation, config: Config<'dedupe'>, location: string): Relation {
  const by = (config.columns ?? relation.columns.map((c) => c.name)).map((name, i) => findColumn(relation, name, `${location}/columns/${i}`));
  if (by.length === 0) return relation;
  const last = config.keep === 'last';
  const flip = (direction: 'asc' | 'desc') => (last ? (direction === 'asc' ? 'desc' : 'asc') : direction);
  const order = orderBy(relation, S, flip);
  const tail = `ORDER BY ${order} LIMIT 1 BY ${by.map((c) => qualified(S, c.name)).join(', ')}`;
  return { ...relation, sql: wrap(relation, [...passThrough(relation), ...keysOf(relation)], tail) };
}

/** The ORDER BY of a relation: its sort (nulls last) and then its keys, which make the order total. */
export function orderBy(relation: Relation, alias: string, direct: (direction: 'asc' | 'desc') => 'asc' | 'desc' = (d) => d): string {
  const sorted = relation.order.map((key) => `${qualified(alias, key.column)} ${direct(key.direction).toUpperCase()} NULLS LAST`);
  const keys = relation.keys.map((key) => `${qualified(alias, key)} ${direct('asc').toUpperCase()}`);
  return [...sorted, ...keys].join(', ');
}

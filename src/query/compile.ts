import type { CompiledDataset } from '../datasets/compiler/compile.js';
import { compileCondition } from '../datasets/compiler/filter.js';
import { Params } from '../datasets/compiler/params.js';
import { type Column, computedEntry } from '../datasets/compiler/relation.js';
import { AppError } from '../errors.js';
import type { ColumnType } from '../tables/inference/infer-schema.js';
import { type TenantSql, quoteColumn } from '../store/data/port.js';
import type { Bound, BoundMetric, PlannedItem, QueryPlan } from './plan.js';
import { QueryError } from './plan.js';
import { canonicalRelation } from './values.js';

/** Internal name of the total-rows column the paged query adds (never shown). */
export const TOTAL_COLUMN = '_causa_total';

const AGGREGATE_SQL: Record<string, (c: string) => string> = {
  sum: (c) => `sum(${c})`,
  avg: (c) => `avg(${c})`,
  min: (c) => `min(${c})`,
  max: (c) => `max(${c})`,
  count: (c) => `count(${c})`,
  countDistinct: (c) => `uniqExact(${c})`,
  first: (c) => `any(${c})`,
  last: (c) => `anyLast(${c})`,
};
const GRAIN_SQL: Record<string, (c: string) => string> = {
  hour: (c) => `toStartOfHour(${c})`,
  day: (c) => `toDate(${c})`,
  week: (c) => `toMonday(${c})`,
  month: (c) => `toStartOfMonth(${c})`,
  quarter: (c) => `toStartOfQuarter(${c})`,
  year: (c) => `toStartOfYear(${c})`,
};

export interface CompiledQuery {
  /** The query's rows (no paging): the SQL shown to the user. */
  sql: (tenant: TenantSql) => string;
  /** A page of it: `limit` rows from `offset`, each with the total row count. */
  page: (tenant: TenantSql, limit: string, offset: string) => string;
  params: Params;
  columns: Array<{ name: string; type: string }>;
}

/**
 * One ClickHouse query for a plan: the base dataset's compiled query (and each joined one's, LEFT JOINed on the
 * anchor concept's columns of the side it joins onto: the base or a dataset joined before it) read as an inner relation of the columns the query names, then filtered, grouped,
 * ordered and limited. Dataset parameters, condition values and paging are bound parameters, never SQL text.
 */
export function compileQuery(plan: QueryPlan, base: CompiledDataset, joined: Map<string, CompiledDataset>): CompiledQuery {
  const params = new Params('w');
  // The inner relation: each bound column once, under an internal name.
  const inner = new Map<string, { name: string; bound: Bound }>();
  const ref = (bound: Bound) => {
    const key = `${bound.side}.${bound.column.name}`;
    if (!inner.has(key)) inner.set(key, { name: `c${inner.size}`, bound });
    return inner.get(key)!.name;
  };
  const aggregate = (fn: string, bound: Bound | null) => (fn === 'count' && bound === null ? 'count()' : AGGREGATE_SQL[fn]!(`q.${quoteColumn(ref(bound!))}`));
  // A metric's formula: numbers (finite, parsed) inline; a division by zero is null, not infinity.
  const formula = (f: BoundMetric): string => {
    if (f.kind === 'number') return `toFloat64(${String(f.value)})`;
    if (f.kind === 'aggregate') return aggregate(f.fn, f.bound);
    if (f.kind === 'negate') return `(-${formula(f.operand)})`;
    return f.operator === '/' ? `(${formula(f.left)} / nullIf(${formula(f.right)}, 0))` : `(${formula(f.left)} ${f.operator} ${formula(f.right)})`;
  };
  const expression = (planned: PlannedItem) => {
    if (planned.metric !== null) return formula(planned.metric.formula);
    const column = planned.bound === null ? null : `q.${quoteColumn(ref(planned.bound))}`;
    if (planned.item.kind === 'aggregate') return aggregate(planned.item.fn!, planned.bound);
    if (planned.item.kind === 'grain') return GRAIN_SQL[planned.item.fn!]!(column!);
    return column!;
  };
  const selects = plan.items.map((planned) => `${expression(planned)} AS ${quoteColumn(planned.output)}`);
  const groups = plan.groupBy.map(expression);
  // Conditions over the inner relation's columns, compiled by the dataset filter compiler (the spec's operators).
  for (const { bound } of plan.conditions) ref(bound);
  const innerColumns: Column[] = [...inner.values()].map(({ name, bound }) => {
    const type = bound.column.type as ColumnType;
    return { name, type, subtype: bound.column.subtype, entry: computedEntry(name, type, bound.column.subtype) };
  });
  let where = '';
  if (plan.conditions.length > 0) {
    const filters = plan.conditions.map(({ condition, bound }) => ({
      column: ref(bound),
      comparisonOperator: condition.operator,
      value: condition.values.length === 0 ? null : condition.values.length === 1 ? condition.values[0]! : condition.values,
      correctType: true,
    }));
    try {
      where = ` WHERE ${compileCondition({ booleanOperator: plan.booleanOperator, filters }, { columns: innerColumns }, 'q', params, 'query')}`;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const index = Number(/filters\/(\d+)/.exec(error.extras.errors?.[0]?.location ?? '')?.[1] ?? 0);
      const condition = plan.conditions[index]!.condition;
      throw new QueryError('type_mismatch', `${condition.name.text}: ${error.extras.errors?.[0]?.message ?? error.detail}`, condition.span);
    }
  }
  // Each dataset read with its columns' canonical values (values.ts).
  const baseRelation = canonicalRelation(plan.base, base.relation.sql, params);
  const joinedRelations = new Map(plan.joins.map((j) => [j.alias, canonicalRelation(j.dataset, joined.get(j.alias)!.relation.sql, params)]));
  const innerSql = (tenant: TenantSql) => {
    const columns = [...inner.values()].map(({ name, bound }) => `${bound.side}.${quoteColumn(bound.column.name)} AS ${quoteColumn(name)}`);
    const from = `(${baseRelation(tenant)}) AS b`;
    const joins = plan.joins.map((j) => ` LEFT JOIN (${joinedRelations.get(j.alias)!(tenant)}) AS ${j.alias} ON ${j.from}.${quoteColumn(j.baseColumn)} = ${j.alias}.${quoteColumn(j.joinedColumn)}`);
    return `SELECT ${columns.length === 0 ? '1 AS c' : columns.join(', ')} FROM ${from}${joins.join('')}`;
  };
  // Default order: the groups shown, then the other columns, so pages are stable.
  const shown = [...plan.items.filter((p) => plan.groupBy.includes(p)), ...plan.items.filter((p) => !plan.groupBy.includes(p))];
  const order = plan.orderBy.length > 0 ? plan.orderBy.map((o) => `${quoteColumn(o.output)} ${o.direction.toUpperCase()}`) : shown.map((p) => quoteColumn(p.output));
  const sql = (tenant: TenantSql) =>
    `SELECT ${selects.join(', ')} FROM (${innerSql(tenant)}) AS q${where}${groups.length > 0 ? ` GROUP BY ${groups.join(', ')}` : ''} ORDER BY ${order.join(', ')}${plan.limit === null ? '' : ` LIMIT ${plan.limit}`}`;
  const page = (tenant: TenantSql, limit: string, offset: string) =>
    `SELECT *, count() OVER () AS ${TOTAL_COLUMN} FROM (${sql(tenant)}) AS r ORDER BY ${order.join(', ')} LIMIT ${limit} OFFSET ${offset}`;
  // Parameters of the datasets' own compiled queries come along (each dataset's names are its own).
  Object.assign(params.values, base.params.values, ...[...joined.values()].map((c) => c.params.values));
  return { sql, page, params, columns: plan.items.map((p) => ({ name: p.output, type: p.type })) };
}

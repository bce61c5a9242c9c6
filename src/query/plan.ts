import type { EnrichmentStatus } from '../../schemas/ontology.js';
import { type Candidate, quoteName, rank } from './suggest.js';
import { type Aggregate, type Condition, GRAINS, type MetricExpression, type Name, QuerySyntaxError, type SelectItem, type Span, type Statement, aggregatesOf, parseMetric } from './language.js';

/** A dataset as the query sees it: its output columns, each with the concept its source field is mapped to. */
export interface CatalogDataset {
  id: string;
  name: string;
  tags: string[];
  /** The sources it reads (its fields' concept mappings are theirs). */
  sourceIds: string[];
  columns: Array<{
    name: string;
    type: string;
    subtype: string | null;
    unit: string | null;
    conceptId: string | null;
    keyRole: 'primary' | 'foreign' | null;
    /** Values as written to the concept's canonical values (the field mapping's `valueMap`): the query reads the column through it. */
    valueMap: Record<string, string> | null;
    /** Computed by one of the dataset's `derive` operations. */
    derived: boolean;
  }>;
}

export interface CatalogConcept {
  id: string;
  name: string;
  classification: string;
  kind: string;
  description: string | null;
  unit: string | null;
  /** The source fields mapped to it (names a query may use for it). */
  fields: string[];
  /** A metric concept's formula (named in a query like a column). */
  metricSql: string | null;
  /** Its enrichment while one is in flight (a query through the concept waits for it). */
  enrichmentInFlight: EnrichmentStatus | null;
}

export interface QueryCatalog {
  datasets: CatalogDataset[];
  concepts: CatalogConcept[];
}

/** A failure of the query (spec: the anchor query error variant). */
export class QueryError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly span: Span | null,
    readonly candidates: Candidate[] = [],
    readonly perSource: Array<{ datasetId: string; datasetName: string; reason: string }> = [],
    /** A corrected query the planner knows (tried before the candidates). */
    readonly suggestion: string | null = null,
  ) {
    super(message);
  }
}

/** A name bound to one column: of the base dataset (`side` b) or of a joined one (its alias, j0, j1...). */
export interface Bound {
  side: string;
  column: CatalogDataset['columns'][number];
  conceptId: string | null;
  via: 'column' | 'concept';
}

/** A metric's formula with each aggregate bound to its column. */
export type BoundMetric =
  | { kind: 'number'; value: number }
  | { kind: 'aggregate'; fn: Aggregate; bound: Bound | null }
  | { kind: 'binary'; operator: '+' | '-' | '*' | '/'; left: BoundMetric; right: BoundMetric }
  | { kind: 'negate'; operand: BoundMetric };

export interface PlannedItem {
  item: SelectItem;
  bound: Bound | null;
  /** A metric concept named as a column: its formula, bound. */
  metric: { concept: CatalogConcept; formula: BoundMetric } | null;
  output: string;
  type: string;
}

export interface Join {
  alias: string;
  dataset: CatalogDataset;
  /** The side it joins onto: the base dataset (`b`) or a dataset joined before it (a chain). */
  from: string;
  fromDataset: CatalogDataset;
  /** The column of the `from` side. */
  baseColumn: string;
  joinedColumn: string;
  concept: CatalogConcept;
  strategy: 'lookup' | 'fanout';
}

/** The most datasets one query joins to the one it reads. */
export const MAX_JOINS = 4;

export interface QueryPlan {
  base: CatalogDataset;
  /** Datasets joined to the base one or to one joined before, each through an identifier concept both expose. */
  joins: Join[];
  items: PlannedItem[];
  groupBy: PlannedItem[];
  conditions: Array<{ condition: Condition; bound: Bound }>;
  booleanOperator: 'AND' | 'OR';
  orderBy: Array<{ output: string; direction: 'asc' | 'desc' }>;
  limit: number | null;
  aggregated: boolean;
  warnings: string[];
  /** Concepts the query names, and the anchor it joins through. */
  involved: Array<{ conceptId: string; name: string; role: 'referenced' | 'related' | 'anchor' | 'geo' }>;
}

const NUMERIC = new Set(['integer', 'decimal']);
const TIME = new Set(['date', 'datetime']);

/** Every name a query may use, for candidates: concepts, metrics, datasets, columns (as `dataset.column`), grains. */
export function candidatePool(catalog: QueryCatalog): Array<Omit<Candidate, 'score'>> {
  const pool: Array<Omit<Candidate, 'score'>> = [];
  for (const concept of catalog.concepts) {
    const kind = concept.kind === 'metric' || concept.classification === 'measure' ? 'metric' : 'concept';
    pool.push({ kind, id: concept.id, name: concept.name, syntax: quoteName(concept.name) });
    for (const field of concept.fields) pool.push({ kind, id: concept.id, name: field, syntax: quoteName(field) });
  }
  for (const dataset of catalog.datasets) {
    pool.push({ kind: 'dataset', id: dataset.id, name: dataset.name, syntax: quoteName(dataset.name) });
    // A tag finds the datasets it is on: written as the dataset's name.
    for (const tag of dataset.tags) pool.push({ kind: 'tag', id: dataset.id, name: tag, syntax: quoteName(dataset.name) });
    for (const column of dataset.columns) pool.push({ kind: column.derived ? 'derived' : 'source', id: dataset.id, name: column.name, syntax: quoteName(column.name) });
  }
  for (const grain of GRAINS) pool.push({ kind: 'grain', id: grain, name: grain, syntax: `${grain}(...)` });
  return pool;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The columns of a dataset a name can mean: a column of that name, or the columns mapped to a concept of that name (or of a field of that name). */
function columnsFor(dataset: CatalogDataset, text: string, catalog: QueryCatalog): Bound[] {
  const bound: Bound[] = [];
  for (const column of dataset.columns) {
    if (same(column.name, text)) bound.push({ side: 'b', column, conceptId: column.conceptId, via: 'column' });
  }
  if (bound.length > 0) return bound;
  const concepts = catalog.concepts.filter((c) => same(c.name, text) || c.fields.some((f) => same(f, text)));
  for (const column of dataset.columns) {
    if (column.conceptId !== null && concepts.some((c) => c.id === column.conceptId)) bound.push({ side: 'b', column, conceptId: column.conceptId, via: 'concept' });
  }
  return bound;
}

function findDataset(catalog: QueryCatalog, name: Name, text: string): CatalogDataset {
  const dataset = catalog.datasets.find((d) => same(d.name, text) || d.id === text);
  if (dataset === undefined) {
    const candidates = rank(text, candidatePool(catalog).filter((c) => c.kind === 'dataset' || c.kind === 'tag'));
    throw new QueryError('unknown_name', `No dataset of this workspace is called "${text}"`, name.span, candidates);
  }
  return dataset;
}

/** Output column name of an item. */
function outputOf(item: SelectItem): string {
  if (item.alias !== null) return item.alias;
  if (item.kind === 'aggregate') return item.name === null ? 'count' : `${item.fn}_${item.name.text}`;
  if (item.kind === 'grain') return `${item.fn}_${item.name!.text}`;
  return item.name!.text;
}

/** The metric concept (one with a formula) a column item names, or null. */
function metricNamed(catalog: QueryCatalog, name: Name | null): CatalogConcept | null {
  if (name === null || name.qualifier !== null) return null;
  return catalog.concepts.find((c) => c.metricSql !== null && same(c.name, name.text)) ?? null;
}

/** A metric's formula, parsed; a formula that no longer parses is the query's error at the item naming it. */
function formulaOf(concept: CatalogConcept, span: Span): MetricExpression {
  try {
    return parseMetric(concept.metricSql!);
  } catch (error) {
    if (!(error instanceof QuerySyntaxError)) throw error;
    throw new QueryError('invalid_metric', `Metric "${concept.name}": its formula ${JSON.stringify(concept.metricSql)} does not parse (${error.message}); fix the concept's metricSql`, span);
  }
}

/**
 * Resolves a SELECT against the catalog: chooses the dataset (FROM, or the one that holds the most names, the
 * aggregated ones first), binds every name to one column through the ontology, and joins another dataset when
 * names live there, only through an identifier concept it and the base dataset expose (never on column names alone).
 */
export function planSelect(statement: Extract<Statement, { kind: 'select' }>, catalog: QueryCatalog, text = ''): QueryPlan {
  if (catalog.datasets.length === 0) throw new QueryError('no_dataset', 'The workspace has no datasets to query: create one over your sources first', null);
  const names: Array<{ name: Name; aggregated: boolean }> = [];
  const aliases = new Set(statement.items.filter((i) => i.alias !== null && i.kind !== 'aggregate').map((i) => i.alias!.toLowerCase()));
  const isAlias = (item: SelectItem) => item.kind === 'column' && item.name!.qualifier === null && aliases.has(item.name!.text.toLowerCase());
  for (const item of [...statement.items, ...statement.groupBy.filter((g) => !isAlias(g))]) {
    const metric = item.kind === 'column' ? metricNamed(catalog, item.name) : null;
    // A metric stands for the names its formula aggregates (errors point at the item naming the metric).
    if (metric !== null) for (const leaf of aggregatesOf(formulaOf(metric, item.span))) if (leaf.name !== null) names.push({ name: { ...leaf.name, span: item.span }, aggregated: true });
    if (metric === null && item.name !== null) names.push({ name: item.name, aggregated: item.kind === 'aggregate' });
  }
  for (const condition of statement.where?.conditions ?? []) {
    const metric = metricNamed(catalog, condition.name);
    if (metric !== null) throw new QueryError('invalid_aggregate', `"${metric.name}" is a metric (an aggregate): WHERE filters rows before they are aggregated; filter on the columns it aggregates`, condition.name.span);
    names.push({ name: condition.name, aggregated: false });
  }
  const pool = candidatePool(catalog);

  // Unknown names first: a name nothing in the workspace answers to.
  for (const { name } of names) {
    const datasets = name.qualifier === null ? catalog.datasets : [findDataset(catalog, name, name.qualifier)];
    if (!datasets.some((d) => columnsFor(d, name.text, catalog).length > 0)) {
      throw new QueryError('unknown_name', `Nothing in ${name.qualifier === null ? 'the workspace' : `dataset "${name.qualifier}"`} is called "${name.text}": not a concept, a field mapped to one, or a dataset column`, name.span, rank(name.text, pool));
    }
  }

  let base: CatalogDataset;
  if (statement.from !== null) base = findDataset(catalog, statement.from, statement.from.text);
  else {
    // The dataset holding the most names (aggregated ones first); among equals, the one where they are the key of
    // the rows (the entity's own dataset: customers for Customer). Still equal: the query must say FROM.
    const score = (d: CatalogDataset) => {
      const held = names.filter(({ name }) => (name.qualifier === null || same(name.qualifier, d.name) || name.qualifier === d.id) && columnsFor(d, name.text, catalog).length > 0);
      const keys = held.filter(({ name }) => columnsFor(d, name.text, catalog).some((b) => b.column.keyRole === 'primary')).length;
      return [held.filter((n) => n.aggregated).length, held.length, keys];
    };
    const ranked = [...catalog.datasets].map((d) => ({ d, s: score(d) })).sort((a, b) => b.s[0]! - a.s[0]! || b.s[1]! - a.s[1]! || b.s[2]! - a.s[2]! || a.d.name.localeCompare(b.d.name));
    const tied = ranked.filter((r) => r.s.every((v, i) => v === ranked[0]!.s[i]));
    if (tied.length > 1) {
      const span: Span = statement.items[0]!.span;
      const candidates = tied.map((r) => ({ kind: 'dataset' as const, id: r.d.id, name: r.d.name, score: 1, syntax: `FROM ${quoteName(r.d.name)}` }));
      throw new QueryError('ambiguous_name', `The query could read any of ${tied.map((r) => `"${r.d.name}"`).join(', ')}: say which with FROM`, span, candidates, [],
        text === '' ? null : `${text.trimEnd()} FROM ${quoteName(tied[0]!.d.name)}`.replace(/ (WHERE|GROUP BY|ORDER BY|LIMIT)\b(.*) FROM (.*)$/i, ' FROM $3 $1$2'));
    }
    base = ranked[0]!.d;
  }

  // Bind each name: in the base dataset, else in a dataset already joined, else in a dataset reached by the shortest
  // chain of joins from those, each hop through an identifier concept both of its datasets expose.
  const joins: Join[] = [];
  const warnings: string[] = [];
  const bindIn = (join: Join, name: Name): Bound => {
    const options = [...new Map(columnsFor(join.dataset, name.text, catalog).map((o) => [o.column.name, o])).values()];
    if (options.length > 1) {
      throw new QueryError('ambiguous_name', `"${name.text}" means several columns of dataset "${join.dataset.name}"`, name.span,
        options.map((o) => ({ kind: 'source' as const, id: join.dataset.id, name: o.column.name, score: 1, syntax: `${quoteName(join.dataset.name)}.${quoteName(o.column.name)}` })));
    }
    return { ...options[0]!, side: join.alias };
  };
  const bind = (name: Name): Bound => {
    const inQualified = name.qualifier !== null ? findDataset(catalog, name, name.qualifier) : null;
    if (inQualified === null || inQualified.id === base.id) {
      const options = columnsFor(base, name.text, catalog);
      const distinct = [...new Map(options.map((o) => [o.column.name, o])).values()];
      if (distinct.length > 1) {
        throw new QueryError('ambiguous_name', `"${name.text}" means several columns of dataset "${base.name}": ${distinct.map((o) => o.column.name).join(', ')}; name the column`, name.span,
          distinct.map((o) => ({ kind: 'source' as const, id: base.id, name: o.column.name, score: 1, syntax: `${quoteName(base.name)}.${quoteName(o.column.name)}` })));
      }
      if (distinct.length === 1) return distinct[0]!;
      if (inQualified !== null) throw new QueryError('unknown_name', `Dataset "${base.name}" has no column "${name.text}"`, name.span, rank(name.text, base.columns.map((c) => ({ kind: 'source' as const, id: base.id, name: c.name, syntax: `${quoteName(base.name)}.${quoteName(c.name)}` }))));
    }
    const others = (inQualified === null ? catalog.datasets : [inQualified]).filter((d) => d.id !== base.id && columnsFor(d, name.text, catalog).length > 0);
    const joined = joins.filter((j) => others.some((d) => d.id === j.dataset.id));
    if (joined.length > 1) {
      throw new QueryError('ambiguous_name', `"${name.text}" is in several datasets the query joins: ${joined.map((j) => `"${j.dataset.name}"`).join(', ')}; say which`, name.span,
        joined.map((j) => ({ kind: 'dataset' as const, id: j.dataset.id, name: j.dataset.name, score: 1, syntax: `${quoteName(j.dataset.name)}.${quoteName(name.text)}` })));
    }
    if (joined.length === 1) return bindIn(joined[0]!, name);
    const reached = [{ alias: 'b', dataset: base }, ...joins.map((j) => ({ alias: j.alias, dataset: j.dataset }))];
    const chains = joinChains(reached, others, catalog, joins.length);
    if (chains.length === 0) {
      const reasons = others.map((other) => ({ datasetId: other.id, datasetName: other.name, reason: `no chain of joins through identifier concepts leads from "${base.name}" to it` }));
      throw new QueryError('no_join_path', `"${name.text}" is not in dataset "${base.name}", and no dataset that has it is linked to it through anchor concepts (identifiers)`, name.span, [], reasons);
    }
    if (chains.length > 1) {
      const ends = chains.map((chain) => chain.at(-1)!.dataset);
      throw new QueryError('ambiguous_name', `"${name.text}" is in several datasets that join "${base.name}": ${ends.map((d) => `"${d.name}"`).join(', ')}; say which`, name.span,
        ends.map((d) => ({ kind: 'dataset' as const, id: d.id, name: d.name, score: 1, syntax: `${quoteName(d.name)}.${quoteName(name.text)}` })));
    }
    const chain = chains[0]!;
    if (joins.length + chain.length > MAX_JOINS) {
      const end = chain.at(-1)!.dataset;
      throw new QueryError('no_join_path', `"${name.text}" would need ${chain.length} more join(s) to reach "${end.name}", but a query joins at most ${MAX_JOINS} datasets`, name.span, [],
        [{ datasetId: end.id, datasetName: end.name, reason: `beyond ${MAX_JOINS} joins` }]);
    }
    joins.push(...chain);
    return bindIn(chain.at(-1)!, name);
  };

  const outputs = new Set<string>();
  /** An output column name not yet taken (the name, else name_2, name_3...). */
  const claimOutput = (name: string) => {
    let output = name;
    for (let n = 2; outputs.has(output); n += 1) output = `${name}_${n}`;
    outputs.add(output);
    return output;
  };
  const checkAggregate = (fn: string | null, name: Name | null, type: string, span: Span) => {
    if ((fn === 'sum' || fn === 'avg') && !NUMERIC.has(type)) throw new QueryError('invalid_aggregate', `${fn} needs numbers; "${name!.text}" is ${type}`, span, []);
  };
  const bindFormula = (formula: MetricExpression, span: Span): BoundMetric => {
    if (formula.kind === 'number') return formula;
    if (formula.kind === 'negate') return { kind: 'negate', operand: bindFormula(formula.operand, span) };
    if (formula.kind === 'binary') return { ...formula, left: bindFormula(formula.left, span), right: bindFormula(formula.right, span) };
    const bound = formula.name === null ? null : bind({ ...formula.name, span });
    checkAggregate(formula.fn, formula.name, bound?.column.type ?? 'integer', span);
    return { kind: 'aggregate', fn: formula.fn, bound };
  };
  const plannedItem = (item: SelectItem, register: boolean): PlannedItem => {
    const metricConcept = item.kind === 'column' ? metricNamed(catalog, item.name) : null;
    if (metricConcept !== null) {
      if (!register) throw new QueryError('invalid_aggregate', `"${metricConcept.name}" is a metric (an aggregate): group by columns or time grains`, item.span);
      const output = claimOutput(item.alias ?? metricConcept.name);
      return { item, bound: null, metric: { concept: metricConcept, formula: bindFormula(formulaOf(metricConcept, item.span), item.span) }, output, type: 'decimal' };
    }
    const bound = item.name === null ? null : bind(item.name);
    const type = bound === null ? 'integer' : bound.column.type;
    if (item.kind === 'aggregate') checkAggregate(item.fn, item.name, type, item.span);
    if (item.kind === 'grain' && !TIME.has(type)) throw new QueryError('type_mismatch', `${item.fn}(...) groups times; "${item.name!.text}" is ${type}`, item.span, []);
    if (item.kind === 'grain' && item.fn === 'hour' && type !== 'datetime') throw new QueryError('type_mismatch', `hour(...) needs times of day; "${item.name!.text}" holds dates`, item.span, []);
    const output = register ? claimOutput(outputOf(item)) : outputOf(item);
    const resultType = item.kind === 'aggregate' ? (['count', 'countDistinct'].includes(item.fn!) ? 'integer' : item.fn === 'avg' ? 'decimal' : type) : item.kind === 'grain' ? 'date' : type;
    return { item, bound, metric: null, output, type: resultType };
  };
  const items = statement.items.map((item) => plannedItem(item, true));
  const aggregated = items.some((p) => p.item.kind === 'aggregate' || p.metric !== null);
  const key = (p: PlannedItem) => (p.metric !== null ? `metric:${p.metric.concept.id}` : `${p.item.kind}:${p.item.fn}:${p.bound?.side}.${p.bound?.column.name}`);
  const groupBy = statement.groupBy.map((item) => {
    // A group may name a shown column by its output name (an alias: GROUP BY m for month(order_date) AS m).
    const byOutput = item.kind === 'column' && item.name!.qualifier === null ? items.find((p) => p.item.kind !== 'aggregate' && p.item.alias !== null && same(p.output, item.name!.text)) : undefined;
    if (byOutput !== undefined) return byOutput;
    const planned = plannedItem(item, false);
    if (item.kind === 'aggregate') throw new QueryError('invalid_aggregate', 'GROUP BY takes columns and time grains, not aggregates', item.span);
    return items.find((p) => key(p) === key(planned)) ?? planned;
  });
  if (!aggregated && groupBy.length > 0) {
    // Grouping without an aggregate lists the distinct groups: every column shown must be one of them.
    const loose = items.find((p) => !groupBy.some((g) => key(g) === key(p)));
    if (loose !== undefined) throw new QueryError('invalid_aggregate', `"${loose.output}" is neither grouped nor aggregated: add it to GROUP BY or aggregate it`, loose.item.span);
  }
  if (aggregated) {
    for (const planned of items) {
      if (planned.item.kind !== 'aggregate' && planned.metric === null && !groupBy.some((g) => key(g) === key(planned))) {
        groupBy.push(planned);
        warnings.push(`Grouped by ${planned.output} as well: every column shown beside an aggregate is a group`);
      }
    }
  }
  const conditions = (statement.where?.conditions ?? []).map((condition) => ({ condition, bound: bind(condition.name) }));
  const orderBy = statement.orderBy.map(({ target, direction }) => {
    const text = target.name?.text ?? '';
    const byOutput = target.kind === 'column' ? items.find((p) => same(p.output, text) || (p.item.kind === 'column' && p.item.name !== null && same(p.item.name.text, text))) : undefined;
    const planned = byOutput ?? (target.kind === 'column' ? undefined : items.find((p) => key(p) === key(plannedItem(target, false))));
    if (planned === undefined) {
      throw new QueryError('unknown_name', `ORDER BY ${text || 'that'}: order by a column the query shows`, target.span,
        rank(text, items.map((p) => ({ kind: 'derived' as const, id: p.output, name: p.output, syntax: quoteName(p.output) }))));
    }
    return { output: planned.output, direction };
  });

  for (const join of joins) {
    if (join.strategy === 'fanout') warnings.push(`"${join.dataset.name}" has several rows per ${join.concept.name}: joining repeats the rows of "${base.name}" (see the plan's fanout)`);
  }
  const involved = new Map<string, QueryPlan['involved'][number]>();
  const conceptById = new Map(catalog.concepts.map((c) => [c.id, c]));
  const formulaBounds = (formula: BoundMetric): Bound[] =>
    formula.kind === 'aggregate' ? (formula.bound === null ? [] : [formula.bound]) : formula.kind === 'binary' ? [...formulaBounds(formula.left), ...formulaBounds(formula.right)] : formula.kind === 'negate' ? formulaBounds(formula.operand) : [];
  for (const planned of items) if (planned.metric !== null) involved.set(planned.metric.concept.id, { conceptId: planned.metric.concept.id, name: planned.metric.concept.name, role: 'referenced' });
  const metricBounds = items.flatMap((p) => (p.metric === null ? [] : formulaBounds(p.metric.formula)));
  for (const bound of [...items, ...groupBy].map((p) => p.bound).concat(conditions.map((c) => c.bound), metricBounds)) {
    if (bound?.conceptId == null) continue;
    const concept = conceptById.get(bound.conceptId);
    if (concept !== undefined && !involved.has(concept.id)) involved.set(concept.id, { conceptId: concept.id, name: concept.name, role: concept.classification === 'location' ? 'geo' : 'referenced' });
  }
  for (const join of joins) involved.set(join.concept.id, { conceptId: join.concept.id, name: join.concept.name, role: 'anchor' });
  return { base, joins, items, groupBy, conditions, booleanOperator: statement.where?.operator ?? 'AND', orderBy, limit: statement.limit, aggregated, warnings, involved: [...involved.values()] };
}

/**
 * The shortest chains of joins from the datasets a query reads (`reached`, by alias) to each of `targets` it can
 * reach: a breadth-first search over datasets, a hop being anchorPath. One chain per target at the least depth
 * (none when no target is within MAX_JOINS hops); new joins are aliased from j<joinCount> on.
 */
function joinChains(reached: Array<{ alias: string; dataset: CatalogDataset }>, targets: CatalogDataset[], catalog: QueryCatalog, joinCount: number): Join[][] {
  const seen = new Set(reached.map((r) => r.dataset.id));
  let frontier: Array<{ alias: string; dataset: CatalogDataset; chain: Join[] }> = reached.map((r) => ({ ...r, chain: [] }));
  for (let depth = 1; depth <= MAX_JOINS && frontier.length > 0; depth++) {
    const next: typeof frontier = [];
    for (const node of frontier) {
      for (const other of catalog.datasets) {
        if (seen.has(other.id) || next.some((n) => n.dataset.id === other.id)) continue;
        const hop = anchorPath(node, other, catalog, `j${joinCount + node.chain.length}`);
        if (hop !== null) next.push({ alias: hop.alias, dataset: other, chain: [...node.chain, hop] });
      }
    }
    const ends = next.filter((n) => targets.some((t) => t.id === n.dataset.id));
    if (ends.length > 0) return ends.map((n) => n.chain);
    for (const n of next) seen.add(n.dataset.id);
    frontier = next;
  }
  return [];
}

/** Column types whose values compare as one kind in a join (a key inferred as categorical in one source, as text in another). */
const typeClass = (type: string) => (type === 'categorical' ? 'text' : type);

/** The join of `other` onto a side the query reads, through an identifier concept both expose (its key in `other` preferred). */
function anchorPath(from: { alias: string; dataset: CatalogDataset }, other: CatalogDataset, catalog: QueryCatalog, alias: string): Join | null {
  const base = from.dataset;
  const identifiers = catalog.concepts.filter((c) => c.classification === 'identifier');
  const paths: Join[] = [];
  for (const concept of identifiers) {
    const left = base.columns.find((c) => c.conceptId === concept.id);
    const rights = other.columns.filter((c) => c.conceptId === concept.id && left !== undefined && typeClass(c.type) === typeClass(left.type));
    if (left === undefined || rights.length === 0) continue;
    const right = rights.find((c) => c.keyRole === 'primary') ?? rights[0]!;
    paths.push({ alias, dataset: other, from: from.alias, fromDataset: base, baseColumn: left.name, joinedColumn: right.name, concept, strategy: right.keyRole === 'primary' ? 'lookup' : 'fanout' });
  }
  return paths.sort((a, b) => (a.strategy === 'lookup' ? 0 : 1) - (b.strategy === 'lookup' ? 0 : 1))[0] ?? null;
}


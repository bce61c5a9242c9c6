/**
 * The anchor query language (README "Asking by meaning"): a small SELECT over the workspace's concepts and datasets,
 * plus SHOW and DESCRIBE. Tokens keep their place in the text, so every error points at its span.
 *
 *   SELECT item, ... [FROM dataset] [WHERE condition (AND|OR) ...] [GROUP BY group, ...] [ORDER BY key [ASC|DESC], ...] [LIMIT n]
 *   item      := function(name | *) [AS alias] | grain(name) [AS alias] | name [AS alias]
 *   condition := name operator value | name IS [NOT] EMPTY | name [NOT] IN (value, ...)
 *   SHOW CONCEPTS | SHOW DATASETS | SHOW METRICS      DESCRIBE name
 *
 * A metric concept's `metricSql` is a formula over aggregates, named in a query like a column:
 *   metric    := term (("+" | "-") term)*      term := factor (("*" | "/") factor)*
 *   factor    := number | function(name | *) | "(" metric ")" | "-" factor
 *
 * Names are concepts, their fields, or dataset columns (`dataset.column` to say which); quote names with spaces
 * ("order amount"). Values are numbers, 'text', TRUE or FALSE.
 */

import type { ComparisonOperator } from '../../schemas/datasets.js';

export type Span = [number, number];

export const AGGREGATES = ['sum', 'avg', 'min', 'max', 'count', 'countDistinct', 'first', 'last'] as const;
export type Aggregate = (typeof AGGREGATES)[number];
export const GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

/** Words people write for the aggregates (SQL dialects, spreadsheets): read as a hint in the error, never silently. */
const FUNCTION_SYNONYMS: Record<string, string> = {
  total: 'sum', add: 'sum', mean: 'avg', average: 'avg', median: 'avg', number: 'count', n: 'count', distinct: 'countDistinct', uniq: 'countDistinct', ndv: 'countDistinct',
  lowest: 'min', least: 'min', minimum: 'min', highest: 'max', greatest: 'max', maximum: 'max', top: 'max', any: 'first', latest: 'last',
};
export type Grain = (typeof GRAINS)[number];
/** The largest LIMIT a query may name (pages are at most 1000 rows in any case). */
export const MAX_LIMIT = 1_000_000_000;

/** Comparison words of the language and the spec's ComparisonOperator each one is. */
export const OPERATORS: Record<string, ComparisonOperator> = {
  '=': 'Equal to',
  '!=': 'Not Equal to',
  '<>': 'Not Equal to',
  '<': 'Less than',
  '>': 'Greater than',
  '<=': 'Less than or equal to',
  '>=': 'Greater than or equal to',
  CONTAINS: 'Contains',
  'NOT CONTAINS': 'Does not contain',
  'STARTS WITH': 'Starts with',
  'ENDS WITH': 'Ends with',
  BEFORE: 'Before',
  AFTER: 'After',
  'IS EMPTY': 'Is Empty',
  'IS NOT EMPTY': 'Is not Empty',
  IN: 'Equal to',
  'NOT IN': 'Not Equal to',
};

export interface Name {
  /** `dataset.column`: the dataset part. */
  qualifier: string | null;
  text: string;
  span: Span;
}

export interface SelectItem {
  kind: 'column' | 'aggregate' | 'grain';
  fn: Aggregate | Grain | null;
  /** null for count(*). */
  name: Name | null;
  alias: string | null;
  span: Span;
}

export interface Condition {
  name: Name;
  operator: ComparisonOperator;
  values: Array<string | number | boolean>;
  span: Span;
}

export interface OrderKey {
  /** An alias or output column name, or an item written again. */
  target: SelectItem;
  direction: 'asc' | 'desc';
}

/** A metric's formula (its concept's `metricSql`), spans into that text. */
export type MetricExpression =
  | { kind: 'number'; value: number }
  | { kind: 'aggregate'; fn: Aggregate; name: Name | null; span: Span }
  | { kind: 'binary'; operator: '+' | '-' | '*' | '/'; left: MetricExpression; right: MetricExpression }
  | { kind: 'negate'; operand: MetricExpression };

export type Statement =
  | { kind: 'select'; items: SelectItem[]; from: Name | null; where: { operator: 'AND' | 'OR'; conditions: Condition[] } | null; groupBy: SelectItem[]; orderBy: OrderKey[]; limit: number | null }
  | { kind: 'show'; what: 'CONCEPTS' | 'DATASETS' | 'METRICS' }
  | { kind: 'describe'; name: Name };

export class QuerySyntaxError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly span: Span | null,
    /** What would fit at the span (for candidates and a suggested query). */
    readonly expected: string[] = [],
  ) {
    super(message);
  }
}

interface Token {
  kind: 'word' | 'quoted' | 'string' | 'number' | 'symbol' | 'end';
  text: string;
  span: Span;
}

const SYMBOLS = new Set(['(', ')', ',', '.', '*', '=', '<', '>', '<=', '>=', '!=', '<>', '+', '-', '/']);
/** Tokens after which a "-" is subtraction, not a number's sign. */
const ENDS_A_VALUE = new Set(['number', 'word', 'quoted', 'string']);
const KEYWORDS = new Set(['SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'ORDER', 'LIMIT', 'AS', 'AND', 'OR', 'ASC', 'DESC', 'SHOW', 'DESCRIBE', 'IS', 'NOT', 'EMPTY', 'IN', 'CONTAINS', 'STARTS', 'ENDS', 'WITH', 'BEFORE', 'AFTER', 'TRUE', 'FALSE']);

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
      continue;
    }
    const start = i;
    if (c === "'" || c === '"') {
      let value = '';
      i += 1;
      for (;;) {
        if (i >= text.length) throw new QuerySyntaxError('syntax_error', `Unterminated ${c === "'" ? 'text value' : 'quoted name'}: close it with ${c}`, [start, text.length], [c]);
        if (text[i] === c && text[i + 1] === c) {
          value += c;
          i += 2;
        } else if (text[i] === c) {
          i += 1;
          break;
        } else value += text[i++];
      }
      tokens.push({ kind: c === "'" ? 'string' : 'quoted', text: value, span: [start, i] });
    } else if (/[0-9]/.test(c) || (c === '-' && /[0-9]/.test(text[i + 1] ?? '') && !endsValue(tokens.at(-1)))) {
      i += 1;
      while (i < text.length && /[0-9.eE]/.test(text[i]!)) i += 1;
      tokens.push({ kind: 'number', text: text.slice(start, i), span: [start, i] });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < text.length && /[A-Za-z0-9_]/.test(text[i]!)) i += 1;
      tokens.push({ kind: 'word', text: text.slice(start, i), span: [start, i] });
    } else {
      const two = text.slice(i, i + 2);
      const symbol = ['<=', '>=', '!=', '<>'].includes(two) ? two : c;
      if (!SYMBOLS.has(symbol)) throw new QuerySyntaxError('syntax_error', `Unexpected character "${c}"`, [i, i + 1]);
      i += symbol.length;
      tokens.push({ kind: 'symbol', text: symbol, span: [start, i] });
    }
  }
  tokens.push({ kind: 'end', text: '', span: [text.length, text.length] });
  return tokens;
}

const endsValue = (token: Token | undefined) => token !== undefined && (ENDS_A_VALUE.has(token.kind) || token.text === ')');

/** Parses a metric's formula; throws QuerySyntaxError with the span of the first problem in it. */
export function parseMetric(text: string): MetricExpression {
  if (text.trim() === '') throw new QuerySyntaxError('empty_query', 'The metric formula is empty: combine aggregates, e.g. sum(amount) / countDistinct(Customer)', null, ['sum(']);
  return new Parser(tokenize(text)).metric();
}

/** Parses a query; throws QuerySyntaxError with the span of the first problem. */
export function parse(text: string): Statement {
  if (text.trim() === '') throw new QuerySyntaxError('empty_query', 'The query is empty: start with SELECT, SHOW or DESCRIBE', null, ['SELECT', 'SHOW', 'DESCRIBE']);
  return new Parser(tokenize(text)).statement();
}

class Parser {
  private at = 0;

  constructor(private readonly tokens: Token[]) {}

  private peek(offset = 0): Token {
    return this.tokens[Math.min(this.at + offset, this.tokens.length - 1)]!;
  }

  private isWord(word: string, offset = 0): boolean {
    const token = this.peek(offset);
    return token.kind === 'word' && token.text.toUpperCase() === word;
  }

  private take(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.at += 1;
    return token;
  }

  private expectWord(word: string, context: string): Token {
    if (!this.isWord(word)) throw this.unexpected(`${context}: expected ${word}`, [word]);
    return this.take();
  }

  private expectSymbol(symbol: string, context: string): Token {
    const token = this.peek();
    if (token.kind !== 'symbol' || token.text !== symbol) throw this.unexpected(`${context}: expected "${symbol}"`, [symbol]);
    return this.take();
  }

  private unexpected(message: string, expected: string[]): QuerySyntaxError {
    const token = this.peek();
    const found = token.kind === 'end' ? 'the end of the query' : `"${token.text}"`;
    return new QuerySyntaxError('syntax_error', `${message}, found ${found}`, token.span, expected);
  }

  statement(): Statement {
    let statement: Statement;
    if (this.isWord('SELECT')) statement = this.select();
    else if (this.isWord('SHOW')) {
      this.take();
      const what = this.peek();
      const upper = what.text.toUpperCase();
      if (what.kind !== 'word' || !['CONCEPTS', 'DATASETS', 'METRICS'].includes(upper)) throw this.unexpected('SHOW what', ['CONCEPTS', 'DATASETS', 'METRICS']);
      this.take();
      statement = { kind: 'show', what: upper as 'CONCEPTS' | 'DATASETS' | 'METRICS' };
    } else if (this.isWord('DESCRIBE')) {
      this.take();
      statement = { kind: 'describe', name: this.name('DESCRIBE') };
    } else throw this.unexpected('A query starts with SELECT, SHOW or DESCRIBE', ['SELECT', 'SHOW', 'DESCRIBE']);
    if (this.peek().kind !== 'end') throw this.unexpected('The query should end here', []);
    return statement;
  }

  metric(): MetricExpression {
    const expression = this.sum();
    if (this.peek().kind !== 'end') throw this.unexpected('The formula should end here (combine aggregates with + - * /)', ['+', '-', '*', '/']);
    if (!hasAggregate(expression)) throw new QuerySyntaxError('invalid_aggregate', 'A metric aggregates: use sum(...), avg(...), count(*) or another aggregate', null, [...AGGREGATES]);
    return expression;
  }

  private sum(): MetricExpression {
    return this.binary(['+', '-'], () => this.product());
  }

  private product(): MetricExpression {
    return this.binary(['*', '/'], () => this.factor());
  }

  /** Operands joined left to right by operators of one precedence. */
  private binary(operators: ReadonlyArray<'+' | '-' | '*' | '/'>, operand: () => MetricExpression): MetricExpression {
    let left = operand();
    while (this.peek().kind === 'symbol' && (operators as readonly string[]).includes(this.peek().text)) {
      const operator = this.take().text as '+' | '-' | '*' | '/';
      left = { kind: 'binary', operator, left, right: operand() };
    }
    return left;
  }

  private factor(): MetricExpression {
    const token = this.peek();
    if (token.kind === 'number') return { kind: 'number', value: this.value() as number };
    if (token.kind === 'symbol' && token.text === '-') {
      this.take();
      return { kind: 'negate', operand: this.factor() };
    }
    if (token.kind === 'symbol' && token.text === '(') {
      this.take();
      const inner = this.sum();
      this.expectSymbol(')', '( ... ');
      return inner;
    }
    const item = this.item('the formula');
    if (item.alias !== null) throw new QuerySyntaxError('syntax_error', 'AS names a query\'s output columns, not a part of a formula', item.span, [...AGGREGATES]);
    if (item.kind !== 'aggregate') throw new QuerySyntaxError('invalid_aggregate', 'A formula combines aggregates and numbers: wrap the name in sum(...), avg(...) or another aggregate', item.span, [...AGGREGATES]);
    return { kind: 'aggregate', fn: item.fn as Aggregate, name: item.name, span: item.span };
  }

  private select(): Statement {
    this.take();
    const items = [this.item('SELECT')];
    while (this.peek().text === ',' && this.peek().kind === 'symbol') {
      this.take();
      items.push(this.item('SELECT'));
    }
    let from: Name | null = null;
    if (this.isWord('FROM')) {
      this.take();
      from = this.name('FROM');
      if (from.qualifier !== null) throw new QuerySyntaxError('syntax_error', 'FROM names one dataset, not a column', from.span, [from.qualifier]);
    }
    let where: { operator: 'AND' | 'OR'; conditions: Condition[] } | null = null;
    if (this.isWord('WHERE')) {
      this.take();
      where = { operator: 'AND', conditions: [this.condition()] };
      let joiner: 'AND' | 'OR' | null = null;
      while (this.isWord('AND') || this.isWord('OR')) {
        const word = this.take();
        const operator = word.text.toUpperCase() as 'AND' | 'OR';
        if (joiner !== null && joiner !== operator) throw new QuerySyntaxError('mixed_boolean', 'Use AND or OR between all conditions, not both (the language has no parentheses)', word.span, [joiner]);
        joiner = operator;
        where.operator = operator;
        where.conditions.push(this.condition());
      }
    }
    const groupBy: SelectItem[] = [];
    if (this.isWord('GROUP')) {
      this.take();
      this.expectWord('BY', 'GROUP');
      groupBy.push(this.item('GROUP BY'));
      while (this.peek().kind === 'symbol' && this.peek().text === ',') {
        this.take();
        groupBy.push(this.item('GROUP BY'));
      }
    }
    const orderBy: OrderKey[] = [];
    if (this.isWord('ORDER')) {
      this.take();
      this.expectWord('BY', 'ORDER');
      for (;;) {
        const target = this.item('ORDER BY');
        let direction: 'asc' | 'desc' = 'asc';
        if (this.isWord('ASC') || this.isWord('DESC')) direction = this.take().text.toLowerCase() as 'asc' | 'desc';
        orderBy.push({ target, direction });
        if (!(this.peek().kind === 'symbol' && this.peek().text === ',')) break;
        this.take();
      }
    }
    let limit: number | null = null;
    if (this.isWord('LIMIT')) {
      this.take();
      const token = this.peek();
      if (token.kind !== 'number' || !/^\d+$/.test(token.text) || Number(token.text) < 1 || Number(token.text) > MAX_LIMIT) {
        throw new QuerySyntaxError('invalid_limit', `LIMIT takes a whole number of rows, 1 to ${MAX_LIMIT}`, token.span, ['100']);
      }
      limit = Number(this.take().text);
    }
    return { kind: 'select', items, from, where, groupBy, orderBy, limit };
  }

  item(context: string): SelectItem {
    const start = this.peek().span[0];
    const word = this.peek();
    let item: SelectItem;
    if (word.kind === 'word' && this.peek(1).kind === 'symbol' && this.peek(1).text === '(') {
      const fn = word.text;
      const aggregate = AGGREGATES.find((a) => a.toLowerCase() === fn.toLowerCase());
      const grain = GRAINS.find((g) => g === fn.toLowerCase());
      if (aggregate === undefined && grain === undefined) {
        const meant = FUNCTION_SYNONYMS[fn.toLowerCase()];
        const expected = [...AGGREGATES, ...GRAINS].sort((a, b) => Number(b === meant) - Number(a === meant));
        throw new QuerySyntaxError('unknown_function', `Unknown function ${fn}${meant === undefined ? '' : ` (${meant}?)`}: aggregates are ${AGGREGATES.join(', ')}; time grains ${GRAINS.join(', ')}`, word.span, expected);
      }
      this.take();
      this.take();
      let name: Name | null = null;
      if (this.peek().kind === 'symbol' && this.peek().text === '*') {
        if (aggregate !== 'count') throw this.unexpected(`${fn}(*) means nothing: name what to ${fn}`, []);
        this.take();
      } else name = this.name(`${fn}(`);
      const close = this.expectSymbol(')', `${fn}(...)`);
      item = { kind: aggregate !== undefined ? 'aggregate' : 'grain', fn: aggregate ?? grain!, name, alias: null, span: [start, close.span[1]] };
    } else {
      const name = this.name(context);
      item = { kind: 'column', fn: null, name, alias: null, span: name.span };
    }
    if (this.isWord('AS')) {
      this.take();
      const alias = this.peek();
      if (alias.kind !== 'word' && alias.kind !== 'quoted') throw this.unexpected('AS names the output column', ['alias']);
      this.take();
      item.alias = alias.text;
      item.span = [item.span[0], alias.span[1]];
    }
    return item;
  }

  private name(context: string): Name {
    const token = this.peek();
    if ((token.kind !== 'word' || KEYWORDS.has(token.text.toUpperCase())) && token.kind !== 'quoted') throw this.unexpected(`${context}: expected a concept, column or dataset name`, ['name']);
    this.take();
    if (this.peek().kind === 'symbol' && this.peek().text === '.') {
      this.take();
      const column = this.peek();
      if (column.kind !== 'word' && column.kind !== 'quoted') throw this.unexpected(`${token.text}.: expected a column name`, ['name']);
      this.take();
      return { qualifier: token.text, text: column.text, span: [token.span[0], column.span[1]] };
    }
    return { qualifier: null, text: token.text, span: token.span };
  }

  private condition(): Condition {
    const name = this.name('WHERE');
    const start = name.span[0];
    const token = this.peek();
    let operator: string; // the language's words; OPERATORS maps them to the spec's
    if (this.isWord('IS')) {
      this.take();
      const negated = this.isWord('NOT');
      if (negated) this.take();
      const empty = this.expectWord('EMPTY', 'IS [NOT]');
      return { name, operator: OPERATORS[negated ? 'IS NOT EMPTY' : 'IS EMPTY']!, values: [], span: [start, empty.span[1]] };
    }
    if (this.isWord('NOT') && (this.isWord('IN', 1) || this.isWord('CONTAINS', 1))) {
      this.take();
      operator = `NOT ${this.take().text.toUpperCase()}`;
    } else if ((this.isWord('STARTS') || this.isWord('ENDS')) && this.isWord('WITH', 1)) {
      operator = `${this.take().text.toUpperCase()} WITH`;
      this.take();
    } else if (token.kind === 'symbol' && OPERATORS[token.text] !== undefined) operator = this.take().text;
    else if (token.kind === 'word' && ['CONTAINS', 'BEFORE', 'AFTER', 'IN'].includes(token.text.toUpperCase())) operator = this.take().text.toUpperCase();
    else throw this.unexpected(`After ${name.text}: expected a comparison`, Object.keys(OPERATORS));
    const values: Array<string | number | boolean> = [];
    let end: number;
    if (operator === 'IN' || operator === 'NOT IN') {
      this.expectSymbol('(', operator);
      values.push(this.value());
      while (this.peek().kind === 'symbol' && this.peek().text === ',') {
        this.take();
        values.push(this.value());
      }
      end = this.expectSymbol(')', operator).span[1];
    } else {
      values.push(this.value());
      end = this.tokens[this.at - 1]!.span[1];
    }
    return { name, operator: OPERATORS[operator]!, values, span: [start, end] };
  }

  private value(): string | number | boolean {
    const token = this.peek();
    if (token.kind === 'string') return this.take().text;
    if (token.kind === 'number') {
      const number = Number(token.text);
      if (!Number.isFinite(number)) throw new QuerySyntaxError('syntax_error', `${token.text} is not a number`, token.span);
      this.take();
      return number;
    }
    if (this.isWord('TRUE') || this.isWord('FALSE')) return this.take().text.toUpperCase() === 'TRUE';
    throw this.unexpected("Expected a value: a number, 'text', TRUE or FALSE", ['0', "'value'", 'TRUE']);
  }
}

function hasAggregate(expression: MetricExpression): boolean {
  if (expression.kind === 'aggregate') return true;
  if (expression.kind === 'binary') return hasAggregate(expression.left) || hasAggregate(expression.right);
  return expression.kind === 'negate' && hasAggregate(expression.operand);
}

/** The aggregates a formula reads. */
export function aggregatesOf(expression: MetricExpression): Array<Extract<MetricExpression, { kind: 'aggregate' }>> {
  if (expression.kind === 'aggregate') return [expression];
  if (expression.kind === 'binary') return [...aggregatesOf(expression.left), ...aggregatesOf(expression.right)];
  return expression.kind === 'negate' ? aggregatesOf(expression.operand) : [];
}

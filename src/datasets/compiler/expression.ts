import type { ColumnType } from '../../tables/inference/infer-schema.js';
import type { Params } from './params.js';
import { type Relation, definitionError, findColumn, qualified } from './relation.js';
import { readInstant } from './values.js';

/**
 * The derived-column expression language: a small, typed language compiled to ClickHouse SQL. It can name the
 * relation's columns and a fixed list of functions; every literal becomes a bound parameter. Nothing a client
 * writes is ever passed to the engine as SQL.
 */

type Token = { kind: 'number' | 'string' | 'name' | 'quoted' | 'op' | 'end'; text: string; at: number };
type Node =
  | { kind: 'literal'; value: number | string | boolean | null }
  | { kind: 'column'; name: string }
  | { kind: 'unary'; op: '-' | 'not'; operand: Node }
  | { kind: 'binary'; op: string; left: Node; right: Node }
  | { kind: 'call'; name: string; args: Node[] };

/** Result types of expressions ('null' for a bare null literal, which fits any type). */
type ExprType = ColumnType | 'null';

export interface CompiledExpression {
  sql: string;
  type: ColumnType;
}

const MAX_LENGTH = 2000;
const MAX_DEPTH = 40;
/** Long flat chains (a + b + c ...) nest in the engine's parser as deeply as they are long. */
const MAX_TOKENS = 300;

export function compileExpression(source: string, relation: Pick<Relation, 'columns'>, alias: string, params: Params, location: string): CompiledExpression {
  if (source.length > MAX_LENGTH) throw definitionError(location, `an expression is at most ${MAX_LENGTH} characters`);
  const fail = (message: string, at?: number) => definitionError(location, at === undefined ? message : `${message} at character ${at + 1}`);
  const tokens = tokenize(source, fail);
  if (tokens.length > MAX_TOKENS) throw fail(`an expression has at most ${MAX_TOKENS} terms and operators`);
  const tree = new Parser(tokens, fail).parseAll();
  const compiled = new Compiler(relation, alias, params, fail, location).compile(tree);
  return { sql: compiled.sql, type: compiled.type === 'null' ? 'text' : compiled.type };
}

function tokenize(source: string, fail: (message: string, at?: number) => Error): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      i += space[0].length;
      continue;
    }
    const number = /^(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?/.exec(rest);
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(rest);
    const op = /^(<=|>=|!=|<>|[-+*/%=<>(),])/.exec(rest);
    if (number !== null) {
      tokens.push({ kind: 'number', text: number[0], at: i });
      i += number[0].length;
    } else if (name !== null) {
      tokens.push({ kind: 'name', text: name[0], at: i });
      i += name[0].length;
    } else if (rest[0] === "'" || rest[0] === '"') {
      // 'text' literals and "quoted column names"; a doubled quote stands for itself.
      const quote = rest[0];
      let text = '';
      let j = 1;
      for (;;) {
        if (j >= rest.length) throw fail(`unclosed ${quote}`, i);
        if (rest[j] === quote) {
          if (rest[j + 1] === quote) {
            text += quote;
            j += 2;
            continue;
          }
          break;
        }
        text += rest[j];
        j += 1;
      }
      tokens.push({ kind: quote === "'" ? 'string' : 'quoted', text, at: i });
      i += j + 1;
    } else if (op !== null) {
      tokens.push({ kind: 'op', text: op[0] === '<>' ? '!=' : op[0], at: i });
      i += op[0].length;
    } else {
      throw fail(`unexpected ${JSON.stringify(rest[0])}`, i);
    }
  }
  tokens.push({ kind: 'end', text: '', at: source.length });
  return tokens;
}

/** Precedence climbing: or < and < not < comparison < + - < * / % < unary minus. */
class Parser {
  private position = 0;
  private depth = 0;

  constructor(
    private readonly tokens: Token[],
    private readonly fail: (message: string, at?: number) => Error,
  ) {}

  parseAll(): Node {
    const node = this.or();
    const next = this.peek();
    if (next.kind !== 'end') throw this.fail(`unexpected "${next.text}"`, next.at);
    return node;
  }

  private or(): Node {
    let node = this.and();
    while (this.keyword('or')) node = { kind: 'binary', op: 'or', left: node, right: this.and() };
    return node;
  }

  private and(): Node {
    let node = this.not();
    while (this.keyword('and')) node = { kind: 'binary', op: 'and', left: node, right: this.not() };
    return node;
  }

  private not(): Node {
    if (this.keyword('not')) return this.nested(() => ({ kind: 'unary', op: 'not', operand: this.not() }));
    return this.comparison();
  }

  private comparison(): Node {
    const left = this.additive();
    const next = this.peek();
    if (next.kind === 'op' && ['=', '!=', '<', '<=', '>', '>='].includes(next.text)) {
      this.position += 1;
      return { kind: 'binary', op: next.text, left, right: this.additive() };
    }
    return left;
  }

  private additive(): Node {
    let node = this.multiplicative();
    while (this.isOp('+', '-')) node = { kind: 'binary', op: this.tokens[this.position++]!.text, left: node, right: this.multiplicative() };
    return node;
  }

  private multiplicative(): Node {
    let node = this.unary();
    while (this.isOp('*', '/', '%')) node = { kind: 'binary', op: this.tokens[this.position++]!.text, left: node, right: this.unary() };
    return node;
  }

  private unary(): Node {
    if (this.isOp('-')) {
      this.position += 1;
      return this.nested(() => ({ kind: 'unary', op: '-', operand: this.unary() }));
    }
    return this.primary();
  }

  private primary(): Node {
    const token = this.tokens[this.position++]!;
    switch (token.kind) {
      case 'number':
        return { kind: 'literal', value: Number(token.text) };
      case 'string':
        return { kind: 'literal', value: token.text };
      case 'quoted':
        return { kind: 'column', name: token.text };
      case 'name': {
        const lower = token.text.toLowerCase();
        if (lower === 'true' || lower === 'false') return { kind: 'literal', value: lower === 'true' };
        if (lower === 'null') return { kind: 'literal', value: null };
        if (!this.isOp('(')) return { kind: 'column', name: token.text };
        this.position += 1;
        const args: Node[] = [];
        if (!this.isOp(')')) {
          do args.push(this.nested(() => this.or()));
          while (this.isOp(',') && ++this.position);
        }
        this.expect(')');
        return { kind: 'call', name: lower, args };
      }
      case 'op':
        if (token.text === '(') {
          const inner = this.nested(() => this.or());
          this.expect(')');
          return inner;
        }
        throw this.fail(`unexpected "${token.text}"`, token.at);
      default:
        throw this.fail('the expression ends too early', token.at);
    }
  }

  private nested(parse: () => Node): Node {
    if (++this.depth > MAX_DEPTH) throw this.fail(`the expression nests more than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      this.depth -= 1;
    }
  }

  private peek(): Token {
    return this.tokens[this.position]!;
  }

  private isOp(...ops: string[]): boolean {
    const token = this.peek();
    return token.kind === 'op' && ops.includes(token.text);
  }

  private keyword(word: string): boolean {
    const token = this.peek();
    if (token.kind === 'name' && token.text.toLowerCase() === word) {
      this.position += 1;
      return true;
    }
    return false;
  }

  private expect(op: string): void {
    const token = this.tokens[this.position++]!;
    if (token.kind !== 'op' || token.text !== op) throw this.fail(`expected "${op}"`, token.at);
  }
}

interface Typed {
  sql: string;
  type: ExprType;
  /** A literal's value, when the node is one (date comparisons bind text literals as dates). */
  literal?: unknown;
}

const NUMERIC = new Set<ExprType>(['integer', 'decimal', 'null']);
const TEMPORAL = new Set<ExprType>(['date', 'datetime']);
const DATE_UNITS = ['second', 'minute', 'hour', 'day', 'week', 'month', 'year'];

/** One signature per function: the argument check and the SQL it becomes. */
type FunctionRule = (args: Typed[], fail: (message: string) => Error) => Typed;

/**
 * Arithmetic that can leave the real numbers (x / 0, ln(0), sqrt(-1)) answers NULL instead of NaN or infinity,
 * which JSON cannot carry and which would otherwise break ordering and paging.
 */
const finite = (sql: string) => `if(isFinite(${sql}), ${sql}, NULL)`;

const numeric = (name: string, sqlName: string, result: ExprType = 'decimal'): FunctionRule => (args, fail) => {
  if (args.length !== 1 || !NUMERIC.has(args[0]!.type)) throw fail(`${name}(number) takes one number`);
  const type = result === 'integer' && args[0]!.type === 'decimal' ? 'decimal' : result;
  const sql = `${sqlName}(${args[0]!.sql})`;
  return { sql: type === 'decimal' ? finite(sql) : sql, type };
};
const text = (name: string, sqlName: string): FunctionRule => (args, fail) => {
  if (args.length !== 1) throw fail(`${name}(text) takes one argument`);
  return { sql: `${sqlName}(toString(${args[0]!.sql}))`, type: 'text' };
};
const datePart = (name: string, sqlName: string, accepts = TEMPORAL): FunctionRule => (args, fail) => {
  if (args.length !== 1 || !accepts.has(args[0]!.type)) throw fail(`${name}(${accepts.has('date') ? 'date' : 'datetime'}) takes one ${accepts.has('date') ? 'date or datetime' : 'datetime'}`);
  return { sql: `toInt64(${sqlName}(${args[0]!.sql}))`, type: 'integer' };
};
/**
 * Arguments that must share a type (coalesce, if, least, greatest), converted to it: mixed numbers become
 * Float64, since ClickHouse would otherwise make a Variant of Int64 and Float64.
 */
function unify(name: string, args: Typed[], fail: (message: string) => Error): { sql: string[]; type: ExprType } {
  const family = (type: ExprType) => (type === 'integer' || type === 'decimal' ? 'number' : type === 'categorical' ? 'text' : type);
  const types = new Set(args.map((a) => family(a.type)).filter((t) => t !== 'null'));
  if (types.size > 1) throw fail(`${name}() needs arguments of one type`);
  const present = args.filter((a) => a.type !== 'null');
  const type: ExprType = present.length === 0 ? 'null' : present.every((a) => a.type === 'integer') ? 'integer' : present[0]!.type === 'integer' ? 'decimal' : present[0]!.type;
  const convert = type === 'integer' ? 'toInt64' : type === 'decimal' ? 'toFloat64' : type === 'text' ? 'toString' : null;
  return { sql: args.map((a) => (convert === null || a.type === 'null' ? a.sql : `${convert}(${a.sql})`)), type };
}

const FUNCTIONS: Record<string, FunctionRule> = {
  abs: numeric('abs', 'abs', 'integer'),
  floor: numeric('floor', 'floor', 'integer'),
  ceil: numeric('ceil', 'ceil', 'integer'),
  sqrt: numeric('sqrt', 'sqrt'),
  exp: numeric('exp', 'exp'),
  ln: numeric('ln', 'log'),
  log10: numeric('log10', 'log10'),
  round: (args, fail) => {
    if (args.length < 1 || args.length > 2 || !args.every((a) => NUMERIC.has(a.type))) throw fail('round(number[, digits]) takes one or two numbers');
    // Halves round away from zero (2.5 -> 3), as people expect; ClickHouse's round() goes to the even neighbour.
    const scale = args.length === 1 ? '1' : `pow(10, ${args[1]!.sql})`;
    const x = args[0]!.sql;
    return { sql: `(sign(${x}) * floor(abs(${x}) * ${scale} + 0.5) / ${scale})`, type: args.length === 1 ? 'integer' : 'decimal' };
  },
  pow: (args, fail) => {
    if (args.length !== 2 || !args.every((a) => NUMERIC.has(a.type))) throw fail('pow(base, exponent) takes two numbers');
    return { sql: finite(`pow(${args[0]!.sql}, ${args[1]!.sql})`), type: 'decimal' };
  },
  least: (args, fail) => variadic('least', args, fail),
  greatest: (args, fail) => variadic('greatest', args, fail),
  coalesce: (args, fail) => {
    if (args.length < 2) throw fail('coalesce() takes at least two arguments');
    const unified = unify('coalesce', args, fail);
    return { sql: `coalesce(${unified.sql.join(', ')})`, type: unified.type };
  },
  if: (args, fail) => {
    if (args.length !== 3 || !['boolean', 'null'].includes(args[0]!.type)) throw fail('if(condition, then, else) takes a condition and two values');
    const unified = unify('if', args.slice(1), fail);
    return { sql: `if(${args[0]!.sql}, ${unified.sql.join(', ')})`, type: unified.type };
  },
  isnull: (args, fail) => {
    if (args.length !== 1) throw fail('isNull(value) takes one argument');
    return { sql: `isNull(${args[0]!.sql})`, type: 'boolean' };
  },
  lower: text('lower', 'lowerUTF8'),
  upper: text('upper', 'upperUTF8'),
  trim: text('trim', 'trimBoth'),
  totext: text('toText', ''),
  length: (args, fail) => {
    if (args.length !== 1) throw fail('length(value) takes one argument');
    return { sql: args[0]!.type === 'array' ? `toInt64(length(${args[0]!.sql}))` : `toInt64(lengthUTF8(toString(${args[0]!.sql})))`, type: 'integer' };
  },
  concat: (args, fail) => {
    if (args.length < 2) throw fail('concat() takes at least two arguments');
    return { sql: `concat(${args.map((a) => `ifNull(toString(${a.sql}), '')`).join(', ')})`, type: 'text' };
  },
  substring: (args, fail) => {
    if (args.length < 2 || args.length > 3 || !args.slice(1).every((a) => NUMERIC.has(a.type))) throw fail('substring(text, start[, length]) takes text and one or two numbers');
    // Positions count from 1; a start below 1 reads from the first character.
    const [start, length] = args.slice(1).map((a) => `toInt64(${a.sql})`);
    return { sql: `substringUTF8(toString(${args[0]!.sql}), greatest(${start}, 1)${length === undefined ? '' : `, greatest(${length}, 0)`})`, type: 'text' };
  },
  tonumber: (args, fail) => {
    if (args.length !== 1) throw fail('toNumber(value) takes one argument');
    return { sql: finite(`toFloat64OrNull(toString(${args[0]!.sql}))`), type: 'decimal' };
  },
  year: datePart('year', 'toYear'),
  month: datePart('month', 'toMonth'),
  day: datePart('day', 'toDayOfMonth'),
  hour: datePart('hour', 'toHour', new Set<ExprType>(['datetime'])),
  dayofweek: datePart('dayOfWeek', 'toDayOfWeek'),
  datediff: (args, fail) => {
    const unit = args[0]?.literal;
    if (args.length !== 3 || typeof unit !== 'string' || !DATE_UNITS.includes(unit) || !TEMPORAL.has(args[1]!.type) || !TEMPORAL.has(args[2]!.type)) {
      throw fail(`dateDiff(unit, from, to) takes one of ${DATE_UNITS.map((u) => `'${u}'`).join(', ')} and two dates`);
    }
    // The unit is one of a fixed list, so it is written into the SQL as a constant ClickHouse requires.
    return { sql: `dateDiff('${unit}', ${args[1]!.sql}, ${args[2]!.sql})`, type: 'integer' };
  },
};

function variadic(name: string, args: Typed[], fail: (message: string) => Error): Typed {
  if (args.length < 2 || !args.every((a) => NUMERIC.has(a.type))) throw fail(`${name}() takes two or more numbers`);
  const unified = unify(name, args, fail);
  return { sql: `${name}(${unified.sql.join(', ')})`, type: unified.type };
}

class Compiler {
  constructor(
    private readonly relation: Pick<Relation, 'columns'>,
    private readonly alias: string,
    private readonly params: Params,
    private readonly fail: (message: string) => Error,
    private readonly location: string,
  ) {}

  compile(node: Node): Typed {
    switch (node.kind) {
      case 'literal':
        return this.literal(node.value);
      case 'column': {
        const column = findColumn(this.relation, node.name, this.location);
        const type: ExprType = column.type === 'categorical' ? 'text' : column.type === 'array' && column.subtype !== null && !['integer', 'decimal', 'boolean', 'text'].includes(column.subtype) ? 'text' : column.type;
        return { sql: qualified(this.alias, column.name), type };
      }
      case 'unary': {
        const operand = this.compile(node.operand);
        if (node.op === '-') {
          if (!NUMERIC.has(operand.type)) throw this.fail('"-" needs a number');
          return { sql: `(-${operand.sql})`, type: operand.type };
        }
        if (!['boolean', 'null'].includes(operand.type)) throw this.fail('"not" needs a condition');
        return { sql: `(NOT ${operand.sql})`, type: 'boolean' };
      }
      case 'binary':
        return this.binary(node.op, this.compile(node.left), this.compile(node.right));
      case 'call': {
        const rule = FUNCTIONS[node.name];
        if (rule === undefined) throw this.fail(`unknown function ${node.name}() (available: ${Object.keys(FUNCTIONS).join(', ')})`);
        return rule(node.args.map((arg) => this.compile(arg)), this.fail);
      }
    }
  }

  private literal(value: number | string | boolean | null): Typed {
    if (value === null) return { sql: 'NULL', type: 'null', literal: null };
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw this.fail(`${value} is not a number this language can hold`);
      const integer = Number.isSafeInteger(value);
      return { sql: this.params.bind(value, integer ? 'Int64' : 'Float64'), type: integer ? 'integer' : 'decimal', literal: value };
    }
    if (typeof value === 'boolean') return { sql: this.params.bind(value, 'Bool'), type: 'boolean', literal: value };
    return { sql: this.params.bind(value, 'String'), type: 'text', literal: value };
  }

  private binary(op: string, left: Typed, right: Typed): Typed {
    if (op === 'and' || op === 'or') {
      if (![left, right].every((side) => ['boolean', 'null'].includes(side.type))) throw this.fail(`"${op}" needs conditions on both sides`);
      return { sql: `(${left.sql} ${op.toUpperCase()} ${right.sql})`, type: 'boolean' };
    }
    if (['+', '-', '*', '/', '%'].includes(op)) {
      if (!NUMERIC.has(left.type) || !NUMERIC.has(right.type)) throw this.fail(`"${op}" needs numbers on both sides (use concat() for text)`);
      const integer = op !== '/' && left.type !== 'decimal' && right.type !== 'decimal';
      // x % 0 is null, as x / 0 reads (ClickHouse would fail the whole query on an integer modulo by zero).
      const sql = op === '%' ? `if(${right.sql} = 0, NULL, ${left.sql} % ${right.sql})` : op === '/' ? finite(`(${left.sql} / ${right.sql})`) : `(${left.sql} ${op} ${right.sql})`;
      return { sql, type: integer ? 'integer' : 'decimal' };
    }
    // Comparisons: a text literal compared with a date is read as a date.
    const [l, r] = [this.asTemporal(left, right), this.asTemporal(right, left)];
    const family = (type: ExprType) => (type === 'integer' || type === 'decimal' ? 'number' : type === 'categorical' ? 'text' : type === 'date' || type === 'datetime' ? 'time' : type);
    if (l.type !== 'null' && r.type !== 'null' && family(l.type) !== family(r.type)) throw this.fail(`cannot compare ${l.type} with ${r.type}`);
    return { sql: `(${l.sql} ${op} ${r.sql})`, type: 'boolean' };
  }

  private asTemporal(side: Typed, other: Typed): Typed {
    if (typeof side.literal !== 'string' || !TEMPORAL.has(other.type)) return side;
    const instant = readInstant(side.literal, true);
    if (instant === null) throw this.fail(`'${side.literal}' is not a date`);
    return other.type === 'date'
      ? { sql: this.params.bind(instant.date, 'Date32'), type: 'date' }
      : { sql: this.params.bind(instant.datetime, "DateTime64(3, 'UTC')"), type: 'datetime' };
  }
}

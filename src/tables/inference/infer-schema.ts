import { detectDateFormat } from './dates.js';
import { type ParsedNumber, parseNumber } from './numbers.js';

/** The column types a schema entry can carry, from most to least specific. */
export const COLUMN_TYPES = ['boolean', 'integer', 'decimal', 'date', 'datetime', 'array', 'object', 'categorical', 'text'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export interface InferredColumn {
  field: string;
  type: ColumnType;
  subtype: string | null;
  availableTypes: ColumnType[];
  isIndex: boolean;
  categories: string[] | null;
  aliases: string[];
  description: string | null;
  displayWidth: number | null;
  originalFormat: string | null;
  displayFormat: string | null;
  unit: string | null;
  unitModifier: string | null;
  dateOrderAssumed: boolean | null;
}

/** Cells that mean "no value" in the files people export. */
export const NULL_TOKENS = new Set(['', 'na', 'n/a', 'null', 'none', 'nan', '#n/a', 'nil']);
const TRUE_TOKENS = new Set(['true', 'yes', 'y', 't']);
const FALSE_TOKENS = new Set(['false', 'no', 'n', 'f']);
/** At most this many distinct values, each seen twice on average, make a column categorical rather than free text. */
const CATEGORICAL_MAX = 50;
const CATEGORY_LIST_MAX = 100;
const DISPLAY_WIDTH_MAX = 100;
const ID_NAME = /(^id$|_id$|^id_|uuid|guid|(^|_)key$|(^|_)code$)/i;
const LEADING_ZERO = /^[+-]?0\d/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isNullCell = (value: string | null | undefined) => value === null || value === undefined || NULL_TOKENS.has(value.trim().toLowerCase());

/**
 * Infers one schema entry per column from a sample of text cells (rows aligned with `fields`). Decides the most
 * specific type every non-null value fits, lists the others it could be re-typed to, and records how values
 * were written (format, unit) so ingestion can convert them.
 */
export function inferSchema(fields: string[], rows: Array<Array<string | null>>): InferredColumn[] {
  return fields.map((field, index) => inferColumn(field, rows.map((row) => row[index] ?? null)));
}

export function inferColumn(field: string, cells: Array<string | null>): InferredColumn {
  const values = cells.filter((cell): cell is string => !isNullCell(cell)).map((cell) => cell.trim());
  const entry: InferredColumn = {
    field,
    type: 'text',
    subtype: null,
    availableTypes: ['text'],
    isIndex: false,
    categories: null,
    aliases: [],
    description: null,
    displayWidth: values.length === 0 ? null : Math.min(DISPLAY_WIDTH_MAX, values.reduce((longest, v) => Math.max(longest, v.length), 0)),
    originalFormat: null,
    displayFormat: null,
    unit: null,
    unitModifier: null,
    dateOrderAssumed: null,
  };
  if (values.length === 0) return entry;

  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  const fits = new Set<ColumnType>(['text']);
  if (counts.size <= 1000) fits.add('categorical');

  // What each test below decides rests on the distinct values alone, in order of first appearance: each is read once.
  const distinct = [...counts.keys()];
  const lower = distinct.map((v) => v.toLowerCase());
  if (lower.every((v) => TRUE_TOKENS.has(v) || FALSE_TOKENS.has(v) || v === '1' || v === '0')) fits.add('boolean');
  // Leading zeros (007, 02134) mark codes and postcodes: as numbers they would lose them.
  const numbers = distinct.some((v) => LEADING_ZERO.test(v)) ? [null] : distinct.map(parseNumber);
  const numeric = numbers.every((n): n is ParsedNumber => n !== null) && new Set(numbers.map((n) => n!.unit)).size === 1 ? (numbers as ParsedNumber[]) : null;
  if (numeric !== null) {
    fits.add('decimal');
    if (numeric.every((n) => n.integer) && numeric[0]!.unit === null) fits.add('integer');
  }
  const date = numeric === null ? detectDateFormat(distinct) : null;
  if (date !== null) {
    fits.add(date.format.kind);
    if (date.format.kind === 'datetime' && distinct.every((v) => !/[T ]\d{2}:/.test(v) || /[T ]00:00(:00(\.0+)?)?(Z|[+-]00:?00)?$/.test(v))) fits.add('date');
  }
  const json = jsonKind(distinct);
  if (json !== null) fits.add(json.kind);

  const onlyZeroOne = lower.every((v) => v === '1' || v === '0');
  entry.type =
    fits.has('boolean') && !onlyZeroOne ? 'boolean'
    : fits.has('integer') ? 'integer'
    : fits.has('decimal') ? 'decimal'
    : date !== null ? date.format.kind
    : json !== null ? json.kind
    : isCategorical(counts, values) ? 'categorical'
    : 'text';
  entry.availableTypes = COLUMN_TYPES.filter((type) => fits.has(type));

  if (numeric !== null && (entry.type === 'integer' || entry.type === 'decimal')) describeNumbers(entry, numeric);
  if (date !== null && (entry.type === 'date' || entry.type === 'datetime')) {
    entry.originalFormat = date.format.name;
    entry.displayFormat = entry.type === 'date' ? 'YYYY-MM-DD' : 'YYYY-MM-DD HH:mm:ss';
    entry.dateOrderAssumed = date.format.ambiguousOrder !== undefined ? date.assumed : false;
  }
  if (json !== null && entry.type === json.kind) entry.subtype = json.elementType;
  if (entry.type === 'boolean') entry.categories = ['false', 'true'];
  if (entry.type === 'categorical') {
    entry.categories = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, CATEGORY_LIST_MAX).map(([value]) => value);
  }
  // Identifiers: every row has a distinct value and the name or the shape says so.
  if ((entry.type === 'integer' || entry.type === 'text') && values.length === cells.length && counts.size === values.length && values.length >= 2) {
    if (ID_NAME.test(field) || values.every((v) => UUID.test(v))) {
      entry.isIndex = true;
      if (entry.type === 'text') entry.subtype = 'identifier';
    }
  }
  return entry;
}

function describeNumbers(entry: InferredColumn, numbers: ParsedNumber[]): void {
  const unit = numbers[0]!.unit;
  entry.unit = unit;
  if (unit === '%') {
    entry.subtype = 'percentage';
    entry.displayFormat = '0.##%';
  } else if (unit !== null) {
    entry.subtype = 'currency';
    entry.displayFormat = '#,##0.00';
  }
  const decimalComma = numbers.some((n) => n.decimalComma);
  const grouping = numbers.find((n) => n.grouping !== 'none')?.grouping ?? 'none';
  if (decimalComma || grouping === 'dot') entry.originalFormat = '#.##0,##';
  else if (grouping === 'comma') entry.originalFormat = '#,##0.##';
  else if (grouping === 'space') entry.originalFormat = '# ##0.##';
}

function isCategorical(counts: Map<string, number>, values: string[]): boolean {
  const longest = Math.max(...[...counts.keys()].map((v) => v.length));
  return counts.size <= CATEGORICAL_MAX && counts.size <= values.length / 2 && longest <= DISPLAY_WIDTH_MAX;
}

function jsonKind(values: string[]): { kind: 'array' | 'object'; elementType: string | null } | null {
  const first = values[0]![0];
  if (first !== '[' && first !== '{') return null;
  const parsed: unknown[] = [];
  for (const value of values) {
    try {
      parsed.push(JSON.parse(value));
    } catch {
      return null;
    }
  }
  if (parsed.every((p) => p !== null && typeof p === 'object' && !Array.isArray(p))) return { kind: 'object', elementType: null };
  if (!parsed.every(Array.isArray)) return null;
  const elements = (parsed as unknown[][]).flat();
  const kinds = new Set(elements.map((e) => (typeof e === 'number' ? (Number.isInteger(e) ? 'integer' : 'decimal') : typeof e === 'string' ? 'text' : typeof e === 'boolean' ? 'boolean' : 'mixed')));
  if (kinds.has('integer') && kinds.has('decimal')) kinds.delete('integer');
  return { kind: 'array', elementType: kinds.size === 1 ? [...kinds][0]! : kinds.size === 0 ? null : 'mixed' };
}

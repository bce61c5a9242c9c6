import type { ConceptClassification, SUGGESTED_ROLES } from '../../../schemas/ontology.js';
import { type ReadName, readName } from './names.js';
import { monthOf } from '../../lib/words.js';

/** What the data engine measured of one column (see ../extraction.ts for the queries). */
export interface ColumnFacts {
  sourceId: string;
  field: string;
  /** The schema entry's type and subtype (text, integer, decimal, boolean, date, datetime, array). */
  type: string;
  subtype: string | null;
  unit: string | null;
  rows: number;
  nulls: number;
  distinct: number;
  /** The most frequent values (as text) with their counts, most frequent first. */
  top: Array<{ value: string; count: number }>;
  /** Numeric and time columns: smallest and largest value (time as ISO text). */
  min: number | string | null;
  max: number | string | null;
  /** Average length of the text form (text columns). */
  averageLength: number;
  /** The bottom-k hashes of the distinct values (see sketch.ts). */
  sketch: string[];
  /** Time columns: the coarsest unit every value is a whole number of. */
  granularity: string | null;
  /** Keys that occur on more than one row. */
  duplicateKeys: number;
  /** Array columns: the most frequent elements and the sizes of the arrays (from the source's column statistics). */
  elements: { top: string[]; minSize: number | null; maxSize: number | null; avgSize: number | null; medianSize: number | null; p95Size: number | null } | null;
}

export interface Profile {
  facts: ColumnFacts;
  name: ReadName;
  classification: ConceptClassification;
  locationType: string | null;
  isUnique: boolean;
  /** Dense integer ranges and tiny domains: values that two unrelated columns share by chance. */
  distinctive: boolean;
  valueClass: 'binary' | 'categorical' | 'discrete' | 'continuous' | 'identifier' | 'temporal' | 'text' | 'list';
  cycle: string | null;
}

const LOCATION_WORDS: Record<string, string> = {
  latitude: 'latitude', longitude: 'longitude', coordinate: 'coordinate', coordinates: 'coordinate', geo: 'coordinate', country: 'country',
  region: 'region', county: 'county', city: 'city', postal: 'postal_code', address: 'address', street: 'address', continent: 'continent',
  airport: 'airport_code', iata: 'airport_code', unlocode: 'unlocode', port: 'unlocode',
};
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];
const POSTAL = /^(?:\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}|\d{4})$/;
const COORDINATE = /^-?\d{1,3}\.\d+\s*,\s*-?\d{1,3}\.\d+$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Codes: letters and digits together, no spaces (C-10023, SKU4412, AB12CD). */
const CODE = /^(?=.*\d)(?=.*[A-Za-z])[A-Za-z0-9][A-Za-z0-9_\-./]*$/;

/** Text stored as text or as a low-cardinality category. */
export const isTextual = (type: string) => type === 'text' || type === 'categorical';

const share = (values: Array<{ value: string; count: number }>, test: (value: string) => boolean) => {
  const total = values.reduce((sum, v) => sum + v.count, 0);
  return total === 0 ? 0 : values.filter((v) => test(v.value)).reduce((sum, v) => sum + v.count, 0) / total;
};

/** Reads what a column is from its name, type and values. */
export function profileColumn(facts: ColumnFacts): Profile {
  const name = readName(facts.field);
  const textual = isTextual(facts.type);
  const present = facts.rows - facts.nulls;
  const isUnique = present > 0 && facts.distinct === present;
  const numeric = facts.type === 'integer' || facts.type === 'decimal';
  const denseIntegers = facts.type === 'integer' && typeof facts.min === 'number' && typeof facts.max === 'number' && facts.max - facts.min + 1 <= facts.distinct * 1.5;
  const cycle = cycleOf(facts, name);
  const locationType = locationTypeOf(facts, name);
  const codes = textual && share(facts.top, (v) => CODE.test(v) || UUID.test(v)) > 0.9;
  const manyValues = facts.distinct > Math.max(50, 0.2 * present);
  let classification: ConceptClassification;
  if (facts.type === 'date' || facts.type === 'datetime') classification = 'time';
  else if (facts.type === 'array') classification = 'list';
  else if (facts.type === 'boolean' || (facts.distinct === 2 && !numeric)) classification = 'boolean';
  else if (locationType !== null) classification = 'location';
  else if (cycle !== null) classification = 'dimension';
  else if (name.key && facts.type !== 'decimal') classification = 'identifier';
  // Codes (letters with digits) of twenty values or more name things, wherever they appear (a fact table holds few of a catalog's).
  else if (textual && codes && (manyValues || facts.distinct >= 20)) classification = 'identifier';
  else if (facts.type === 'integer' && isUnique && denseIntegers && facts.distinct >= 20) classification = 'identifier';
  else if (numeric) classification = facts.type === 'integer' && facts.distinct <= 12 && facts.distinct < 0.05 * present ? 'dimension' : 'measure';
  else if (textual && facts.averageLength > 30 && facts.distinct >= Math.min(50, 0.5 * present)) classification = 'text';
  else classification = 'dimension';
  const distinctive = !(denseIntegers || facts.distinct < 5);
  return { facts, name, classification, locationType, isUnique, distinctive, valueClass: valueClassOf(facts, classification), cycle };
}

function valueClassOf(facts: ColumnFacts, classification: ConceptClassification): Profile['valueClass'] {
  if (classification === 'identifier') return 'identifier';
  if (classification === 'time') return 'temporal';
  if (classification === 'text') return 'text';
  if (classification === 'list') return 'list';
  if (facts.distinct <= 2) return 'binary';
  if (facts.type === 'decimal' || (facts.type === 'integer' && classification === 'measure' && facts.distinct > 20)) return 'continuous';
  if (facts.type === 'integer') return 'discrete';
  return 'categorical';
}

function locationTypeOf(facts: ColumnFacts, name: ReadName): string | null {
  for (const word of name.words) {
    const type = LOCATION_WORDS[word];
    if (type === undefined) continue;
    if (type === 'latitude' && typeof facts.min === 'number' && (facts.min < -90 || (facts.max as number) > 90)) continue;
    if (type === 'longitude' && typeof facts.min === 'number' && (facts.min < -180 || (facts.max as number) > 180)) continue;
    return type;
  }
  if (isTextual(facts.type) && share(facts.top, (v) => COORDINATE.test(v)) > 0.95) return 'coordinate';
  if (isTextual(facts.type) && name.words.some((w) => w === 'zip' || w === 'postal') && share(facts.top, (v) => POSTAL.test(v)) > 0.9) return 'postal_code';
  return null;
}

function cycleOf(facts: ColumnFacts, name: ReadName): string | null {
  const words = new Set(name.words);
  const lower = (v: string) => v.toLowerCase();
  if (isTextual(facts.type) && facts.top.length > 0) {
    if (share(facts.top, (v) => monthOf(lower(v)) >= 0) > 0.95) return 'month';
    if (share(facts.top, (v) => WEEKDAYS.some((d) => d === lower(v) || d.slice(0, 3) === lower(v))) > 0.95) return 'weekday';
  }
  if (facts.type !== 'integer' || typeof facts.min !== 'number' || typeof facts.max !== 'number') return null;
  if (words.has('month') && facts.min >= 1 && facts.max <= 12) return 'month';
  if ((words.has('weekday') || words.has('dow') || (words.has('day') && words.has('week'))) && facts.min >= 0 && facts.max <= 7) return 'weekday';
  if (words.has('hour') && facts.min >= 0 && facts.max <= 23) return 'hour';
  if (words.has('quarter') && facts.min >= 1 && facts.max <= 4) return 'quarter';
  return null;
}

/** How a concept of this classification tends to enter a causal model. */
export function suggestedRoleOf(classification: ConceptClassification): (typeof SUGGESTED_ROLES)[number] {
  switch (classification) {
    case 'identifier':
      return 'key';
    case 'time':
      return 'time';
    case 'measure':
      return 'outcome';
    case 'dimension':
    case 'boolean':
      return 'source';
    case 'location':
      return 'attribute';
    default:
      return 'ignore';
  }
}

/** Identifiers, times and places link sources: the concepts a dataset can be anchored on. */
export const isAnchorClassification = (classification: ConceptClassification) => classification === 'identifier' || classification === 'time' || classification === 'location';

/**
 * Column names read for meaning: split into words (snake, kebab, camel and Pascal case, digits), common
 * abbreviations expanded and synonyms mapped to one word, and the words that say "this is a key" (id, key, code,
 * no...) set apart. `cust_id`, `customerId` and `client_no` all read as the entity `customer` with a key marker.
 */
import { singular } from '../../lib/words.js';

const ABBREVIATIONS: Record<string, string> = {
  cust: 'customer', cst: 'customer', prod: 'product', qty: 'quantity', amt: 'amount', dt: 'date', addr: 'address', desc: 'description',
  num: 'number', nbr: 'number', cnt: 'count', pct: 'percent', avg: 'average', tot: 'total', emp: 'employee', dept: 'department',
  acct: 'account', txn: 'transaction', trx: 'transaction', inv: 'invoice', ord: 'order', cat: 'category', loc: 'location', lat: 'latitude',
  lng: 'longitude', lon: 'longitude', long: 'longitude', ts: 'timestamp', tstamp: 'timestamp', yr: 'year', mo: 'month', mth: 'month', wk: 'week', hr: 'hour',
  min: 'minimum', max: 'maximum', temp: 'temperature', rev: 'revenue', usr: 'user', sup: 'supplier', supp: 'supplier', wh: 'warehouse', sku: 'product', pos: 'store',
};

/** Words naming the same entity or quantity, mapped to one (general business vocabulary, not a benchmark's). */
const SYNONYMS: Record<string, string> = {
  client: 'customer', buyer: 'customer', purchaser: 'customer', patron: 'customer', consumer: 'customer', member: 'customer',
  item: 'product', article: 'product', merchandise: 'product', goods: 'product',
  shop: 'store', outlet: 'store', branch: 'store', boutique: 'store',
  zip: 'postal', zipcode: 'postal', postcode: 'postal', postalcode: 'postal',
  vendor: 'supplier', provider: 'supplier',
  staff: 'employee', worker: 'employee',
  sales: 'revenue', turnover: 'revenue',
  units: 'quantity',
  nation: 'country', province: 'region', state: 'region', territory: 'region', town: 'city', municipality: 'city',
  created: 'creation', creation: 'creation', signup: 'registration', registered: 'registration',
  timestamp: 'time', datetime: 'time',
};

/** Words that mark a column as a key rather than naming what it is. */
const KEY_WORDS = new Set(['id', 'key', 'code', 'no', 'number', 'nr', 'uuid', 'guid', 'ref', 'identifier', 'pk', 'fk']);
/** Words too general to tell two columns apart. */
const STOP_WORDS = new Set(['the', 'of', 'a', 'an', 'is', 'has', 'value', 'val', 'field', 'col', 'column', 'data', 'info', 'fld']);

export interface ReadName {
  /** The words that name the thing, normalised, in order. */
  words: string[];
  /** The name carries a key marker (id, key, code...). */
  key: boolean;
}

/** Splits a column name into lower-case words. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([a-zA-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

const normaliseWord = (word: string) => {
  const expanded = ABBREVIATIONS[word] ?? word;
  const one = singular(expanded);
  return SYNONYMS[one] ?? SYNONYMS[expanded] ?? one;
};

export function readName(name: string): ReadName {
  const raw = splitWords(name).filter((word) => !STOP_WORDS.has(word));
  const key = raw.some((word) => KEY_WORDS.has(word)) || /(?:Id|ID|Key|Code|No)$/.test(name);
  const words = raw.filter((word) => !KEY_WORDS.has(word)).map(normaliseWord);
  return { words: words.length > 0 ? words : raw.map(normaliseWord), key };
}

/**
 * How alike two names are in what they name: the Jaccard index of their word sets, 1 for the same words.
 * `conflict` when both name something and share nothing (a customer key is not an order key, whatever the values).
 */
export function nameSimilarity(a: ReadName, b: ReadName): { score: number; conflict: boolean } {
  const left = new Set(a.words);
  const right = new Set(b.words);
  if (left.size === 0 || right.size === 0) return { score: 0, conflict: false };
  let shared = 0;
  for (const word of left) if (right.has(word)) shared += 1;
  const score = shared / (left.size + right.size - shared);
  return { score, conflict: shared === 0 };
}

/** A readable concept name from a column name: its words, first capitalised ("Customer", "Order amount"). */
export function conceptNameOf(name: string): string {
  const { words } = readName(name);
  const text = words.join(' ');
  return text.length === 0 ? name : text[0]!.toUpperCase() + text.slice(1);
}

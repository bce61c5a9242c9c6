/**
 * Plain-English queries (and variable names and category labels) as tokens: words split the way names are written
 * (snake_case, kebab-case, camelCase), numbers with their scale and unit folded in, and the few symbols a question
 * uses to compare or assign. Names and queries go through the same tokenizer so they compare word by word.
 */
import { singular } from '../../lib/words.js';

export interface Token {
  kind: 'word' | 'number' | 'symbol';
  /** Character offsets into the query, for quoting the user's own words back. */
  start: number;
  end: number;
  /** Lower-case word; a symbol in its canonical spelling (<=, >=, !=, ±, =, ...); a number's text. */
  lower: string;
  /** Singular form of a word, for matching names ("prices" matches price); a number's key (#12). */
  key: string;
  /** A number's value with its scale applied (2k = 2000); NaN for words and symbols. */
  value: number;
  unit: 'percent' | 'points' | null;
}

const NUMBER = /^(?:[$€£¥]\s?)?([-+−]?)(?:[$€£¥])?(\d{1,3}(?:,\d{3})+(?!\d)|\d+(?:\.\d+)?|\.\d+)(k|mm|m|bn|b|%|pp)?(?![\p{L}\p{N}])/iu;
const WORD = /^\p{L}[\p{L}\p{N}]*(?:['’]\p{L}+)?/u;
const ALNUM = /^[\p{L}\p{N}]+/u;
const SYMBOLS: [string, string][] = [
  ['+/-', '±'], ['<=', '<='], ['>=', '>='], ['!=', '!='], ['==', '='], ['=<', '<='], ['=>', '>='],
  ['≤', '<='], ['≥', '>='], ['≠', '!='], ['±', '±'], ['<', '<'], ['>', '>'], ['=', '='], [',', ','], [';', ';'],
  [':', ':'], ['?', '?'], ['.', '.'], ['!', '!'], ['%', '%'], ['(', '('], [')', ')'], ['|', '|'], ['-', '-'], ['~', '~'],
];
const SCALE: Record<string, number> = { k: 1e3, m: 1e6, mm: 1e6, b: 1e9, bn: 1e9 };
/** camelCase and PascalCase boundaries: "avgLatencyMs" -> avg Latency Ms, "CPUUsage" -> CPU Usage. */
const CAMEL = /(?<=[\p{Ll}\p{N}])(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})/u;

export function tokenize(text: string): Token[] {
  const raw: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const rest = text.slice(at);
    const space = /^\s+/.exec(rest);
    if (space !== null) {
      at += space[0].length;
      continue;
    }
    const number = NUMBER.exec(rest);
    // A sign belongs to the number only at the start of a term ("-5", "= -5"), never inside "10-20" or "a-5".
    const signed = number !== null && number[1] !== '' && at > 0 && /[\p{L}\p{N}]/u.test(text[at - 1] ?? '');
    if (number !== null && !signed) {
      raw.push(numberToken(number, at));
      at += number[0].length;
      continue;
    }
    // "base-price" is two words of one name, like base_price; "10-20" keeps its dash.
    if (text[at] === '-' && /\p{L}/u.test(text[at - 1] ?? '') && /\p{L}/u.test(text[at + 1] ?? '')) {
      at += 1;
      continue;
    }
    const word = WORD.exec(rest);
    if (word !== null) {
      raw.push(...wordTokens(word[0], at));
      at += word[0].length;
      continue;
    }
    const symbol = SYMBOLS.find(([spelling]) => rest.startsWith(spelling));
    if (symbol !== undefined) {
      raw.push(plain('symbol', at, at + symbol[0].length, symbol[1]));
      at += symbol[0].length;
      continue;
    }
    const other = ALNUM.exec(rest); // e.g. "5th": kept as one word so it never reads as the number 5
    const length = other?.[0].length ?? 1;
    if (other !== null) raw.push(plain('word', at, at + length, other[0].toLowerCase()));
    at += length;
  }
  return foldUnits(raw);
}

/** The words of a variable name or category label, as match keys. */
export function nameKeys(name: string): string[] {
  return tokenize(name)
    .filter((token) => token.kind !== 'symbol')
    .map((token) => token.key);
}


function numberToken(match: RegExpExecArray, at: number): Token {
  const sign = match[1] === '-' || match[1] === '−' ? -1 : 1;
  const suffix = (match[3] ?? '').toLowerCase();
  const magnitude = Number((match[2] ?? '0').replaceAll(',', ''));
  const value = sign * magnitude * (SCALE[suffix] ?? 1);
  return { kind: 'number', start: at, end: at + match[0].length, lower: match[0].toLowerCase(), key: `#${value}`, value, unit: suffix === '%' ? 'percent' : suffix === 'pp' ? 'points' : null };
}

function wordTokens(word: string, at: number): Token[] {
  const apostrophe = /['’](\p{L}+)$/u.exec(word);
  // "what's" reads as "what"; "don't" as "dont".
  const stem = apostrophe === null ? word : apostrophe[1]?.toLowerCase() === 's' ? word.slice(0, apostrophe.index) : word.replace(/['’]/u, '');
  const tokens: Token[] = [];
  let offset = 0;
  for (const part of stem.split(CAMEL)) {
    tokens.push(plain('word', at + offset, at + offset + part.length, part.toLowerCase()));
    offset += part.length;
  }
  return tokens;
}

function plain(kind: 'word' | 'symbol', start: number, end: number, lower: string): Token {
  return { kind, start, end, lower, key: kind === 'word' ? singular(lower) : lower, value: Number.NaN, unit: null };
}

const PERCENT_WORDS = new Set(['percent', 'pct', 'percentage']);
const POINT_WORDS = new Set(['point', 'points', 'pp', 'pts', 'ppt', 'ppts']);
const SCALE_WORDS: Record<string, number> = { thousand: 1e3, million: 1e6, mn: 1e6, billion: 1e9 };
const CURRENCY_WORDS = new Set(['dollar', 'dollars', 'usd', 'eur', 'euro', 'euros', 'gbp', 'pound', 'pounds', 'bucks']);

/** "10 percent", "10 per cent", "10 percentage points", "2 thousand", "30 dollars": folded into the number. */
function foldUnits(raw: Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < raw.length; i++) {
    const token = raw[i]!;
    if (token.kind !== 'number') {
      out.push(token);
      continue;
    }
    let number = token;
    const word = (k: number) => raw[i + k]?.lower ?? '';
    const absorb = (count: number, change: Partial<Token>) => {
      number = { ...number, ...change, end: raw[i + count]!.end };
      i += count;
    };
    const scale = SCALE_WORDS[word(1)];
    if (scale !== undefined) absorb(1, { value: number.value * scale, key: `#${number.value * scale}` });
    if (CURRENCY_WORDS.has(word(1))) absorb(1, {});
    if (number.unit === null) {
      if (word(1) === '%') absorb(1, { unit: 'percent' });
      else if (word(1) === 'percentage' && POINT_WORDS.has(word(2))) absorb(2, { unit: 'points' });
      else if (PERCENT_WORDS.has(word(1))) absorb(1, { unit: 'percent' });
      else if (word(1) === 'per' && word(2) === 'cent') absorb(2, { unit: 'percent' });
      else if (POINT_WORDS.has(word(1))) absorb(1, { unit: 'points' });
    }
    out.push(number);
  }
  return out;
}

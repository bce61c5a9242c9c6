/**
 * Number recognisers for text cells: plain and thousands-grouped integers and decimals, decimal commas,
 * percentages and currency amounts. Each answers the parsed value and what it saw, or null.
 */
export interface ParsedNumber {
  value: number;
  integer: boolean;
  /** Grouping seen: 1,234 / 1 234 / 1.234,5 (decimal comma). */
  grouping: 'none' | 'comma' | 'space' | 'dot';
  decimalComma: boolean;
  /** '%' or an ISO 4217 code. */
  unit: string | null;
}

/** Currency symbols read as units, in the order they are tried (the engine's SQL conversion tries the same). */
export const CURRENCY_SYMBOLS: Record<string, string> = { $: 'USD', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', CHF: 'CHF' };
export const ISO_CURRENCY_CODES = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CAD', 'AUD', 'INR', 'CNY', 'SEK', 'NOK', 'DKK', 'KRW', 'BRL', 'MXN'];
const ISO_CODES = new RegExp(`^(${ISO_CURRENCY_CODES.join('|')})$`);

export const PLAIN = /^[+-]?(\d+)(\.\d+)?([eE][+-]?\d+)?$/;
export const LEADING_DOT = /^[+-]?\.\d+([eE][+-]?\d+)?$/;
export const COMMA_GROUPED = /^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/;
export const SPACE_GROUPED = /^[+-]?\d{1,3}([ \u00a0\u202f]\d{3})+([.,]\d+)?$/;
export const DOT_GROUPED_DECIMAL_COMMA = /^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$/;
export const DECIMAL_COMMA = /^[+-]?\d+,\d+$/;
const PLAIN_INTEGER = /^[+-]?\d+$/;
const DIGIT = /\d/;
/** A colon or a slash (times, dates), or a minus after a digit (ISO dates, ranges): in no number form below. */
const NEVER_IN_A_NUMBER = /[:/]|\d-/;

/** Strips accounting parentheses (negative), a currency symbol or code (either side) or a trailing percent sign. */
function splitUnit(text: string): { body: string; unit: string | null } {
  let body = text.trim();
  const parenthesised = /^\((.*)\)$/.exec(body);
  if (parenthesised !== null) body = parenthesised[1]!.trim();
  const sign = parenthesised !== null ? '-' : '';
  if (body.endsWith('%')) return { body: sign + body.slice(0, -1).trim(), unit: '%' };
  for (const [symbol, code] of Object.entries(CURRENCY_SYMBOLS)) {
    if (body.startsWith(symbol)) return { body: sign + body.slice(symbol.length).trim(), unit: code };
    if (body.endsWith(symbol)) return { body: sign + body.slice(0, -symbol.length).trim(), unit: code };
    if (body.startsWith(`-${symbol}`)) return { body: `-${body.slice(symbol.length + 1).trim()}`, unit: code };
  }
  const code = /^([A-Z]{3})\s*(.+)$/.exec(body) ?? /^(.+?)\s*([A-Z]{3})$/.exec(body);
  if (code !== null) {
    const [iso, amount] = ISO_CODES.test(code[1]!) ? [code[1]!, code[2]!] : [code[2]!, code[1]!];
    if (ISO_CODES.test(iso)) return { body: sign + amount.trim(), unit: iso };
  }
  return { body: sign + body, unit: null };
}

/** The number in canonical form ("-1234.5") with how it was written, or null. */
function normalise(body: string): { text: string; grouping: ParsedNumber['grouping']; decimalComma: boolean } | null {
  if (PLAIN.test(body) || LEADING_DOT.test(body)) return { text: body, grouping: 'none', decimalComma: false };
  if (COMMA_GROUPED.test(body)) return { text: body.replaceAll(',', ''), grouping: 'comma', decimalComma: false };
  if (SPACE_GROUPED.test(body)) return { text: body.replace(/[ \u00a0\u202f]/g, '').replace(',', '.'), grouping: 'space', decimalComma: body.includes(',') };
  if (DOT_GROUPED_DECIMAL_COMMA.test(body)) return { text: body.replaceAll('.', '').replace(',', '.'), grouping: 'dot', decimalComma: body.includes(',') };
  if (DECIMAL_COMMA.test(body)) return { text: body.replace(',', '.'), grouping: 'none', decimalComma: true };
  return null;
}

export function parseNumber(text: string): ParsedNumber | null {
  // Most cells inferred are plain numbers, hold no digit at all, or are times and dates; these are answered before
  // the unit forms are tried (a plain number has no space, unit or grouping; every number form needs a digit and
  // none holds a colon, a slash or a minus after a digit).
  if (PLAIN.test(text)) {
    const value = Number(text);
    return Number.isFinite(value) ? { value, integer: PLAIN_INTEGER.test(text), grouping: 'none', decimalComma: false, unit: null } : null;
  }
  if (!DIGIT.test(text) || NEVER_IN_A_NUMBER.test(text)) return null;
  const { body, unit } = splitUnit(text);
  const number = body === '' ? null : normalise(body);
  if (number === null) return null;
  const value = Number(number.text);
  if (!Number.isFinite(value)) return null;
  return { value, integer: PLAIN_INTEGER.test(number.text), grouping: number.grouping, decimalComma: number.decimalComma, unit };
}

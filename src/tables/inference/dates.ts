/**
 * Date and datetime recognisers. Each candidate format is a regular expression with named parts; a column's
 * format is the first candidate that reads every value. Slash and dash dates whose day/month order no value
 * settles are read month-first and flagged (`dateOrderAssumed`), the convention of pandas and spreadsheets.
 */
export interface DateFormat {
  /** Shown as `originalFormat`, e.g. DD/MM/YYYY or YYYY-MM-DDTHH:mm:ss. */
  name: string;
  kind: 'date' | 'datetime';
  pattern: RegExp;
  /** For formats whose first two parts could be day or month. */
  ambiguousOrder?: 'day-first' | 'month-first';
}

const TIME = '(?:[T ](?<hour>\\d{2}):(?<minute>\\d{2})(?::(?<second>\\d{2})(?:\\.(?<fraction>\\d{1,9}))?)?(?<zone>Z|[+-]\\d{2}:?\\d{2})?)';
/** Month names by their first three letters (the engine's SQL conversion reads them the same way). */
export const MONTH_NAMES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTHS = MONTH_NAMES.join('|');

export const DATE_FORMATS: DateFormat[] = [
  { name: 'YYYY-MM-DD', kind: 'date', pattern: /^(?<year>\d{4})-(?<month>\d{1,2})-(?<day>\d{1,2})$/ },
  { name: 'YYYY-MM-DDTHH:mm:ss', kind: 'datetime', pattern: new RegExp(`^(?<year>\\d{4})-(?<month>\\d{2})-(?<day>\\d{2})${TIME}$`) },
  { name: 'YYYY/MM/DD', kind: 'date', pattern: /^(?<year>\d{4})\/(?<month>\d{1,2})\/(?<day>\d{1,2})$/ },
  { name: 'MM/DD/YYYY', kind: 'date', ambiguousOrder: 'month-first', pattern: /^(?<month>\d{1,2})\/(?<day>\d{1,2})\/(?<year>\d{4})$/ },
  { name: 'DD/MM/YYYY', kind: 'date', ambiguousOrder: 'day-first', pattern: /^(?<day>\d{1,2})\/(?<month>\d{1,2})\/(?<year>\d{4})$/ },
  { name: 'MM/DD/YYYY HH:mm', kind: 'datetime', ambiguousOrder: 'month-first', pattern: new RegExp(`^(?<month>\\d{1,2})/(?<day>\\d{1,2})/(?<year>\\d{4})${TIME}$`) },
  { name: 'DD/MM/YYYY HH:mm', kind: 'datetime', ambiguousOrder: 'day-first', pattern: new RegExp(`^(?<day>\\d{1,2})/(?<month>\\d{1,2})/(?<year>\\d{4})${TIME}$`) },
  { name: 'DD.MM.YYYY', kind: 'date', pattern: /^(?<day>\d{1,2})\.(?<month>\d{1,2})\.(?<year>\d{4})$/ },
  { name: 'MM-DD-YYYY', kind: 'date', ambiguousOrder: 'month-first', pattern: /^(?<month>\d{1,2})-(?<day>\d{1,2})-(?<year>\d{4})$/ },
  { name: 'DD-MM-YYYY', kind: 'date', ambiguousOrder: 'day-first', pattern: /^(?<day>\d{1,2})-(?<month>\d{1,2})-(?<year>\d{4})$/ },
  { name: 'MMM D, YYYY', kind: 'date', pattern: new RegExp(`^(?<monthName>${MONTHS})[a-z]*\\.? (?<day>\\d{1,2}),? (?<year>\\d{4})$`, 'i') },
  { name: 'D MMM YYYY', kind: 'date', pattern: new RegExp(`^(?<day>\\d{1,2}) (?<monthName>${MONTHS})[a-z]*\\.? (?<year>\\d{4})$`, 'i') },
];

const MONTH_INDEX = Object.fromEntries(MONTHS.split('|').map((m, i) => [m, i + 1]));

/** ISO-8601 calendar dates, and ISO-8601 dates with an optional time and zone: what SQL and filters read as ISO. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
export const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/;

/** The range the data engine stores dates and datetimes in (Date32, DateTime64); outside it a value would be clamped. */
export const YEAR_RANGE = { min: 1900, max: 2299 };

/** The calendar parts of a match, if they form a real date (no 31 February) the engine can store. */
export function readDate(format: DateFormat, text: string): { year: number; month: number; day: number } | null {
  const groups = format.pattern.exec(text.trim())?.groups;
  if (groups === undefined) return null;
  const year = Number(groups.year);
  const month = groups.monthName !== undefined ? MONTH_INDEX[groups.monthName.slice(0, 3).toLowerCase()]! : Number(groups.month);
  const day = Number(groups.day);
  if (month < 1 || month > 12 || day < 1 || day > 31 || year < YEAR_RANGE.min || year > YEAR_RANGE.max) return null;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return null;
  if (groups.hour !== undefined && (Number(groups.hour) > 23 || Number(groups.minute) > 59 || Number(groups.second ?? 0) > 60)) return null;
  return { year, month, day };
}

/**
 * The format that reads every value, preferring unambiguous ones; for day/month formats both orders are tried
 * and the values decide. `assumed` is true when nothing in the data settled the order.
 */
export function detectDateFormat(values: string[]): { format: DateFormat; assumed: boolean } | null {
  const candidates = DATE_FORMATS.filter((format) => values.every((value) => readDate(format, value) !== null));
  if (candidates.length === 0) return null;
  const settled = candidates.filter((format) => format.ambiguousOrder === undefined);
  if (settled.length > 0) return { format: settled[0]!, assumed: false };
  const monthFirst = candidates.find((f) => f.ambiguousOrder === 'month-first');
  const dayFirst = candidates.find((f) => f.ambiguousOrder === 'day-first');
  if (monthFirst !== undefined && dayFirst !== undefined) return { format: monthFirst, assumed: true };
  return { format: (monthFirst ?? dayFirst)!, assumed: false };
}

/**
 * The head of a CSV file read without csv-parse, for the common shape of a file: records ended by a line feed,
 * fields quoted RFC 4180 style (a quote doubled inside quotes) or not at all. It answers exactly the records and
 * line numbers csv-parse answers for the same bytes with the reader's options (readers.ts), or null wherever the head
 * holds anything else (a carriage return, an empty line, a quote inside an unquoted field or not followed by a field's
 * end, records of different lengths): csv-parse then reads the whole file, as always. (Its record size limit, 16 MiB,
 * is far past a head's size.)
 * test/unit/tables/csv-head.test.ts compares both on generated files. csv-parse spends about 10 us per record (with
 * the line numbers the reader needs); this reads the 10,000-record sample a schema is decided from in a few
 * milliseconds, before any other stream of the process gets a turn.
 */

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

export interface CsvHead {
  /** The records read (the header first), each with the line it ends on, as csv-parse's `info.lines`. */
  records: Array<{ cells: string[]; line: number }>;
  /** Bytes of the head the records hold: the rest of the file starts there, at the start of a line. */
  bytes: number;
  /** Lines the records hold: csv-parse's line numbers for the rest of the file count on from here. */
  lines: number;
}

/**
 * Reads the complete records at the start of `head` (all of them when `complete`: the head is the whole file, and
 * its last record may end without a line feed). Null when the head holds anything this reader leaves to csv-parse,
 * or not one complete record.
 */
export function readCsvHead(head: Buffer, delimiter: string, complete: boolean): CsvHead | null {
  if (head.includes(CR)) return null;
  const bom = head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf ? 3 : 0;
  const text = head.toString('utf8', bom);
  const separator = delimiter.charCodeAt(0);
  const n = text.length;
  const records: CsvHead['records'] = [];
  let lines = 0;
  let at = 0;
  while (at < n) {
    const record = readRecord(text, at, separator, complete);
    if (record === undefined) break; // the head ends inside this record: the rest of the file reads it
    if (record === null) return null;
    if (records.length > 0 && record.cells.length !== records[0]!.cells.length) return null;
    lines += record.lineFeeds;
    records.push({ cells: record.cells, line: record.ended ? lines : lines + 1 });
    at = record.end;
  }
  if (records.length === 0) return null; // not even the header: csv-parse reads the file
  // A line feed is one byte and never part of a longer UTF-8 sequence: the records end after the `lines`-th one.
  let bytes = bom;
  for (let k = 0; k < lines; k += 1) bytes = head.indexOf(LF, bytes) + 1;
  if (at === n && complete) bytes = head.length;
  return { records, bytes, lines };
}

/**
 * The record starting at `at`: its cells, where it ends (after its line feed), how many line feeds it holds and
 * whether it ended with one (not at the end of a complete head). Undefined when the text ends inside it; null when
 * it holds what csv-parse may read differently.
 */
function readRecord(text: string, at: number, separator: number, complete: boolean): { cells: string[]; end: number; lineFeeds: number; ended: boolean } | null | undefined {
  const n = text.length;
  // An empty line is skipped by csv-parse (skip_empty_lines), and counted: left to it.
  if (text.charCodeAt(at) === LF) return null;
  const cells: string[] = [];
  let lineFeeds = 0;
  let i = at;
  for (;;) {
    let value: string;
    if (text.charCodeAt(i) === QUOTE) {
      value = '';
      let from = i + 1;
      for (;;) {
        const quote = text.indexOf('"', from);
        if (quote === -1) return complete ? null : undefined;
        if (text.charCodeAt(quote + 1) === QUOTE) {
          value += text.slice(from, quote + 1);
          from = quote + 2;
          continue;
        }
        value += text.slice(from, quote);
        i = quote + 1;
        break;
      }
      for (let feed = value.indexOf('\n'); feed !== -1; feed = value.indexOf('\n', feed + 1)) lineFeeds += 1;
      if (i === n) {
        if (!complete) return undefined;
      } else if (text.charCodeAt(i) !== separator && text.charCodeAt(i) !== LF) return null;
    } else {
      let end = i;
      while (end < n) {
        const c = text.charCodeAt(end);
        if (c === separator || c === LF) break;
        if (c === QUOTE) return null;
        end += 1;
      }
      if (end === n && !complete) return undefined;
      value = text.slice(i, end);
      i = end;
    }
    cells.push(value);
    if (i === n) return { cells, end: i, lineFeeds, ended: false };
    if (text.charCodeAt(i) === LF) return { cells, end: i + 1, lineFeeds: lineFeeds + 1, ended: true };
    i += 1; // the separator
    // A separator at the very end of a complete head ends the record with an empty field, as csv-parse reads it.
    if (i === n) {
      if (!complete) return undefined;
      cells.push('');
      return { cells, end: i, lineFeeds, ended: false };
    }
  }
}

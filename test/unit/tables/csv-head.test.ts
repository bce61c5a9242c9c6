/**
 * The fast reading of a CSV file's head (csv-head.ts) against csv-parse with the reader's options, on generated
 * files: well-formed ones (quoted fields with delimiters, doubled quotes and line breaks, empty fields, multi-byte
 * text, a BOM, a last record without its line feed; heads cut anywhere, and a whole file read as a head that may go
 * on) and damaged ones (stray quotes and carriage returns, empty lines,
 * short records). Wherever it answers, its records, line numbers and the point the rest starts from are csv-parse's;
 * where it declines, csv-parse reads the file. It must answer for most well-formed files, or the test fails.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { Rng } from '../../../src/engine/random.js';
import { readCsvHead } from '../../../src/tables/csv-head.js';

const PIECES = ['a', 'Zürich', '🚀', '12', '-3.5', ' x ', '', 'é'];

function field(rng: Rng, delimiter: string): string {
  const text = Array.from({ length: rng.int(3) }, () => PIECES[rng.int(PIECES.length)]).join(rng.uniform() < 0.2 ? delimiter : '');
  const special = rng.uniform();
  if (special < 0.15) return `"${`${text}"${text}`.replaceAll('"', '""')}"`;
  if (special < 0.25) return `"${text}\n${text}"`;
  if (special < 0.35) return `"${text}${delimiter}${text}"`;
  if (special < 0.4) return '""';
  return text.replaceAll(delimiter, '');
}

function file(rng: Rng, delimiter: string, damaged: boolean): string {
  const columns = 1 + rng.int(4);
  const lines = [Array.from({ length: columns }, (_, j) => `c${j}`).join(delimiter)];
  for (let r = 0; r < 2 + rng.int(30); r++) lines.push(Array.from({ length: columns }, () => field(rng, delimiter)).join(delimiter));
  let text = `${rng.uniform() < 0.1 ? '\ufeff' : ''}${lines.join('\n')}${rng.uniform() < 0.8 ? '\n' : ''}`;
  if (damaged) {
    const at = rng.int(text.length);
    const damage = ['"', '\r', '\n', '\n\n', `x"y`, '\r\n', delimiter][rng.int(7)]!;
    text = text.slice(0, at) + damage + text.slice(at);
  }
  return text;
}

type Parsed = Array<{ record: string[]; info: { lines: number } }>;
const csvParse = (input: Buffer | string, delimiter: string, extra: Record<string, unknown> = {}): Parsed | Error => {
  try {
    return parse(input, { delimiter, bom: true, info: true, skip_empty_lines: true, relax_quotes: false, max_record_size: 1 << 20, ...extra }) as Parsed;
  } catch (error) {
    return error as Error;
  }
};

test('the head reads as csv-parse reads the same bytes, or declines', () => {
  const rng = new Rng(20261129);
  let answered = 0;
  let wellFormed = 0;
  const differences: string[] = [];
  for (let k = 0; k < 3000; k++) {
    const delimiter = k % 3 === 0 ? '\t' : ',';
    const damaged = k % 2 === 1;
    const bytes = Buffer.from(file(rng, delimiter, damaged));
    // The whole file, and a head cut anywhere in it (the rest of the file follows).
    for (const [cut, complete] of [[bytes.length, true], [bytes.length, false], [rng.int(bytes.length + 1), false]] as const) {
      const head = readCsvHead(bytes.subarray(0, cut), delimiter, complete);
      const whole = csvParse(bytes, delimiter);
      // Files with an empty line (a one-column record with an empty cell) are left to csv-parse, which skips it.
      const plain = complete && !damaged && !bytes.includes('\n\n');
      if (plain) wellFormed += 1;
      if (head === null) continue;
      if (plain) answered += 1;
      // What it read is what csv-parse reads from those bytes, records and lines.
      const read = csvParse(bytes.subarray(0, head.bytes), delimiter);
      const expected = read instanceof Error ? read.message : read.map(({ record, info }) => ({ cells: record, line: info.lines }));
      if (JSON.stringify(head.records) !== JSON.stringify(expected)) differences.push(`${JSON.stringify(bytes.toString())} cut ${cut}: ${JSON.stringify(head.records)} vs ${JSON.stringify(expected)}`);
      // Read on from there with the line feed as the record end, the rest numbered on, the file is csv-parse's.
      if (whole instanceof Error) continue;
      const rest = head.bytes === bytes.length ? [] : csvParse(bytes.subarray(head.bytes), delimiter, { bom: false, record_delimiter: '\n' });
      if (rest instanceof Error) differences.push(`${JSON.stringify(bytes.toString())} cut ${cut}: the rest fails: ${rest.message}`);
      else {
        const joined = [...head.records, ...rest.map(({ record, info }) => ({ cells: record, line: info.lines + head.lines }))];
        const all = whole.map(({ record, info }) => ({ cells: record, line: info.lines }));
        if (JSON.stringify(joined) !== JSON.stringify(all)) differences.push(`${JSON.stringify(bytes.toString())} cut ${cut}: joined ${JSON.stringify(joined)} vs ${JSON.stringify(all)}`);
      }
    }
  }
  assert.deepEqual(differences.slice(0, 3), []);
  assert.equal(answered, wellFormed, `the head reader answers for well-formed files (${answered} of ${wellFormed})`);
});

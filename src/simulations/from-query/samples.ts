/**
 * Observed rows written inline: "price 12 and region North", "cpu = 90, latency: 300", "a North customer with a
 * price of 30". Rows are separated by ";" or "|". Every number left unclaimed afterwards must sit next to a
 * variable, or the query named something the twin does not have.
 */
import type { Value } from '../../engine/inference/scenario.js';
import { unknownCategory, unknownVariable } from './problems.js';
import type { QueryReader, QueryVariable } from './reader.js';
import { readValue } from './values.js';
import { VALUE_LINKS } from './vocabulary.js';

export type SampleRow = Record<string, Value>;

const ROW_SEPARATORS = new Set([';', '|']);

/** The rows written in the query's unused tokens, consuming what they use; [] when there are none. */
export function readSamples(r: QueryReader): SampleRow[] {
  const rows: SampleRow[] = [];
  let row: SampleRow = {};
  for (let i = 0; i < r.length; i++) {
    if (r.is(i, ROW_SEPARATORS) && Object.keys(row).length > 0) {
      rows.push(row);
      row = {};
      continue;
    }
    const labelled = anyCategoryAt(r, i);
    const mention = r.mentionAt(i);
    // A label that spells its variable's name and more ("city number 7" of city) is a value, not a mention.
    if (mention !== undefined && (labelled === null || labelled.next <= mention.end)) {
      if (!valueFollows(r, mention.end)) continue;
      const variable = r.resolve(mention);
      const read = readValue(r, variable, mention.end);
      if (read === null) {
        if (variable.type === 'categorical') throw unknownCategory(variable.name, wordsAt(r, r.skip(mention.end, VALUE_LINKS)), variable.categories ?? []);
        continue;
      }
      row[variable.name] = read.value;
      r.consume(mention.start, read.next);
      i = read.next - 1;
      continue;
    }
    if (labelled !== null && !(labelled.variable.name in row)) {
      row[labelled.variable.name] = labelled.label;
      r.consume(i, labelled.next);
      i = labelled.next - 1;
    }
  }
  if (Object.keys(row).length > 0) rows.push(row);
  return rows;
}

/** A number nobody claimed, right after an unknown name ("colour 12"), is a variable the twin does not have. */
export function assertNumbersClaimed(r: QueryReader): void {
  for (let i = 0; i < r.length; i++) {
    if (r.numberAt(i) === null) continue;
    let before = i;
    while (before > 0 && r.is(before - 1, VALUE_LINKS)) before--;
    const phrase = r.contentBefore(before);
    if (phrase !== null) throw unknownVariable(phrase, r.names);
  }
}

/**
 * The label of exactly one categorical variable spelled at `at` (a label several variables share is skipped);
 * `next` also passes the variable's own name when it follows ("North region", "premium plan").
 */
export function anyCategoryAt(r: QueryReader, at: number): { variable: QueryVariable; label: string; next: number } | null {
  if (r.isConsumed(at) || r.tokens[at]?.kind !== 'word') return null;
  const found = r.context.variables
    .filter((v) => v.type === 'categorical')
    .map((variable) => ({ variable, match: r.categoryAt(at, variable) }))
    .filter((f) => f.match !== null);
  const [only, ...others] = found;
  if (only === undefined || only.match === null || others.length > 0) return null;
  const own = r.mentionAt(only.match.next);
  const named = own !== undefined && own.candidates.length === 1 && own.candidates[0] === only.variable.name;
  return { variable: only.variable, label: only.match.label, next: named ? own.end : only.match.next };
}

/** After a variable, something that reads as its value: a linking word, a number or a word that is not grammar. */
function valueFollows(r: QueryReader, at: number): boolean {
  const start = r.skip(at, VALUE_LINKS);
  if (r.isConsumed(start) || r.tokens[start] === undefined) return false;
  return start > at || r.numberAt(start) !== null || r.contentAfter(start) !== null;
}

function wordsAt(r: QueryReader, at: number): string {
  return r.contentAfter(at)?.phrase ?? r.text(at, at + 1);
}

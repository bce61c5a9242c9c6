/**
 * Where a query names the twin's variables. Each variable is known by its own words (rank 3), the same words with a
 * synonym swapped in (rank 2), and, when no other variable shares them, a part of its name ("spend" for
 * marketing_spend: rank 1, or 0 through a synonym). The longest phrase wins, then the higher rank; a phrase that
 * fits several variables equally well is kept as ambiguous so the caller can say which ones it could mean.
 */
import { GENERIC_WORDS, STOP_WORDS, SYNONYM_GROUPS } from './vocabulary.js';
import { nameKeys, type Token } from './tokenize.js';

export interface Mention {
  start: number;
  /** Exclusive token index. */
  end: number;
  /** The query's own words. */
  phrase: string;
  /** Every variable the phrase fits best; one for a clear mention. */
  candidates: string[];
}

interface Pattern {
  keys: string[];
  variable: string;
  rank: number;
}

/** Synonym variants of a name beyond this many are not worth generating (names are a few words long). */
const MAX_VARIANTS = 16;

export function findMentions(query: string, tokens: Token[], variables: string[]): Mention[] {
  const byFirstKey = new Map<string, Pattern[]>();
  for (const pattern of variables.flatMap(patternsOf)) {
    const list = byFirstKey.get(pattern.keys[0]!) ?? [];
    list.push(pattern);
    byFirstKey.set(pattern.keys[0]!, list);
  }
  /** Per span (start, end): the best rank reached and the variables that reach it. */
  const spans = new Map<string, { start: number; end: number; rank: number; variables: Set<string> }>();
  tokens.forEach((token, start) => {
    if (token.kind === 'symbol') return;
    for (const pattern of byFirstKey.get(token.key) ?? []) {
      if (!pattern.keys.every((key, k) => tokens[start + k]?.kind !== 'symbol' && tokens[start + k]?.key === key)) continue;
      const end = start + pattern.keys.length;
      const span = spans.get(`${start}:${end}`);
      if (span === undefined || pattern.rank > span.rank) spans.set(`${start}:${end}`, { start, end, rank: pattern.rank, variables: new Set([pattern.variable]) });
      else if (pattern.rank === span.rank) span.variables.add(pattern.variable);
    }
  });
  const ordered = [...spans.values()].sort((a, b) => b.end - b.start - (a.end - a.start) || b.rank - a.rank || a.start - b.start);
  const taken = new Uint8Array(tokens.length);
  const mentions: Mention[] = [];
  for (const best of ordered) {
    if (taken.subarray(best.start, best.end).some((t) => t === 1)) continue;
    taken.fill(1, best.start, best.end);
    mentions.push({
      start: best.start,
      end: best.end,
      phrase: query.slice(tokens[best.start]!.start, tokens[best.end - 1]!.end),
      candidates: [...best.variables],
    });
  }
  return mentions.sort((a, b) => a.start - b.start);
}

function patternsOf(variable: string): Pattern[] {
  const own = nameKeys(variable);
  if (own.length === 0) return [];
  const variants = synonymVariants(own);
  const patterns: Pattern[] = variants.map((keys, v) => ({ keys, variable, rank: v === 0 ? 3 : 2 }));
  variants.forEach((keys, v) => {
    for (let from = 0; from < keys.length; from++) {
      for (let to = from + 1; to <= keys.length; to++) {
        if (to - from === keys.length) continue;
        const part = keys.slice(from, to);
        if (STOP_WORDS.has(part[0]!) || STOP_WORDS.has(part[part.length - 1]!)) continue;
        if (part.every((key) => STOP_WORDS.has(key) || GENERIC_WORDS.has(key) || key.startsWith('#'))) continue;
        patterns.push({ keys: part, variable, rank: v === 0 ? 1 : 0 });
      }
    }
  });
  return patterns;
}

/** The name's keys first, then each way of swapping words for their synonyms. */
function synonymVariants(keys: string[]): string[][] {
  let variants: string[][] = [[]];
  for (const key of keys) {
    const group = SYNONYM_GROUPS.find((g) => g.includes(key));
    const options = group === undefined ? [key] : [key, ...group.filter((g) => g !== key)];
    variants = variants.flatMap((prefix) => options.map((option) => [...prefix, option])).slice(0, MAX_VARIANTS);
  }
  return variants;
}

/** A variable's category labels with their match keys, indexed by first key; worked out once per variable. */
export type Labels = Map<string, { label: string; keys: string[] }[]>;

export function labelsOf(categories: readonly string[]): Labels {
  const labels: Labels = new Map();
  for (const label of categories) {
    const keys = nameKeys(label);
    if (keys.length === 0) continue;
    labels.set(keys[0]!, [...(labels.get(keys[0]!) ?? []), { label, keys }]);
  }
  return labels;
}

/** The longest of `labels` spelled at token `at`: its label and the token after it. */
export function categoryAt(tokens: Token[], at: number, labels: Labels): { label: string; next: number } | null {
  const token = tokens[at];
  if (token === undefined || token.kind === 'symbol') return null;
  let best: { label: string; next: number } | null = null;
  for (const { label, keys } of labels.get(token.key) ?? []) {
    const fits = keys.every((key, k) => {
      const next = tokens[at + k];
      return next !== undefined && next.kind !== 'symbol' && next.key === key;
    });
    if (fits && (best === null || at + keys.length > best.next)) best = { label, next: at + keys.length };
  }
  return best;
}

import { readName } from '../ontology/extract/names.js';

/** Something a misspelled or unknown name could have meant (spec: Anchor query error `candidates`). */
export interface Candidate {
  kind: 'concept' | 'metric' | 'derived' | 'source' | 'dataset' | 'tag' | 'grain';
  id: string;
  name: string;
  score: number;
  /** How to write it in a query. */
  syntax: string;
}

/** Writes a name so the language reads it back: bare when it is a plain word, else double-quoted. */
export const quoteName = (name: string) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`);

function levenshtein(a: string, b: string): number {
  const previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = previous[0]!;
    previous[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = previous[j]!;
      previous[j] = Math.min(previous[j]! + 1, previous[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return previous[b.length]!;
}

/**
 * How close `typed` is to `name`, 0..1: the better of spelling (1 - edit distance / length, on lower case without
 * separators) and meaning (the share of words the names have in common once abbreviations and synonyms are read).
 */
export function similarity(typed: string, name: string): number {
  // Names are compared on their first 64 characters: the edit distance is quadratic, and a query may be 20k long.
  [typed, name] = [typed.slice(0, 64), name.slice(0, 64)];
  const a = typed.toLowerCase().replace(/[^a-z0-9]/g, '');
  const b = name.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (a.length === 0 || b.length === 0) return 0;
  const spelling = 1 - levenshtein(a, b) / Math.max(a.length, b.length);
  const left = new Set(readName(typed).words);
  const right = new Set(readName(name).words);
  const shared = [...left].filter((w) => right.has(w)).length;
  const meaning = left.size + right.size === 0 ? 0 : shared / (left.size + right.size - shared);
  const contains = b.includes(a) || a.includes(b) ? 0.8 : 0;
  return Math.round(Math.max(spelling, meaning, contains) * 1000) / 1000;
}

/** The candidates closest to `typed`, best first (at most `limit`, score at least 0.4). */
export function rank(typed: string, pool: Array<Omit<Candidate, 'score'>>, limit = 8): Candidate[] {
  const scored = pool.map((candidate) => ({ ...candidate, score: similarity(typed, candidate.name) }));
  const best = new Map<string, Candidate>();
  const order = ['concept', 'metric', 'dataset', 'source', 'derived', 'grain', 'tag'];
  for (const candidate of scored.sort((a, b) => b.score - a.score || order.indexOf(a.kind) - order.indexOf(b.kind) || a.name.localeCompare(b.name))) {
    if (candidate.score < 0.4) continue;
    // One candidate per way of writing it (a concept and a column of the same name are one suggestion: the concept).
    const key = candidate.syntax.toLowerCase();
    if (!best.has(key)) best.set(key, candidate);
  }
  return [...best.values()].slice(0, limit);
}

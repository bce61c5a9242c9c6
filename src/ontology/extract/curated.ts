/**
 * Curated value mappings: those an ontology library gave a concept (it has an `ontologyRef`) list the values the
 * concept holds and their spellings (ISO codes, names). Extraction keeps them whole instead of regrouping them by
 * its spelling heuristics (values.ts), and reads them as value evidence: an installed concept has no value sketches
 * until a field is mapped to it. Spellings are compared loosely (case, accents, spaces and punctuation aside).
 */
import { type ValueCount, type ValueMapping, keyOf, resolver, valueMappings } from './values.js';

/** The loose form of a spelling; symbols and one-letter forms (`€`, `A$`) are only ever matched exactly. */
const looseKey = (value: string) => {
  const key = keyOf(value);
  return key.length >= 2 ? key : null;
};

/** Loose spelling -> canonical value; a spelling two canonical values share is left out (it says neither). */
function looseResolver(mappings: ValueMapping[]): Map<string, string> {
  const seen = new Map<string, string | null>();
  for (const mapping of mappings) {
    for (const spelling of [mapping.canonicalValue, ...mapping.aliases]) {
      const key = looseKey(spelling);
      if (key === null) continue;
      const before = seen.get(key);
      seen.set(key, before === undefined || before === mapping.canonicalValue ? mapping.canonicalValue : null);
    }
  }
  return new Map([...seen].filter((entry): entry is [string, string] => entry[1] !== null));
}

/** Share of the distinct values (non-empty) that are a curated value or one of its spellings. */
export function curatedShare(values: ValueCount[], curated: ValueMapping[]): number {
  const present = values.filter((v) => v.value.trim() !== '');
  if (present.length === 0 || curated.length === 0) return 0;
  const [exact, loose] = [resolver(curated), looseResolver(curated)];
  return present.filter((v) => exact.has(v.value) || loose.has(looseKey(v.value) ?? '')).length / present.length;
}

/**
 * The curated mappings kept whole, each with the data's other spellings of its value added as aliases, then the
 * data's own groups (values.ts) of the values they do not hold.
 */
export function extendCurated(curated: ValueMapping[], values: ValueCount[]): ValueMapping[] {
  const exact = resolver(curated);
  const loose = looseResolver(curated);
  const added = new Map<string, string[]>();
  const rest: ValueCount[] = [];
  for (const value of values) {
    if (value.value.trim() === '' || exact.has(value.value)) continue;
    const canonical = loose.get(looseKey(value.value) ?? '');
    if (canonical === undefined) rest.push(value);
    else if (!(added.get(canonical) ?? []).includes(value.value)) added.set(canonical, [...(added.get(canonical) ?? []), value.value]);
  }
  return [...curated.map((m) => ({ canonicalValue: m.canonicalValue, aliases: [...m.aliases, ...(added.get(m.canonicalValue) ?? [])] })), ...valueMappings(rest)];
}

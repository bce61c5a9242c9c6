/**
 * How a library version's members are laid over a workspace concept's. Three values meet for each member: the
 * concept's (`current`), the version installed before (`base`, absent on a first install) and the version being
 * installed (`next`). A member a person locked keeps its value; what the library gave before follows the library;
 * what came from elsewhere (the concept's own spellings, extraction's measurements) stays.
 */
import type { ConceptBody } from '../concepts.js';

type ValueMapping = ConceptBody['valueMappings'][number];

const unique = <T>(values: T[]) => [...new Set(values)];
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The library's value mappings (in its order), each with the concept's own spellings of that value added, then the
 * concept's other mappings. Spellings the library gives a value are the library's: a concept mapping that claims
 * one for another value loses it, and spellings an earlier version gave and this one dropped go.
 */
export function mergeValueMappings(current: ValueMapping[], next: ValueMapping[], base: ValueMapping[] = []): ValueMapping[] {
  const canonicalOf = new Map<string, string>();
  for (const mapping of next) for (const spelling of [mapping.canonicalValue, ...mapping.aliases]) canonicalOf.set(spelling, mapping.canonicalValue);
  const library = new Set([...canonicalOf.keys(), ...base.flatMap((m) => [m.canonicalValue, ...m.aliases])]);
  const extras = new Map<string, string[]>(next.map((m) => [m.canonicalValue, []]));
  const own: ValueMapping[] = [];
  for (const mapping of current) {
    const spellings = mapping.aliases.filter((alias) => !library.has(alias));
    const home = canonicalOf.get(mapping.canonicalValue);
    if (home !== undefined) extras.get(home)!.push(...spellings);
    else if (spellings.length > 0) own.push({ canonicalValue: mapping.canonicalValue, aliases: spellings });
  }
  return [...next.map((m) => ({ canonicalValue: m.canonicalValue, aliases: unique([...m.aliases, ...extras.get(m.canonicalValue)!]) })), ...own];
}

/** Value mappings compared as sets (extraction may list them in another order). */
export function sameValueMappings(a: ValueMapping[], b: ValueMapping[]): boolean {
  const canonical = (mappings: ValueMapping[]) => mappings.map((m) => [m.canonicalValue, [...m.aliases].sort()] as const).sort((x, y) => x[0].localeCompare(y[0]));
  return same(canonical(a), canonical(b));
}

/** The concept's tags and the library's; tags an earlier version gave and this one dropped go. */
export function mergeTags(current: string[], next: string[], base: string[] = []): string[] {
  return unique([...current.filter((tag) => next.includes(tag) || !base.includes(tag)), ...next]);
}

export const sameTags = (a: string[], b: string[]) => same([...a].sort(), [...b].sort());

/**
 * The library's metadata members laid over the concept's: set where the concept has none or still has the earlier
 * version's value; kept where locked (reported as `metadata.<key>`); left where something else set it since (an
 * extraction's measurement of the data). A member the earlier version gave and this one dropped goes the same way.
 */
export function mergeMetadata(current: Record<string, unknown>, locked: string[], next: Record<string, unknown>, base: Record<string, unknown> = {}): { metadata: Record<string, unknown>; changed: string[]; kept: string[] } {
  const metadata = { ...current };
  const changed: string[] = [];
  const kept: string[] = [];
  for (const key of unique([...Object.keys(next), ...Object.keys(base)])) {
    const wanted = next[key];
    if (same(metadata[key], wanted)) continue;
    if (locked.includes(key)) kept.push(`metadata.${key}`);
    else if (metadata[key] === undefined || same(metadata[key], base[key])) {
      if (wanted === undefined) delete metadata[key];
      else metadata[key] = structuredClone(wanted);
      changed.push(`metadata.${key}`);
    }
  }
  return { metadata, changed, kept };
}

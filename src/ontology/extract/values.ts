/**
 * Value mappings: the spellings of one value across the fields of a concept ("New York", "new york", "NY") gathered
 * under a canonical value. Two spellings are one value when they are equal ignoring case, spaces and punctuation, when
 * one is the initials of the other ("NY", "New York") or otherwise abbreviates exactly one other ("CA", "California"),
 * or when one is a dotted abbreviation of exactly one other ("Calif.", "California"). The canonical value is the most frequent full spelling.
 */

export interface ValueCount {
  value: string;
  count: number;
}

export interface ValueMapping {
  canonicalValue: string;
  aliases: string[];
}

/** A spelling with case, accents, spaces and punctuation taken out ("São Paulo", "sao-paulo": "saopaulo"). */
export const keyOf = (value: string) => value.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]/g, '');
const wordsOf = (value: string) => value.split(/[\s\-_/]+/).filter(Boolean);
const initialsOf = (value: string) => wordsOf(value).map((w) => w[0]!.toLowerCase()).join('');
/** `short` starts `long` and its other letters follow in `long` in order. */
function isSubsequence(short: string, long: string): boolean {
  if (short[0] !== long[0]) return false;
  let at = 1;
  for (const letter of short.slice(1)) {
    at = long.indexOf(letter, at) + 1;
    if (at === 0) return false;
  }
  return true;
}
const isAbbreviation = (value: string) => /^[A-Z]{2,4}$/.test(value) || /^[A-Za-z]{2,}\.$/.test(value);

/**
 * The spellings an abbreviation may stand for: for a dotted one ("Calif."), those its stem starts; else those whose
 * initials it is ("NY": New York) or, when none, those holding its first letter and then, in order, its others
 * ("CA": California, "TX": Texas). It stands for one value when they all are spellings of one.
 */
function abbreviated(value: string, spellings: readonly string[]): string[] {
  const lower = value.toLowerCase();
  if (value.endsWith('.')) {
    const stem = lower.slice(0, -1);
    return spellings.filter((other) => other !== value && other.length > stem.length + 1 && other.toLowerCase().startsWith(stem));
  }
  const initials = spellings.filter((other) => wordsOf(other).length >= 2 && initialsOf(other) === lower);
  return initials.length > 0 ? initials : spellings.filter((other) => other !== value && !isAbbreviation(other) && isSubsequence(lower, other.toLowerCase()));
}

/** Groups values (with their counts) into mappings; only groups with more than one spelling are answered. */
export function valueMappings(values: ValueCount[]): ValueMapping[] {
  const counts = new Map<string, number>();
  for (const { value, count } of values) if (value.trim() !== '') counts.set(value, (counts.get(value) ?? 0) + count);
  const parent = new Map<string, string>([...counts.keys()].map((v) => [v, v]));
  const find = (v: string): string => {
    let root = v;
    while (parent.get(root) !== root) root = parent.get(root)!;
    parent.set(v, root);
    return root;
  };
  const join = (a: string, b: string) => parent.set(find(a), find(b));
  const byKey = new Map<string, string>();
  for (const value of counts.keys()) {
    const key = keyOf(value);
    if (key === '') continue;
    const seen = byKey.get(key);
    if (seen === undefined) byKey.set(key, value);
    else join(value, seen);
  }
  const spellings = [...counts.keys()];
  for (const value of spellings) {
    if (!isAbbreviation(value)) continue;
    const matches = abbreviated(value, spellings);
    if (matches.length > 0 && new Set(matches.map(keyOf)).size === 1) join(value, matches[0]!);
  }
  const groups = new Map<string, string[]>();
  for (const value of counts.keys()) {
    const root = find(value);
    groups.set(root, [...(groups.get(root) ?? []), value]);
  }
  const mappings: ValueMapping[] = [];
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const ranked = [...members].sort((a, b) => Number(isAbbreviation(a)) - Number(isAbbreviation(b)) || counts.get(b)! - counts.get(a)! || b.length - a.length || a.localeCompare(b));
    const canonical = ranked[0]!;
    mappings.push({ canonicalValue: canonical, aliases: ranked.slice(1).sort() });
  }
  return mappings.sort((a, b) => a.canonicalValue.localeCompare(b.canonicalValue));
}

/** The canonical value each spelling resolves to (canonical values map to themselves). */
export function resolver(mappings: ValueMapping[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const mapping of mappings) {
    map.set(mapping.canonicalValue, mapping.canonicalValue);
    for (const alias of mapping.aliases) map.set(alias, mapping.canonicalValue);
  }
  return map;
}

/**
 * Each spelling of a field resolved to one of a concept's canonical values, or null when it is none of them: an
 * alias or canonical value as written; else one equal to a known spelling but for case, spacing, punctuation and
 * accents; else, for an abbreviation, the one value its known full spellings stand for (see `abbreviated`). A full
 * spelling is never resolved through a known code ("Costa ica" is not CI, Côte d'Ivoire, by its initials). The
 * forward enrichment of a concept resolves every distinct value of its fields so.
 */
export function resolveValues(values: string[], mappings: ValueMapping[]): Map<string, string | null> {
  const known = resolver(mappings);
  const byKey = new Map<string, Set<string>>();
  for (const [spelling, canonical] of known) {
    const key = keyOf(spelling);
    if (key !== '') byKey.set(key, (byKey.get(key) ?? new Set<string>()).add(canonical));
  }
  const full = [...known.keys()].filter((spelling) => !isAbbreviation(spelling));
  const one = (canonical: Iterable<string>) => {
    const distinct = new Set(canonical);
    return distinct.size === 1 ? [...distinct][0]! : null;
  };
  const resolved = new Map<string, string | null>();
  for (const value of values) {
    const exact = known.get(value);
    const variant = byKey.get(keyOf(value));
    resolved.set(value, exact ?? (variant !== undefined ? one(variant) : isAbbreviation(value) ? one(abbreviated(value, full).map((spelling) => known.get(spelling)!)) : null));
  }
  return resolved;
}

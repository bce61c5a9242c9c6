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
  const full = [...counts.keys()].filter((v) => wordsOf(v).length >= 2);
  for (const value of counts.keys()) {
    if (!isAbbreviation(value)) continue;
    if (value.endsWith('.')) {
      const stem = value.slice(0, -1).toLowerCase();
      const longer = [...counts.keys()].filter((other) => other !== value && other.length > stem.length + 1 && other.toLowerCase().startsWith(stem));
      if (longer.length === 1 || new Set(longer.map(keyOf)).size === 1) join(value, longer[0]!);
      continue;
    }
    // Initials first ("NY": New York), then a unique spelling whose first letter and then, in order, the others it
    // holds ("CA": California, "TX": Texas).
    const initials = full.filter((other) => initialsOf(other) === value.toLowerCase());
    const held = [...counts.keys()].filter((other) => other !== value && !isAbbreviation(other) && isSubsequence(value.toLowerCase(), other.toLowerCase()));
    const matches = initials.length > 0 ? initials : held;
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
 * alias or canonical value as written, else the value grouped (by the rules of `valueMappings`) with exactly one
 * canonical value's spellings. The forward enrichment of a concept resolves every distinct value of its fields so.
 */
export function resolveValues(values: string[], mappings: ValueMapping[]): Map<string, string | null> {
  const known = resolver(mappings);
  const resolved = new Map<string, string | null>();
  const open = values.filter((value) => {
    const to = known.get(value);
    if (to !== undefined) resolved.set(value, to);
    return to === undefined;
  });
  // Grouped with the known spellings, one count each: a group holding one canonical value resolves to it.
  const groups = valueMappings([...new Set([...known.keys(), ...open])].map((value) => ({ value, count: 1 })));
  const groupOf = new Map(groups.flatMap((group) => [group.canonicalValue, ...group.aliases].map((value) => [value, group] as const)));
  for (const value of open) {
    const group = groupOf.get(value);
    const canonical = group === undefined ? [] : [...new Set([group.canonicalValue, ...group.aliases].flatMap((member) => (member === value ? [] : [known.get(member)].filter((to): to is string => to !== undefined))))];
    resolved.set(value, canonical.length === 1 ? canonical[0]! : null);
  }
  return resolved;
}

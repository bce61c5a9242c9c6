/**
 * Exact copies among categorical columns: a column whose values map one-to-one onto an earlier column's, row by
 * row, with the same rows missing (a code and its label, a flag stored twice). Such a pair is a deterministic
 * relation, which breaks the faithfulness the CI tests rest on (each column makes the other independent of
 * everything: Spirtes, Glymour & Scheines 2000, sec. 3.4; Lemeire, Meganck, Cartella & Liu 2012), and the two fit
 * every graph equally well whichever of them carries the other edges: the data cannot tell them apart.
 *
 * Discovery therefore searches with the first column of each group and joins each later copy to it by one edge,
 * whose direction (like which of the two carries the other edges) the data do not decide.
 */
/** The columns as discovery prepared them (prepare.ts PreparedData): dense codes, observed levels, informative flags. */
export interface CopyCandidates {
  p: number;
  n: number;
  names: readonly string[];
  kinds: readonly ('continuous' | 'categorical')[];
  levels: Int32Array;
  informative: Uint8Array;
  codes: readonly (Int32Array | null)[];
}

/**
 * For each variable, the index of the earlier categorical variable it copies exactly, else -1. Variables named in
 * `keep` (background knowledge names them) are never set aside as copies.
 */
export function exactCopies(data: CopyCandidates, keep: ReadonlySet<string>): Int32Array {
  const { p, n } = data;
  const copyOf = new Int32Array(p).fill(-1);
  const byShape = new Map<string, { index: number; canonical: Int32Array }[]>();
  for (let j = 0; j < p; j++) {
    if (data.kinds[j] !== 'categorical' || data.informative[j] !== 1) continue;
    const canonical = canonicalCodes(data.codes[j]!, data.levels[j]!, n);
    const shape = `${data.levels[j]}:${fingerprint(canonical)}`;
    const earlier = byShape.get(shape) ?? [];
    const original = keep.has(data.names[j]!) ? undefined : earlier.find((e) => sameSequence(e.canonical, canonical));
    if (original !== undefined) copyOf[j] = original.index;
    else byShape.set(shape, [...earlier, { index: j, canonical }]);
  }
  return copyOf;
}

/** The codes relabelled in order of first appearance (missing stays -1): equal for two columns exactly when they map one-to-one. */
function canonicalCodes(codes: Int32Array, levels: number, n: number): Int32Array {
  const label = new Int32Array(levels).fill(-1);
  let next = 0;
  const out = new Int32Array(n);
  for (let r = 0; r < n; r++) {
    const c = codes[r]!;
    if (c < 0) {
      out[r] = -1;
      continue;
    }
    if (label[c] === -1) label[c] = next++;
    out[r] = label[c]!;
  }
  return out;
}

/** FNV-1a over the canonical codes (a bucket key; equality is checked in full). */
function fingerprint(codes: Int32Array): number {
  let h = 0x811c9dc5;
  for (let r = 0; r < codes.length; r++) {
    h ^= codes[r]! + 1;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function sameSequence(a: Int32Array, b: Int32Array): boolean {
  for (let r = 0; r < a.length; r++) if (a[r] !== b[r]) return false;
  return true;
}

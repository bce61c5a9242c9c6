/**
 * Value overlap of two columns from bottom-k sketches (the k smallest 64-bit hashes of each column's distinct
 * values; Broder 1997, Beyer et al. 2007 "On synopses for distinct-value estimation"): the Jaccard index is
 * estimated on the k smallest hashes of the union, and turned into containment with the exact distinct counts.
 * Columns of any size compare in O(k), and the same value hashes alike in every source.
 */
export const SKETCH_SIZE = 256;

/** Share of the smaller column's distinct values found in the other (0..1). */
export function containment(a: { sketch: string[]; distinct: number }, b: { sketch: string[]; distinct: number }): number {
  if (a.sketch.length === 0 || b.sketch.length === 0 || a.distinct === 0 || b.distinct === 0) return 0;
  const left = new Set(a.sketch);
  const right = new Set(b.sketch);
  const union = [...new Set([...a.sketch, ...b.sketch])].map(BigInt).sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  const k = Math.min(SKETCH_SIZE, union.length);
  let both = 0;
  for (const hash of union.slice(0, k)) {
    const text = hash.toString();
    if (left.has(text) && right.has(text)) both += 1;
  }
  const jaccard = both / k;
  const intersection = (jaccard * (a.distinct + b.distinct)) / (1 + jaccard);
  return Math.min(1, intersection / Math.min(a.distinct, b.distinct));
}

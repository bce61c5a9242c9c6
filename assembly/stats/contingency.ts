// Counts of integer-coded columns (column-major, -1 = missing): the x-by-y table, and the strata of a
// conditioning set. Codes outside 0..levels-1 count as missing, as in src/compute/reference/statistics.ts.
import { allocI32, getF64, getI32, setF64, setI32 } from '../shared/memory';
import { STATUS_INVALID_INPUT, STATUS_OK } from '../shared/status';

// @ts-ignore: decorator
@inline export function codeAt(codes: usize, n: i32, column: i32, row: i32): i32 {
  return getI32(codes, column * n + row);
}

export function contingency(codes: usize, n: i32, levels: usize, columns: i32, x: i32, y: i32, out: usize): i32 {
  if (x < 0 || x >= columns || y < 0 || y >= columns) return STATUS_INVALID_INPUT;
  const lx = getI32(levels, x);
  const ly = getI32(levels, y);
  memory.fill(out, 0, (<usize>lx * ly) << 3);
  for (let r = 0; r < n; r++) {
    const cx = codeAt(codes, n, x, r);
    const cy = codeAt(codes, n, y, r);
    if (cx >= 0 && cx < lx && cy >= 0 && cy < ly) setF64(out, cx * ly + cy, getF64(out, cx * ly + cy) + 1);
  }
  return STATUS_OK;
}

/**
 * Renumbers strata after adding conditioning column `column` (L levels) when id * L + code could pass n: the
 * new id of a row is the rank of its (old id, code) pair among the pairs present, found by two stable counting
 * sorts (least significant key first). Rows with an invalid code get -1. Answers the new number of strata, or
 * -1 when the arena cannot hold the buckets. `order` and `sorted` hold n row numbers each.
 */
export function compactStrata(codes: usize, n: i32, column: i32, levels: i32, ids: usize, strata: i32, order: usize, sorted: usize): i32 {
  const buckets = allocI32(<u64>max(levels, strata) + 1);
  if (buckets == 0) return -1;
  let m = 0;
  for (let r = 0; r < n; r++) {
    if (getI32(ids, r) < 0) continue;
    const c = codeAt(codes, n, column, r);
    if (c < 0 || c >= levels) setI32(ids, r, -1);
    else setI32(order, m++, r);
  }
  countingSort(order, m, sorted, buckets, levels, codes + ((<usize>column * n) << 2));
  countingSort(sorted, m, order, buckets, strata, ids);
  let count = 0;
  let previousId = -1;
  let previousCode = -1;
  for (let i = 0; i < m; i++) {
    const r = getI32(order, i);
    const id = getI32(ids, r);
    const c = codeAt(codes, n, column, r);
    if (id != previousId || c != previousCode) {
      count++;
      previousId = id;
      previousCode = c;
    }
    setI32(ids, r, count - 1);
  }
  return count;
}

/** Stable counting sort of the m row numbers in `rows` into `out` by key[row] in 0..keys-1. */
export function countingSort(rows: usize, m: i32, out: usize, buckets: usize, keys: i32, key: usize): void {
  memory.fill(buckets, 0, (<usize>keys + 1) << 2);
  for (let i = 0; i < m; i++) {
    const b = getI32(key, getI32(rows, i)) + 1;
    setI32(buckets, b, getI32(buckets, b) + 1);
  }
  for (let b = 1; b <= keys; b++) setI32(buckets, b, getI32(buckets, b) + getI32(buckets, b - 1));
  for (let i = 0; i < m; i++) {
    const r = getI32(rows, i);
    const b = getI32(key, r);
    const at = getI32(buckets, b);
    setI32(out, at, r);
    setI32(buckets, b, at + 1);
  }
}

// G-square conditional independence tests on integer-coded columns: the statistic and the structural-zero
// degrees of freedom of gSquareBatch in src/compute/reference/statistics.ts. Rows are grouped by stratum with
// counting sorts (no table over all strata), so memory stays O(n + levels) however large the conditioning set.
import { allocF64Zeroed, allocI32, arenaMark, arenaRelease, getF64, getI32, setF64, setI32 } from '../shared/memory';
import { STATUS_OK, STATUS_OUT_OF_MEMORY } from '../shared/status';
import { codeAt, compactStrata, countingSort } from './contingency';
import { chiSquareSurvival } from './distributions';

/** Results of the last gSquareTest call. */
let resultStatistic: f64 = 0;
let resultDf: f64 = 0;

/** Stratum ids of valid rows in `ids` (-1 = skipped); answers the number of strata, or -1 when out of memory. */
function labelStrata(codes: usize, n: i32, levels: usize, variables: usize, k: i32, ids: usize, order: usize, sorted: usize): i32 {
  const x = getI32(variables, k);
  const y = getI32(variables, k + 1);
  const lx = getI32(levels, x);
  const ly = getI32(levels, y);
  for (let r = 0; r < n; r++) {
    const cx = codeAt(codes, n, x, r);
    const cy = codeAt(codes, n, y, r);
    setI32(ids, r, cx >= 0 && cx < lx && cy >= 0 && cy < ly ? 0 : -1);
  }
  let strata = 1;
  for (let i = 0; i < k; i++) {
    const column = getI32(variables, i);
    const count = getI32(levels, column);
    if (<f64>strata * <f64>count <= <f64>n) {
      // Mixed-radix ids stay below n: no renumbering needed.
      for (let r = 0; r < n; r++) {
        const id = getI32(ids, r);
        if (id < 0) continue;
        const c = codeAt(codes, n, column, r);
        setI32(ids, r, c >= 0 && c < count ? id * count + c : -1);
      }
      strata *= count;
    } else {
      strata = compactStrata(codes, n, column, count, ids, strata, order, sorted);
      if (strata < 0) return -1;
    }
  }
  return strata;
}

function gSquareTest(codes: usize, n: i32, levels: usize, variables: usize, k: i32, ids: usize, order: usize, sorted: usize): i32 {
  const strata = labelStrata(codes, n, levels, variables, k, ids, order, sorted);
  const x = getI32(variables, k);
  const y = getI32(variables, k + 1);
  const lx = getI32(levels, x);
  const ly = getI32(levels, y);
  const buckets = allocI32(<u64>max(strata, 0) + 1);
  const table = allocF64Zeroed(<u64>lx * <u64>ly);
  const rowTotals = allocF64Zeroed(<u64>lx);
  const colTotals = allocF64Zeroed(<u64>ly);
  if (strata < 0 || buckets == 0 || table == 0 || rowTotals == 0 || colTotals == 0) return STATUS_OUT_OF_MEMORY;
  let m = 0;
  for (let r = 0; r < n; r++) if (getI32(ids, r) >= 0) setI32(sorted, m++, r);
  countingSort(sorted, m, order, buckets, strata, ids);
  let statistic: f64 = 0;
  let df: f64 = 0;
  for (let start = 0; start < m; ) {
    const id = getI32(ids, getI32(order, start));
    let end = start;
    while (end < m && getI32(ids, getI32(order, end)) == id) end++;
    let nonzeroRows = 0;
    let nonzeroCols = 0;
    for (let i = start; i < end; i++) {
      const r = getI32(order, i);
      const cx = codeAt(codes, n, x, r);
      const cy = codeAt(codes, n, y, r);
      setF64(table, cx * ly + cy, getF64(table, cx * ly + cy) + 1);
      const rowTotal = getF64(rowTotals, cx);
      if (rowTotal == 0) nonzeroRows++;
      setF64(rowTotals, cx, rowTotal + 1);
      const colTotal = getF64(colTotals, cy);
      if (colTotal == 0) nonzeroCols++;
      setF64(colTotals, cy, colTotal + 1);
    }
    df += <f64>((nonzeroRows - 1) * (nonzeroCols - 1));
    const total = <f64>(end - start);
    for (let i = start; i < end; i++) {
      const r = getI32(order, i);
      const cell = codeAt(codes, n, x, r) * ly + codeAt(codes, n, y, r);
      const observed = getF64(table, cell);
      if (observed == 0) continue;
      statistic += observed * Math.log((observed * total) / (getF64(rowTotals, codeAt(codes, n, x, r)) * getF64(colTotals, codeAt(codes, n, y, r))));
      setF64(table, cell, 0);
    }
    for (let i = start; i < end; i++) {
      const r = getI32(order, i);
      setF64(rowTotals, codeAt(codes, n, x, r), 0);
      setF64(colTotals, codeAt(codes, n, y, r), 0);
    }
    start = end;
  }
  resultStatistic = Math.max(0, 2 * statistic);
  resultDf = df;
  return STATUS_OK;
}

export function gSquareBatch(codes: usize, n: i32, levels: usize, columns: i32, tests: usize, maxK: i32, count: i32, statistic: usize, df: usize, pValue: usize): i32 {
  const variables = allocI32(<u64>maxK + 2);
  const ids = allocI32(<u64>n);
  const order = allocI32(<u64>n);
  const sorted = allocI32(<u64>n);
  if (variables == 0 || ids == 0 || order == 0 || sorted == 0) return STATUS_OUT_OF_MEMORY;
  for (let t = 0; t < count; t++) {
    setF64(statistic, t, NaN);
    setF64(df, t, NaN);
    setF64(pValue, t, NaN);
    const slot = t * (maxK + 3);
    const k = getI32(tests, slot + 2);
    if (k < 0 || k > maxK) continue;
    for (let i = 0; i < k; i++) setI32(variables, i, getI32(tests, slot + 3 + i));
    setI32(variables, k, getI32(tests, slot));
    setI32(variables, k + 1, getI32(tests, slot + 1));
    let valid = true;
    for (let i = 0; i < k + 2; i++) {
      const v = getI32(variables, i);
      if (v < 0 || v >= columns) valid = false;
    }
    if (!valid) continue;
    const mark = arenaMark();
    const status = gSquareTest(codes, n, levels, variables, k, ids, order, sorted);
    arenaRelease(mark);
    if (status != STATUS_OK) return status;
    setF64(statistic, t, resultStatistic);
    setF64(df, t, resultDf);
    setF64(pValue, t, resultDf > 0 ? chiSquareSurvival(resultStatistic, resultDf) : 1);
  }
  return STATUS_OK;
}

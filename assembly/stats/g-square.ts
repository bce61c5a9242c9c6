// G-square conditional independence tests on integer-coded columns: the statistic and the structural-zero
// degrees of freedom of gSquareBatch in src/compute/reference/statistics.ts. When the whole table (strata of S
// x levels of x x levels of y) is small, one pass over the rows counts every cell of it (gSquareDirect); a
// larger table falls back to grouping rows by stratum with counting sorts (gSquareSorted, no table over all
// strata), so memory stays O(n + levels) however large the conditioning set.
import { allocF64Zeroed, allocI32, arenaMark, arenaRelease, getF64, getI32, setF64, setI32 } from '../shared/memory';
import { STATUS_OK, STATUS_OUT_OF_MEMORY } from '../shared/status';
import { codeAt, compactStrata, countingSort } from './contingency';
import { chiSquareSurvival } from './distributions';

/**
 * The direct path's table size limit: at most this many cells, and at most DIRECT_CELLS_PER_ROW per row plus
 * DIRECT_CELLS_SLACK (clearing and scanning a table much sparser than the rows costs more than sorting them).
 */
const DIRECT_MAX_CELLS: u64 = 1 << 20;
const DIRECT_CELLS_PER_ROW: u64 = 4;
const DIRECT_CELLS_SLACK: u64 = 4096;

/** Results of the last gSquareDirect or gSquareSorted call. */
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

function gSquareSorted(codes: usize, n: i32, levels: usize, variables: usize, k: i32, ids: usize, order: usize, sorted: usize): i32 {
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

/**
 * Cells of the whole table of the test in `variables` (S, then x and y) when the direct path takes it, else -1.
 * A column with no levels makes an empty table (no valid row).
 */
function directCells(n: i32, levels: usize, variables: usize, k: i32, limit: u64): i64 {
  let cells: u64 = 1;
  for (let i = 0; i < k + 2; i++) {
    const count = getI32(levels, getI32(variables, i));
    if (count < 0) return -1;
    cells *= <u64>count;
    if (cells > limit) return -1;
  }
  return <i64>cells;
}

// @ts-ignore: decorator
@inline function bump(table: usize, cell: i32): void {
  const at = table + (<usize>cell << 2);
  store<i32>(at, load<i32>(at) + 1);
}

/**
 * cells[r] = the table cell of row r, stratum * lx * ly + x * ly + y with the stratum the mixed-radix number of
 * S's codes, or `missing` when any of its codes is missing or out of range: one vectorised pass per column.
 */
function cellIndices(codes: usize, n: i32, levels: usize, variables: usize, k: i32, missing: i32, cells: usize): void {
  const x = getI32(variables, k);
  const y = getI32(variables, k + 1);
  const lx = getI32(levels, x);
  const ly = getI32(levels, y);
  const xColumn = codes + ((<usize>x * n) << 2);
  const yColumn = codes + ((<usize>y * n) << 2);
  const missingLanes = i32x4.splat(missing);
  const lxLanes = i32x4.splat(lx);
  const lyLanes = i32x4.splat(ly);
  let r = 0;
  for (; r + 4 <= n; r += 4) {
    const at = <usize>r << 2;
    const cx = v128.load(xColumn + at);
    const cy = v128.load(yColumn + at);
    const valid = v128.and(i32x4.lt_u(cx, lxLanes), i32x4.lt_u(cy, lyLanes));
    v128.store(cells + at, v128.bitselect(i32x4.add(i32x4.mul(cx, lyLanes), cy), missingLanes, valid));
  }
  for (; r < n; r++) {
    const cx = getI32(xColumn, r);
    const cy = getI32(yColumn, r);
    setI32(cells, r, <u32>cx < <u32>lx && <u32>cy < <u32>ly ? cx * ly + cy : missing);
  }
  let stride = lx * ly;
  for (let i = k - 1; i >= 0; i--) {
    const column = getI32(variables, i);
    const count = getI32(levels, column);
    const codesOf = codes + ((<usize>column * n) << 2);
    const countLanes = i32x4.splat(count);
    const strideLanes = i32x4.splat(stride);
    r = 0;
    for (; r + 4 <= n; r += 4) {
      const at = <usize>r << 2;
      const c = v128.load(codesOf + at);
      const cell = v128.load(cells + at);
      const keep = v128.and(i32x4.lt_u(c, countLanes), i32x4.ne(cell, missingLanes));
      v128.store(cells + at, v128.bitselect(i32x4.add(cell, i32x4.mul(c, strideLanes)), missingLanes, keep));
    }
    for (; r < n; r++) {
      const c = getI32(codesOf, r);
      const cell = getI32(cells, r);
      setI32(cells, r, <u32>c < <u32>count && cell != missing ? cell + c * stride : missing);
    }
    stride *= count;
  }
}

/**
 * Counts each (stratum, x, y) cell of the test's table in one pass over the rows, then the statistic and df
 * stratum by stratum over the strata with at least one row. `table` holds `capacity` i32 counts; `rowCells`
 * n i32. The count of a row goes to one of four copies of the table (row mod 4) when they fit, so that
 * consecutive rows of the same cell do not wait on each other's increment; the copies are summed after.
 */
function gSquareDirect(codes: usize, n: i32, levels: usize, variables: usize, k: i32, cells: i32, table: usize, capacity: i32, rowCells: usize): i32 {
  const x = getI32(variables, k);
  const y = getI32(variables, k + 1);
  const lx = getI32(levels, x);
  const ly = getI32(levels, y);
  const rowTotals = allocF64Zeroed(<u64>lx);
  const colTotals = allocF64Zeroed(<u64>ly);
  if (rowTotals == 0 || colTotals == 0) return STATUS_OUT_OF_MEMORY;
  // Cell `cells` (one past the table) counts the rows skipped.
  cellIndices(codes, n, levels, variables, k, cells, rowCells);
  const span = cells + 1;
  if (<i64>span * 4 <= <i64>capacity) {
    memory.fill(table, 0, (<usize>span * 4) << 2);
    const t1 = table + ((<usize>span) << 2);
    const t2 = table + ((<usize>span * 2) << 2);
    const t3 = table + ((<usize>span * 3) << 2);
    let r = 0;
    for (; r + 4 <= n; r += 4) {
      bump(table, getI32(rowCells, r));
      bump(t1, getI32(rowCells, r + 1));
      bump(t2, getI32(rowCells, r + 2));
      bump(t3, getI32(rowCells, r + 3));
    }
    for (; r < n; r++) bump(table, getI32(rowCells, r));
    for (let c = 0; c < cells; c++) setI32(table, c, getI32(table, c) + getI32(t1, c) + getI32(t2, c) + getI32(t3, c));
  } else {
    memory.fill(table, 0, (<usize>span) << 2);
    for (let r = 0; r < n; r++) bump(table, getI32(rowCells, r));
  }
  const cellsXY = lx * ly;
  const strata = cellsXY > 0 ? cells / cellsXY : 0;
  let statistic: f64 = 0;
  let df: f64 = 0;
  for (let s = 0; s < strata; s++) {
    const stratum = table + ((<usize>s * cellsXY) << 2);
    let total = 0;
    for (let cx = 0; cx < lx; cx++) {
      let rowTotal = 0;
      for (let cy = 0; cy < ly; cy++) rowTotal += getI32(stratum, cx * ly + cy);
      setF64(rowTotals, cx, <f64>rowTotal);
      total += rowTotal;
    }
    if (total == 0) continue;
    let nonzeroRows = 0;
    for (let cx = 0; cx < lx; cx++) if (getF64(rowTotals, cx) != 0) nonzeroRows++;
    let nonzeroCols = 0;
    for (let cy = 0; cy < ly; cy++) {
      let colTotal = 0;
      for (let cx = 0; cx < lx; cx++) colTotal += getI32(stratum, cx * ly + cy);
      setF64(colTotals, cy, <f64>colTotal);
      if (colTotal != 0) nonzeroCols++;
    }
    df += <f64>((nonzeroRows - 1) * (nonzeroCols - 1));
    const stratumTotal = <f64>total;
    for (let cx = 0; cx < lx; cx++) {
      const rowTotal = getF64(rowTotals, cx);
      for (let cy = 0; cy < ly; cy++) {
        const observed = <f64>getI32(stratum, cx * ly + cy);
        if (observed == 0) continue;
        statistic += observed * Math.log((observed * stratumTotal) / (rowTotal * getF64(colTotals, cy)));
      }
    }
  }
  resultStatistic = Math.max(0, 2 * statistic);
  resultDf = df;
  return STATUS_OK;
}

export function gSquareBatch(codes: usize, n: i32, levels: usize, columns: i32, tests: usize, maxK: i32, count: i32, statistic: usize, df: usize, pValue: usize): i32 {
  const variables = allocI32(<u64>maxK + 2);
  const limit = min(DIRECT_MAX_CELLS, <u64>max(n, 0) * DIRECT_CELLS_PER_ROW + DIRECT_CELLS_SLACK);
  const capacity = <i32>limit + 1;
  const table = allocI32(<u64>capacity);
  const rowCells = allocI32(<u64>max(n, 0));
  // The sorting path's row arrays, reserved on its first test.
  let ids: usize = 0;
  let order: usize = 0;
  let sorted: usize = 0;
  if (variables == 0 || table == 0 || rowCells == 0) return STATUS_OUT_OF_MEMORY;
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
    const cells = directCells(n, levels, variables, k, limit);
    if (cells < 0 && ids == 0) {
      ids = allocI32(<u64>n);
      order = allocI32(<u64>n);
      sorted = allocI32(<u64>n);
      if (ids == 0 || order == 0 || sorted == 0) return STATUS_OUT_OF_MEMORY;
    }
    const mark = arenaMark();
    const status = cells >= 0
      ? gSquareDirect(codes, n, levels, variables, k, <i32>cells, table, capacity, rowCells)
      : gSquareSorted(codes, n, levels, variables, k, ids, order, sorted);
    arenaRelease(mark);
    if (status != STATUS_OK) return status;
    setF64(statistic, t, resultStatistic);
    setF64(df, t, resultDf);
    setF64(pValue, t, resultDf > 0 ? chiSquareSurvival(resultStatistic, resultDf) : 1);
  }
  return STATUS_OK;
}

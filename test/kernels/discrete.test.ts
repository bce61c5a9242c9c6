import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertClose, InputSource, packTests, reference, wasm } from './support.js';

const implementations = { reference, wasm };
/** WASM vs reference: strata are summed in a different order, and Math.log may differ by an ulp. */
const STATISTIC_TOLERANCE = 1e-12;
const P_VALUE_TOLERANCE = 1e-11;

/** Column-major codes from rows of codes. */
function columnMajor(rows: number[][]): Int32Array {
  const n = rows.length;
  const p = rows[0]?.length ?? 0;
  const codes = new Int32Array(n * p);
  rows.forEach((row, r) => row.forEach((code, j) => (codes[j * n + r] = code)));
  return codes;
}

/** Rows (x, y, s) reproducing, for s = 0 and s = 1, the x-by-y tables given. */
function rowsFromTables(tables: number[][][]): number[][] {
  const rows: number[][] = [];
  tables.forEach((table, s) => table.forEach((counts, x) => counts.forEach((count, y) => {
    for (let i = 0; i < count; i++) rows.push([x, y, s]);
  })));
  return rows;
}

for (const [name, kernels] of Object.entries(implementations)) {
  test(`${name}: G-square of the 2 x 2 table [[10, 20], [30, 40]] is 0.80435 with p = 0.36980 (scipy)`, () => {
    const rows = rowsFromTables([[[10, 20], [30, 40]]]);
    const codes = columnMajor(rows);
    const levels = new Int32Array([2, 2, 1]);
    assert.deepEqual([...kernels.contingency(codes, rows.length, levels, 0, 1)], [10, 20, 30, 40]);
    const result = kernels.gSquareBatch(codes, rows.length, levels, packTests(0, [[0, 1]]), 0, 1);
    // scipy.stats.chi2_contingency(table, lambda_='log-likelihood', correction=False)
    assertClose([result.statistic[0]!, result.df[0]!, result.pValue[0]!], [0.8043486460964835, 1, 0.36979636792989645], 1e-13, 'G, df, p');
  });

  test(`${name}: a stratum with an empty row loses its degrees of freedom (structural zeros)`, () => {
    // s = 0: x = 2 never occurs, so that stratum has (2 - 1)(2 - 1) = 1 df, not 2; s = 1 has (3 - 1)(2 - 1) = 2.
    const rows = rowsFromTables([[[5, 0], [7, 3], [0, 0]], [[4, 1], [2, 6], [3, 3]]]);
    const result = kernels.gSquareBatch(columnMajor(rows), rows.length, new Int32Array([3, 2, 2]), packTests(1, [[0, 1, 2]]), 1, 1);
    // The sum of the strata's G (scipy, 2.7947866650477673 + 3.9677842403897197) and scipy.stats.chi2.sf(G, 3).
    assertClose([result.statistic[0]!, result.df[0]!, result.pValue[0]!], [6.762570905437487, 3, 0.07986307239180687], 1e-13, 'G, df, p');
  });

  test(`${name}: a stratum without rows adds no degrees of freedom`, () => {
    // The tables of the structural-zeros test with an empty stratum s = 1 between them: same G, df and p.
    const rows = rowsFromTables([[[5, 0], [7, 3], [0, 0]], [[0, 0], [0, 0], [0, 0]], [[4, 1], [2, 6], [3, 3]]]);
    const result = kernels.gSquareBatch(columnMajor(rows), rows.length, new Int32Array([3, 2, 3]), packTests(1, [[0, 1, 2]]), 1, 1);
    assertClose([result.statistic[0]!, result.df[0]!, result.pValue[0]!], [6.762570905437487, 3, 0.07986307239180687], 1e-13, 'G, df, p');
  });

  test(`${name}: rows with a missing or out-of-range code in x, y or S are skipped`, () => {
    const rows = rowsFromTables([[[5, 0], [7, 3], [0, 0]], [[4, 1], [2, 6], [3, 3]]]);
    const dirty = [...rows, [-1, 1, 0], [2, -1, 1], [0, 0, -1], [3, 0, 0], [1, 7, 1], [0, 1, 2]];
    const levels = new Int32Array([3, 2, 2]);
    const conditional = packTests(1, [[0, 1, 2]]);
    assert.deepEqual(kernels.gSquareBatch(columnMajor(dirty), dirty.length, levels, conditional, 1, 1), kernels.gSquareBatch(columnMajor(rows), rows.length, levels, conditional, 1, 1));
    // Without S, only rows with a bad x or y code drop out.
    const validXY = dirty.filter(([x, y]) => x! >= 0 && x! < 3 && y! >= 0 && y! < 2);
    assert.equal(validXY.length, rows.length + 2);
    const marginal = packTests(0, [[0, 1]]);
    assert.deepEqual(kernels.gSquareBatch(columnMajor(dirty), dirty.length, levels, marginal, 0, 1), kernels.gSquareBatch(columnMajor(validXY), validXY.length, levels, marginal, 0, 1));
    assert.deepEqual(kernels.contingency(columnMajor(dirty), dirty.length, levels, 0, 1), kernels.contingency(columnMajor(validXY), validXY.length, levels, 0, 1));
  });

  test(`${name}: a constant column, no rows at all, or an index out of range answer df 0 / p 1 or NaN`, () => {
    const rows = [[0, 0], [1, 0], [1, 0], [0, 0]];
    const result = kernels.gSquareBatch(columnMajor(rows), 4, new Int32Array([2, 1]), packTests(1, [[0, 1], [0, 5], [0, 1, 0]]), 1, 3);
    assert.deepEqual([result.statistic[0], result.df[0], result.pValue[0]], [0, 0, 1]);
    assert.ok(Number.isNaN(result.statistic[1]!) && Number.isNaN(result.df[1]!) && Number.isNaN(result.pValue[1]!));
    assert.deepEqual([result.df[2], result.pValue[2]], [0, 1], 'x in its own conditioning set leaves one x level per stratum');
    const empty = kernels.gSquareBatch(new Int32Array(0), 0, new Int32Array([2, 2]), packTests(0, [[0, 1]]), 0, 1);
    assert.deepEqual([empty.statistic[0], empty.df[0], empty.pValue[0]], [0, 0, 1]);
  });

  test(`${name}: contingency refuses a column index out of range`, () => {
    assert.throws(() => kernels.contingency(new Int32Array(4), 2, new Int32Array([2, 2]), 0, 2), RangeError);
  });
}

/** n rows of `columns.length` coded columns, each level equally likely, y and x depending on the previous column. */
function randomCodes(source: InputSource, n: number, levels: number[], missing: number): Int32Array {
  const codes = new Int32Array(n * levels.length);
  for (let r = 0; r < n; r++) {
    levels.forEach((count, j) => {
      const previous = j > 0 ? codes[(j - 1) * n + r]! : -1;
      const code = previous >= 0 && source.uniform() < 0.4 ? previous % count : source.integer(count);
      codes[j * n + r] = source.uniform() < missing ? -1 : code;
    });
  }
  return codes;
}

function randomTests(source: InputSource, columns: number, maxK: number, count: number): number[][] {
  return Array.from({ length: count }, (_, t) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(columns, 2 + (t % (maxK + 1)))) chosen.add(source.integer(columns));
    return [...chosen];
  });
}

test('WASM G-square batches agree with the reference from 0 to 100,000 rows, with missing codes', () => {
  const source = new InputSource(17);
  const levels = [2, 3, 1, 5, 2, 4];
  for (const n of [0, 1, 10, 1000, 100_000]) {
    const codes = randomCodes(source, n, levels, 0.05);
    const tests = randomTests(source, levels.length, 3, 60);
    const packed = packTests(3, tests);
    const expected = reference.gSquareBatch(codes, n, new Int32Array(levels), packed, 3, tests.length);
    const actual = wasm.gSquareBatch(codes, n, new Int32Array(levels), packed, 3, tests.length);
    assertClose(actual.statistic, expected.statistic, STATISTIC_TOLERANCE, `wasm/ref G-square n=${n}`);
    assert.deepEqual(actual.df, expected.df, `df n=${n}`);
    assertClose(actual.pValue, expected.pValue, P_VALUE_TOLERANCE, `wasm/ref p-value n=${n}`, 1e-300);
    for (const [x, y] of [[0, 1], [3, 5], [2, 4]] as const) {
      assert.deepEqual(wasm.contingency(codes, n, new Int32Array(levels), x, y), reference.contingency(codes, n, new Int32Array(levels), x, y));
    }
  }
});

test('WASM and reference agree when the conditioning strata outnumber the rows (2^55 possible strata)', () => {
  const source = new InputSource(23);
  const n = 3000;
  for (const levels of [[3, 4, 50, 50, 50], [3, 4, 2048, 2048, 2048, 2048, 2048]]) {
    const codes = randomCodes(source, n, levels, 0.02);
    const conditioning = levels.slice(2).map((_, i) => i + 2);
    const tests = [[0, 1, ...conditioning], [0, 1, conditioning[0]!], [1, 0, ...conditioning.slice(1)]];
    const maxK = conditioning.length;
    const expected = reference.gSquareBatch(codes, n, new Int32Array(levels), packTests(maxK, tests), maxK, tests.length);
    const actual = wasm.gSquareBatch(codes, n, new Int32Array(levels), packTests(maxK, tests), maxK, tests.length);
    assertClose(actual.statistic, expected.statistic, STATISTIC_TOLERANCE, `wasm/ref G-square levels=${levels}`);
    assert.deepEqual(actual.df, expected.df);
    assertClose(actual.pValue, expected.pValue, P_VALUE_TOLERANCE, `wasm/ref p-value levels=${levels}`, 1e-300);
  }
});

test('WASM and reference agree on every table size: counted in four copies, in one, or by sorting the strata', () => {
  // With 1003 rows the kernel counts tables of up to 4 * 1003 + 4096 cells directly (in four interleaved copies
  // up to a quarter of that); 3 x 4 x 10 x 10, 3 x 4 x 20 x 20 and 3 x 4 x 30 x 30 cells take the three paths.
  const source = new InputSource(29);
  const n = 1003;
  for (const [levels, missing] of [[[3, 4, 10, 10], 0.03], [[3, 4, 20, 20], 0], [[3, 4, 30, 30], 0.03], [[2, 2, 3, 2, 2, 3, 2], 0.1]] as const) {
    const codes = randomCodes(source, n, [...levels], missing);
    const conditioning = levels.slice(2).map((_, i) => i + 2);
    const tests = [[0, 1, ...conditioning], [1, 0, ...conditioning], [0, 1, conditioning[0]!], [0, 1], [2, 3, 0, 1]];
    const maxK = conditioning.length;
    const expected = reference.gSquareBatch(codes, n, new Int32Array(levels), packTests(maxK, tests), maxK, tests.length);
    const actual = wasm.gSquareBatch(codes, n, new Int32Array(levels), packTests(maxK, tests), maxK, tests.length);
    assertClose(actual.statistic, expected.statistic, STATISTIC_TOLERANCE, `wasm/ref G-square levels=${levels}`);
    assert.deepEqual(actual.df, expected.df);
    assertClose(actual.pValue, expected.pValue, P_VALUE_TOLERANCE, `wasm/ref p-value levels=${levels}`, 1e-300);
  }
});

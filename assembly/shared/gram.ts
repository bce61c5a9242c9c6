// The upper triangle of a sum of outer products, gram[i][j] += sum over rows of row[i] * row[j] (j >= i), with
// f64x2 lanes over j. Each element still receives its rows' products one after another in row order, so the
// result is bit-identical to the plain scalar loop of the TypeScript reference.

// @ts-ignore: decorator
@inline function lane(ptr: usize, j: i32): v128 {
  return v128.load(ptr + (<usize>j << 3));
}

/** Adds the outer products of `count` consecutive rows of length p (row-major at `rows`) to gram (p x p). */
export function addOuterProducts(rows: usize, count: i32, p: i32, gram: usize): void {
  const rowBytes = <usize>p << 3;
  let r = 0;
  // Four rows per pass over the triangle: a quarter of the loads and stores of gram.
  for (; r + 3 < count; r += 4) {
    const r0 = rows + <usize>r * rowBytes;
    const r1 = r0 + rowBytes;
    const r2 = r1 + rowBytes;
    const r3 = r2 + rowBytes;
    for (let i = 0; i < p; i++) {
      const a0 = load<f64>(r0 + (<usize>i << 3));
      const a1 = load<f64>(r1 + (<usize>i << 3));
      const a2 = load<f64>(r2 + (<usize>i << 3));
      const a3 = load<f64>(r3 + (<usize>i << 3));
      const s0 = f64x2.splat(a0);
      const s1 = f64x2.splat(a1);
      const s2 = f64x2.splat(a2);
      const s3 = f64x2.splat(a3);
      const out = gram + <usize>i * rowBytes;
      let j = i;
      for (; j + 1 < p; j += 2) {
        let c = lane(out, j);
        c = f64x2.add(c, f64x2.mul(s0, lane(r0, j)));
        c = f64x2.add(c, f64x2.mul(s1, lane(r1, j)));
        c = f64x2.add(c, f64x2.mul(s2, lane(r2, j)));
        c = f64x2.add(c, f64x2.mul(s3, lane(r3, j)));
        v128.store(out + (<usize>j << 3), c);
      }
      if (j < p) {
        const at = <usize>j << 3;
        let c = load<f64>(out + at);
        c += a0 * load<f64>(r0 + at);
        c += a1 * load<f64>(r1 + at);
        c += a2 * load<f64>(r2 + at);
        c += a3 * load<f64>(r3 + at);
        store<f64>(out + at, c);
      }
    }
  }
  for (; r < count; r++) {
    const row = rows + <usize>r * rowBytes;
    for (let i = 0; i < p; i++) {
      const a = load<f64>(row + (<usize>i << 3));
      const s = f64x2.splat(a);
      const out = gram + <usize>i * rowBytes;
      let j = i;
      for (; j + 1 < p; j += 2) v128.store(out + (<usize>j << 3), f64x2.add(lane(out, j), f64x2.mul(s, lane(row, j))));
      if (j < p) store<f64>(out + (<usize>j << 3), load<f64>(out + (<usize>j << 3)) + a * load<f64>(row + (<usize>j << 3)));
    }
  }
}

/** Copies the upper triangle of a p x p matrix onto its lower triangle. */
export function mirrorUpper(matrix: usize, p: i32): void {
  for (let i = 0; i < p; i++) {
    for (let j = 0; j < i; j++) store<f64>(matrix + ((<usize>i * p + j) << 3), load<f64>(matrix + ((<usize>j * p + i) << 3)));
  }
}

/** Small dense linear algebra in plain TypeScript, for matrices too small to be worth a kernel call. */

/** Inverse of a symmetric positive-definite m x m matrix (Cholesky), or null when it is not (numerically) PD. */
export function invert(a: readonly number[], m: number): number[] | null {
  const l = new Float64Array(m * m);
  const scale = Math.max(...Array.from({ length: m }, (_, i) => Math.abs(a[i * m + i]!)), 1e-300);
  for (let i = 0; i < m; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * m + j]!;
      for (let k = 0; k < j; k++) s -= l[i * m + k]! * l[j * m + k]!;
      if (i === j) {
        if (!(s > 1e-12 * scale)) return null;
        l[i * m + i] = Math.sqrt(s);
      } else l[i * m + j] = s / l[j * m + j]!;
    }
  }
  return Array.from(inverseFromCholesky(l, m));
}

/** A^-1 = L^-T L^-1 from the lower Cholesky factor L of A (row-major m x m). */
export function inverseFromCholesky(l: Float64Array, m: number): Float64Array {
  const li = new Float64Array(m * m);
  for (let j = 0; j < m; j++) {
    li[j * m + j] = 1 / l[j * m + j]!;
    for (let i = j + 1; i < m; i++) {
      let s = 0;
      for (let k = j; k < i; k++) s -= l[i * m + k]! * li[k * m + j]!;
      li[i * m + j] = s / l[i * m + i]!;
    }
  }
  const out = new Float64Array(m * m);
  for (let i = 0; i < m; i++) for (let j = 0; j <= i; j++) {
    let s = 0;
    for (let k = i; k < m; k++) s += li[k * m + i]! * li[k * m + j]!;
    out[i * m + j] = s;
    out[j * m + i] = s;
  }
  return out;
}

/**
 * The multinomial regret log C(n, r): the log of the normalising sum of the normalised maximum likelihood (NML)
 * distribution of n draws from r categories, C(n, r) = sum over count vectors of n! / prod(n_k!) prod (n_k / n)^n_k.
 * It is the complexity term of the quotient NML score (Silander, Leppa-aho, Jaasaari & Roos 2018, "Quotient
 * normalized maximum likelihood criterion for learning Bayesian network structures", AISTATS), computed with the
 * linear recurrence of Kontkanen & Myllymaki 2007 ("A linear-time algorithm for computing the multinomial stochastic
 * complexity"): C(n, 1) = 1, C(n, 2) by its sum, C(n, r + 2) = C(n, r + 1) + n / r * C(n, r), in logs.
 * Past RECURRENCE_CAP categories (far more than n) the count vectors with no repeated category dominate the sum,
 * C(n, r) ~ r^n n! / n^n, so log C grows by n log(r / r') from the cap.
 */

const RECURRENCE_CAP = 1 << 20;

export class MultinomialRegret {
  /** logs[r - 1] = log C(n, r) for the categories computed so far. */
  private logs: Float64Array;
  private computed: number;

  constructor(readonly n: number) {
    this.logs = new Float64Array(64);
    this.logs[0] = 0;
    this.logs[1] = n <= 0 ? 0 : logRegretOfTwo(n);
    this.computed = 2;
  }

  /** log C(n, r) for r >= 1 categories (0 for r <= 1 or no draws). */
  log(r: number): number {
    if (r <= 1 || this.n <= 0) return 0;
    if (r > RECURRENCE_CAP) return this.log(RECURRENCE_CAP) + this.n * Math.log(r / RECURRENCE_CAP);
    this.extendTo(Math.ceil(r));
    return this.logs[Math.ceil(r) - 1]!;
  }

  private extendTo(r: number): void {
    if (r <= this.computed) return;
    if (r > this.logs.length) {
      const grown = new Float64Array(Math.min(RECURRENCE_CAP, Math.max(r, this.logs.length * 2)));
      grown.set(this.logs);
      this.logs = grown;
    }
    const logs = this.logs;
    for (let k = this.computed; k < r; k++) {
      // C(n, k + 1) = C(n, k) + n / (k - 1) * C(n, k - 1), with k = the count of categories of logs[k - 1].
      const previous = logs[k - 1]!;
      const before = logs[k - 2]!;
      logs[k] = previous + Math.log1p((this.n / (k - 1)) * Math.exp(before - previous));
    }
    this.computed = r;
  }
}

/** log C(n, 2) = log sum_k binom(n, k) (k / n)^k ((n - k) / n)^(n - k), by log-sum-exp. */
function logRegretOfTwo(n: number): number {
  const terms = new Float64Array(n + 1);
  let logBinomial = 0;
  let largest = Number.NEGATIVE_INFINITY;
  for (let k = 0; k <= n; k++) {
    if (k > 0) logBinomial += Math.log((n - k + 1) / k);
    const a = k === 0 ? 0 : k * Math.log(k / n);
    const b = k === n ? 0 : (n - k) * Math.log((n - k) / n);
    terms[k] = logBinomial + a + b;
    if (terms[k]! > largest) largest = terms[k]!;
  }
  let sum = 0;
  for (let k = 0; k <= n; k++) sum += Math.exp(terms[k]! - largest);
  return largest + Math.log(sum);
}

/**
 * Decomposable local scores: extended BIC (below) of a node given its parents, with quotient NML in place of BIC's
 * parameter count on discrete data (countFamily). Continuous nodes: linear-Gaussian regression on the parents'
 * Gaussian embedding, computed from the covariance alone. Categorical nodes: multinomial counts when every parent
 * is categorical (Heckerman, Geiger & Chickering 1995), multinomial logistic regression otherwise. With missing
 * values a family's likelihood uses the rows that observe it, rescaled to all n rows (the node-average likelihood
 * of Balov 2013) together with its penalty, so it is judged on the evidence of those rows; a search move compares
 * two families on their common rows (`gain`).
 */
import type { Kernels } from '../../compute/kernels.js';
import type { PreparedData } from './prepare.js';
import { observedMeanAndStd } from '../frame.js';
import { isMissing } from './observed.js';
import { MultinomialRegret } from './regret.js';
import { MAX_LOGISTIC_WEIGHTS } from '../cbn/fit-logistic.js';

/**
 * Extended BIC (Chen & Chen 2008) with gamma = 1: a node's parent set of size k also pays log C(p - 1, k), the
 * log of the number of parent sets of that size (a uniform prior over model sizes). Plain BIC lets a search over
 * all pairs of many variables admit one chance edge in a few hundred null pairs; this keeps false edges rare as
 * p grows.
 */
export const EBIC_GAMMA = 1;

export interface LocalScorer {
  readonly n: number;
  /** Families scored so far (cache misses): the work the search has done. */
  readonly evaluations: number;
  /** Maximised log-likelihood of the node given the parents, on the scale of n rows. */
  logLik(node: number, parents: readonly number[]): number;
  parameters(node: number, parents: readonly number[]): number;
  /** EBIC: logLik - log(n)/2 * parameters - log C(p - 1, |parents|) (on discrete data the count family's regret
   * in place of log(n)/2 * parameters); higher is better. Cached by family. */
  score(node: number, parents: readonly number[]): number;
  /** The score of a continuous node with `parentCount` single-column parents that leave `variance` unexplained:
   * what score() answers for such a family, for searches that track residual variances themselves. */
  scoreOfResidual(variance: number, parentCount: number, scale?: number): number;
  /**
   * With missing values, the factor a family's penalty is rescaled by (the rows it rests on, to n: score() applies
   * it; searches that use scoreOfResidual pass it); null when nothing is missing (the factor is 1).
   */
  readonly penaltyScale: ((node: number, parents: readonly number[]) => number) | null;
  /**
   * score(node, parents + extra) - score(node, parents), the change every search move is made of. With missing
   * values in count or logistic families both likelihoods are taken on the same rows (those observing the node,
   * the parents and the extra parent), a likelihood-ratio on available cases, so the change is not swamped by the
   * noise of comparing different row subsets.
   */
  gain(node: number, parents: readonly number[], extra: number): number;
  /**
   * A cheap stand-in for gain() where a family costs an iterative fit (a categorical node of mixed data, whose
   * families with a number parent are logistic regressions), for searches that rank many candidate parents and fit
   * only the best few; null for nodes whose gain() is itself cheap. It is the degenerate Gaussian score's gain
   * (Andrews, Ramsey & Cooper 2019, "Learning high-dimensional directed acyclic graphs with mixed data-types"): the
   * node's indicator columns regressed on the parents' embedding, judged by BIC on the log-determinant of their
   * residual covariance.
   */
  estimatedGain(node: number, parents: readonly number[], extra: number): number | null;
}

export function localScorerFor(data: PreparedData, kernels: Kernels): LocalScorer {
  const penalty = Math.log(Math.max(data.n, 2)) / 2;
  const gaussian = data.moments ? gaussianFamily(data, kernels, penalty) : null;
  const counts = countFamily(data, penalty);
  const logistic = data.mode === 'mixed' ? logisticFamily(data, kernels, penalty) : null;
  const familyOf = (node: number, parents: readonly number[]) => {
    if (data.informative[node] !== 1) return NOTHING;
    if (data.kinds[node] === 'continuous') return gaussian!;
    if (parents.every((q) => data.kinds[q] === 'categorical')) return counts;
    return logistic!;
  };
  const cache = new Map<string, number>();
  let evaluations = 0;
  const logLikCache = new Map<string, number>();
  const informativeCount = data.informative.reduce((a, b) => a + b, 0);
  // The size prior of k parents, k = 0..p (a hot path of every search: computed once).
  const sizePenalties = Float64Array.from({ length: data.p + 1 }, (_, k) => EBIC_GAMMA * logBinomial(Math.max(informativeCount - 1, k), k));
  const sizePenalty = (k: number) => sizePenalties[k]!;
  // A family's cache key: the node and its sorted parents as UTF-16 code units (a hot path of every search).
  const keyBuffer = new Uint16Array(data.p + 1);
  const keyOf = (node: number, parents: readonly number[]) => {
    if (data.p >= 0xffff) return `${node}|${Int32Array.from(parents).sort().join(',')}`;
    const k = parents.length;
    keyBuffer[0] = node;
    for (let a = 0; a < k; a++) {
      const v = parents[a]!;
      let b = a;
      while (b > 0 && keyBuffer[b]! > v) {
        keyBuffer[b + 1] = keyBuffer[b]!;
        b--;
      }
      keyBuffer[b + 1] = v;
    }
    return String.fromCharCode.apply(null, keyBuffer.subarray(0, k + 1) as unknown as number[]);
  };
  const logLik = (node: number, parents: readonly number[]) => {
    const key = keyOf(node, parents);
    let value = logLikCache.get(key);
    if (value === undefined) {
      value = familyOf(node, parents).logLik(node, parents);
      logLikCache.set(key, value);
      evaluations++;
    }
    return value;
  };
  const parameters = (node: number, parents: readonly number[]) => familyOf(node, parents).parameters(node, parents);
  const scoreOfResidual = (variance: number, k: number, scale = 1) => gaussianLogLik(data.n, variance) - scale * penalty * (2 + k) - scale * sizePenalty(k);
  const hasMissing = data.completeShare < 1;
  // With missing values a family's likelihood is rescaled to n rows from the rows it rests on; its penalty is
  // rescaled by the same factor, so the family is judged as on those rows. (Rescaling the likelihood alone gave a
  // column observed in 2% of the rows the evidence of all of them: its chance correlations became edges.) Count and
  // logistic families rest on the rows observing all their variables; a Gaussian family's EM covariance on more,
  // taken as the smallest pairwise count of its variables (as the Fisher-z tests take it).
  const penaltyScale = (node: number, parents: readonly number[]) => {
    if (!data.observed) return 1;
    const rows = data.kinds[node] === 'continuous' ? data.observed.smallest([node, ...parents]) : observedRows(data, [node, ...parents]).length;
    return data.n / Math.max(1, rows);
  };
  const score = (node: number, parents: readonly number[]) => {
    const key = keyOf(node, parents);
    let value = cache.get(key);
    if (value === undefined) {
      const scale = penaltyScale(node, parents);
      value = logLik(node, parents) - scale * familyOf(node, parents).complexity(node, parents) - scale * sizePenalty(parents.length);
      cache.set(key, value);
    }
    return value;
  };
  const gainCache = new Map<string, number>();
  const gain = (node: number, parents: readonly number[], extra: number) => {
    const withExtra = [...parents, extra];
    if (!hasMissing || data.kinds[node] === 'continuous') return score(node, withExtra) - score(node, parents);
    const key = `${keyOf(node, parents)}+${extra}`;
    let value = gainCache.get(key);
    if (value === undefined) {
      const rows = observedRows(data, [node, ...withExtra]);
      const scale = data.n / Math.max(1, rows.length);
      const difference = rows.length === 0 ? 0 : familyOf(node, withExtra).logLik(node, withExtra, rows) - familyOf(node, parents).logLik(node, parents, rows);
      const complexity = familyOf(node, withExtra).complexity(node, withExtra) - familyOf(node, parents).complexity(node, parents);
      // Judged on the common rows, then rescaled to n (as score() does).
      value = scale * (difference - complexity - (sizePenalty(withExtra.length) - sizePenalty(parents.length)));
      gainCache.set(key, value);
      evaluations += 2;
    }
    return value;
  };
  const logDetCache = new Map<string, number>();
  const estimatedGain = (node: number, parents: readonly number[], extra: number) => {
    if (data.mode !== 'mixed' || data.kinds[node] !== 'categorical' || data.informative[node] !== 1) return null;
    // A node of so many categories that no logistic family of it is fitted: its gains are cheap (and its indicator
    // block would make each estimate a large factorisation).
    if (data.levels[node]! * 2 > MAX_FAMILY_WEIGHTS) return null;
    const { cov, q } = data.moments!;
    const own = data.blocks[node]!;
    const cols = parents.flatMap((v) => data.blocks[v]!);
    // A grow step estimates every candidate against the same parents: their log-determinant is factored once.
    const key = keyOf(node, parents);
    let before = logDetCache.get(key);
    if (before === undefined) {
      before = conditionalLogDet(cov, q, own, cols, kernels);
      logDetCache.set(key, before);
    }
    const after = conditionalLogDet(cov, q, own, [...cols, ...data.blocks[extra]!], kernels);
    return (-data.n / 2) * (after - before) - penalty * own.length * data.blocks[extra]!.length;
  };
  return {
    n: data.n,
    get evaluations() {
      return evaluations;
    },
    logLik,
    parameters,
    score,
    scoreOfResidual,
    penaltyScale: hasMissing ? penaltyScale : null,
    gain,
    estimatedGain,
  };
}

/** The family of a variable kept out of the search (no variation, or an exact copy): nothing to fit, nothing to pay. */
const NOTHING: Family = { logLik: () => 0, parameters: () => 0, complexity: () => 0 };

/** Rows where every listed variable is observed. */
function observedRows(data: PreparedData, variables: readonly number[]): Int32Array {
  const out: number[] = [];
  for (let row = 0; row < data.n; row++) {
    let ok = true;
    for (const v of variables) {
      if (isMissing(data, v, row)) {
        ok = false;
        break;
      }
    }
    if (ok) out.push(row);
  }
  return Int32Array.from(out);
}

interface Family {
  /** On all rows observing the family (rescaled to n), or on the given rows only (not rescaled). */
  logLik(node: number, parents: readonly number[], rows?: Int32Array): number;
  parameters(node: number, parents: readonly number[]): number;
  /** What the family pays for its fit: BIC's log(n)/2 per parameter, or the count family's NML regret. */
  complexity(node: number, parents: readonly number[]): number;
}

function gaussianFamily(data: PreparedData, kernels: Kernels, penalty: number): Family {
  const { cov, q } = data.moments!;
  const n = data.n;
  return {
    logLik(node, parents) {
      const y = data.blocks[node]![0];
      if (y === undefined) return 0;
      const cols = parents.flatMap((v) => data.blocks[v]!);
      return gaussianLogLik(n, residualVariance(cov, q, y, cols, kernels));
    },
    parameters: (_node, parents) => 2 + parents.reduce((s, v) => s + data.blocks[v]!.length, 0),
    complexity(node, parents) {
      return penalty * this.parameters(node, parents);
    },
  };
}

/** Maximised Gaussian log-likelihood of n rows whose residual variance is `variance`. */
const gaussianLogLik = (n: number, variance: number) => (-n / 2) * (Math.log(2 * Math.PI * Math.max(variance, 1e-12)) + 1);

/**
 * The Cholesky factor (k x k, row-major) of the covariance of `members`, read from a covariance matrix; when that is
 * singular (a member determined by the others), of the matrix ridged by 1e-10, 1e-8, ... of each diagonal entry.
 */
export function ridgedCholesky(cov: Float64Array, q: number, members: readonly number[], kernels: Kernels): Float64Array {
  const k = members.length;
  const matrix = new Float64Array(k * k);
  for (let a = 0; a < k; a++) for (let b = 0; b < k; b++) matrix[a * k + b] = cov[members[a]! * q + members[b]!]!;
  let factor = kernels.cholesky(matrix, k);
  for (let ridge = 1e-10; factor.status !== 0 && ridge < 1; ridge *= 100) {
    for (let a = 0; a < k; a++) matrix[a * k + a] = cov[members[a]! * q + members[a]!]! * (1 + ridge) + ridge;
    factor = kernels.cholesky(matrix, k);
  }
  return factor.l;
}

/** Var(y | cols) from a covariance matrix: S_yy - S_yP S_PP^-1 S_Py through a Cholesky factor of S_PP. */
export function residualVariance(cov: Float64Array, q: number, y: number, cols: readonly number[], kernels: Kernels): number {
  const syy = cov[y * q + y]!;
  const k = cols.length;
  if (k === 0) return syy;
  const l = ridgedCholesky(cov, q, cols, kernels);
  // Forward substitution L z = S_Py; the explained variance is |z|^2.
  const z = new Float64Array(k);
  let explained = 0;
  for (let a = 0; a < k; a++) {
    let s = cov[cols[a]! * q + y]!;
    for (let b = 0; b < a; b++) s -= l[a * k + b]! * z[b]!;
    z[a] = s / l[a * k + a]!;
    explained += z[a]! * z[a]!;
  }
  return Math.max(syy - explained, syy * 1e-12);
}

/**
 * log det Cov(ys | cols) from a covariance matrix: one Cholesky factor of the members ordered cols then ys, whose
 * last diagonal entries factor the Schur complement.
 */
function conditionalLogDet(cov: Float64Array, q: number, ys: readonly number[], cols: readonly number[], kernels: Kernels): number {
  const k = cols.length + ys.length;
  const l = ridgedCholesky(cov, q, [...cols, ...ys], kernels);
  let logDet = 0;
  for (let a = cols.length; a < k; a++) logDet += 2 * Math.log(Math.max(l[a * k + a]!, 1e-150));
  return logDet;
}

/** Parent-configuration keys of recently used parent sets (mixed radix over rows; -1 = a parent missing). */
const KEY_CACHE_SIZE = 24;

/**
 * Counts (every parent categorical). On discrete data (every variable categorical) a family is scored by quotient
 * NML (regret.ts; Silander et al. 2018): its likelihood pays log C(n, r q) - log C(n, q) for a node of r classes
 * whose parents take q configurations. Unlike BIC's (r - 1) q log(n) / 2 this is not linear in q, so a parent set
 * of many configurations that the data fill is not rejected for the configurations it could have had; the score is
 * parameter-free and score-equivalent. On mixed data, where families with continuous parents are logistic
 * regressions under BIC, counts pay BIC too, so that one criterion judges every move.
 */
function countFamily(data: PreparedData, penalty: number): Family {
  const { n } = data;
  const regret = data.mode === 'discrete' ? new MultinomialRegret(n) : null;
  const configurationsOf = (parents: readonly number[]) => parents.reduce((c, v) => c * Math.max(data.levels[v]!, 1), 1);
  const parametersOf = (node: number, parents: readonly number[]) => Math.max(data.levels[node]! - 1, 0) * configurationsOf(parents);
  const complexity = (node: number, parents: readonly number[]) => {
    if (!regret) return penalty * parametersOf(node, parents);
    const configs = configurationsOf(parents);
    return regret.log(Math.max(data.levels[node]!, 1) * configs) - regret.log(configs);
  };
  let counts = new Int32Array(1024);
  const keyCache = new Map<string, Int32Array>();
  // The keys of a parent set, built from the cached keys of all but its last member when available: the searches
  // score one node's current parents plus one candidate at a time, so this is usually a single pass.
  const keysOf = (parents: readonly number[]): Int32Array => {
    const id = parents.join(',');
    const cached = keyCache.get(id);
    if (cached) return cached;
    const keys = new Int32Array(n); // all zero: the one configuration of no parents
    if (parents.length > 0) {
      const last = parents[parents.length - 1]!;
      const codes = data.codes[last]!;
      const radix = Math.max(data.levels[last]!, 1);
      if (parents.length === 1) keys.set(codes);
      else {
        foldKeys(keysOf(parents.slice(0, -1)), codes, radix, keys);
      }
    }
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.delete(keyCache.keys().next().value!);
    keyCache.set(id, keys);
    return keys;
  };
  return {
    logLik(node, parents, rows) {
      const r = data.levels[node]!;
      const configs = configurationsOf(parents);
      // A family whose extra complexity over no parents exceeds n log r (the most any parents can add to the
      // likelihood of no parents) can never beat having no parents: answer the upper bound 0 without counting.
      if (complexity(node, parents) - complexity(node, []) >= n * Math.log(Math.max(r, 2))) return 0;
      const child = data.codes[node]!;
      const size = configs * r;
      if (counts.length < size) counts = new Int32Array(size);
      const cells = counts;
      cells.fill(0, 0, size);
      if (rows) {
        const keys = keysOf(parents);
        for (const row of rows) cells[keys[row]! * r + child[row]!]!++;
      } else if (parents.length === 0) {
        for (let row = 0; row < n; row++) if (child[row]! >= 0) cells[child[row]!]!++;
      } else {
        // The last parent is folded in on the fly, so scoring "current parents + one candidate" allocates nothing.
        const lastParent = parents[parents.length - 1]!;
        countCells(keysOf(parents.slice(0, -1)), data.codes[lastParent]!, Math.max(data.levels[lastParent]!, 1), child, r, cells);
      }
      const { logLik, used } = multinomialLogLik(cells, configs, r);
      if (used === 0) return 0;
      return rows ? logLik : (logLik * n) / used;
    },
    parameters: parametersOf,
    complexity,
  };
}

// The hot loops as small top-level functions, which V8 optimises better than code inside a large closure.
function countCells(base: Int32Array, last: Int32Array, radix: number, child: Int32Array, r: number, cells: Int32Array): void {
  const n = child.length;
  for (let row = 0; row < n; row++) {
    const b = base[row]!;
    const l = last[row]!;
    const c = child[row]!;
    if ((b | l | c) >= 0) cells[(b * radix + l) * r + c]!++; // all non-negative: nothing missing
  }
}

function foldKeys(base: Int32Array, codes: Int32Array, radix: number, out: Int32Array): void {
  const n = out.length;
  for (let row = 0; row < n; row++) {
    const key = base[row]!;
    const code = codes[row]!;
    out[row] = (key | code) < 0 ? -1 : key * radix + code;
  }
}

/** sum N_jk log(N_jk / N_j) over a configs x r table of counts, and the number of rows counted. */
function multinomialLogLik(cells: Int32Array, configs: number, r: number): { logLik: number; used: number } {
  let logLik = 0;
  let used = 0;
  for (let config = 0; config < configs; config++) {
    let total = 0;
    for (let k = 0; k < r; k++) total += cells[config * r + k]!;
    if (total === 0) continue;
    used += total;
    for (let k = 0; k < r; k++) {
      const c = cells[config * r + k]!;
      if (c > 0) logLik += c * Math.log(c / total);
    }
  }
  return { logLik, used };
}

/** Weights (classes x design columns) of the largest logistic family discovery fits, a quarter of what a model fit
 * takes (fit-logistic.ts): its Newton step solves a system of this size, and each row adds to a Hessian of its square. */
const MAX_FAMILY_WEIGHTS = MAX_LOGISTIC_WEIGHTS / 4;

function logisticFamily(data: PreparedData, kernels: Kernels, penalty: number): Family {
  const { n } = data;
  const scale = data.values.map((values) => (values ? observedMeanAndStd(values) : null));
  const width = (parents: readonly number[]) => 1 + parents.reduce((s, v) => s + (data.kinds[v] === 'continuous' ? 1 : Math.max(data.levels[v]! - 1, 0)), 0);
  return {
    logLik(node, parents, given) {
      const child = data.codes[node]!;
      const classes = data.levels[node]!;
      const k = width(parents);
      const rows = given ?? observedRows(data, [node, ...parents]);
      if (rows.length === 0 || classes < 2) return 0;
      // A family of more weights than a fit can afford (a many-category child or parent: its Hessian has the square
      // of their number of cells) is answered with the likelihood of no parents, a lower bound of its own: with its
      // larger penalty it never beats having no parents, so the searches leave it out instead of failing.
      if (classes * k > MAX_FAMILY_WEIGHTS) {
        const cells = new Int32Array(classes);
        for (const row of rows) cells[child[row]!]!++;
        return multinomialLogLik(cells, 1, classes).logLik * (given ? 1 : n / rows.length);
      }
      const m = rows.length;
      const x = new Float64Array(m * k);
      const y = new Int32Array(m);
      // Filled a column at a time: the intercept, then each parent's standardised value or its indicators.
      for (let i = 0; i < m; i++) {
        y[i] = child[rows[i]!]!;
        x[i * k] = 1;
      }
      let col = 1;
      for (const v of parents) {
        if (data.kinds[v] === 'continuous') {
          const { mean, std } = scale[v]!;
          const values = data.values[v]!;
          for (let i = 0; i < m; i++) x[i * k + col] = (values[rows[i]!]! - mean) / std;
          col++;
        } else {
          const codes = data.codes[v]!;
          // Indicators of the levels after the first: columns col .. col + levels - 2 (zero-filled already).
          for (let i = 0; i < m; i++) {
            const code = codes[rows[i]!]!;
            if (code >= 1) x[i * k + col + code - 1] = 1;
          }
          col += Math.max(data.levels[v]! - 1, 0);
        }
      }
      const fit = kernels.logisticRegression(x, y, rows.length, k, classes, 1e-4, 50);
      return -fit.logLoss * (given ? rows.length : n);
    },
    parameters: (node, parents) => Math.max(data.levels[node]! - 1, 0) * width(parents),
    complexity(node, parents) {
      return penalty * this.parameters(node, parents);
    },
  };
}


function logBinomial(n: number, k: number): number {
  let out = 0;
  for (let i = 0; i < k; i++) out += Math.log((n - i) / (i + 1));
  return out;
}

/**
 * Several continuous levers changed together (other changes held). Numeric targets: Gauss-Newton steps of least
 * standardised norm on a finite-difference Jacobian, levers that leave their plausible range pinned at its edge
 * (an active set); an affine response is solved in one step, and read off the model's slopes without a propagation
 * when no other change is held and no lever is downstream of another (search.ts). A categorical target has no gradient: a grid over
 * the levers' box finds a met point, then bisection along the segment from the unit's values pulls it closest.
 */
import type { CandidateTracker, Lever, Search, Setting } from './search-candidates.js';
import { type AffineSlopes, leverRange } from './search-lines.js';
import { aimOf, type ResolvedTarget, targetMet } from './target-match.js';

const NEWTON_STEPS = 10;
/** A tolerance target counts as solved within this share of its std. */
const SOLVED = 1e-9;
/** Finite-difference step in std units: exact for affine responses at any size, small for curved ones. */
const AFFINE_STEP = 1;
const CURVED_STEP = 1e-3;
/** Rows of the categorical-target grid (split evenly over the levers' axes). */
const GRID_ROWS = 400;
const SEGMENT_BISECTIONS = 25;

export function* searchJoint(
  targets: readonly ResolvedTarget[], tracker: CandidateTracker, fixed: Setting[], levers: readonly Lever[], affine: boolean, slopes: AffineSlopes,
): Search<void> {
  if (targets.every((t) => t.kind === 'continuous')) {
    // Affine levers with nothing else held: the targets are a plane in them, its slopes the model's (search.ts).
    const plane = affine && fixed.length === 0 && levers.every((l) => slopes.has(l.node)) ? levers.map((l) => slopes.get(l.node)!) : null;
    yield* newtonSearch(targets, tracker, fixed, levers, affine, plane);
  } else yield* gridSearch(tracker, fixed, levers);
}

/** Each row's target values read off the plane of `slopes` (one per lever) through the unit as it is. */
function readOffPlane(tracker: CandidateTracker, levers: readonly Lever[], slopes: ReadonlyArray<readonly number[]>, rows: Setting[][]): number[][] {
  return rows.map((row) => tracker.baseTargets.map((at0, j) => {
    let value = at0;
    levers.forEach((lever, i) => (value += slopes[i]![j]! * (row[i]!.value - tracker.base[lever.node]!)));
    return value;
  }));
}

const settingsAt = (fixed: Setting[], levers: readonly Lever[], x: Float64Array): Setting[] => [...fixed, ...levers.map((l, i) => ({ node: l.node, value: x[i]! }))];

/** `plane`: the levers' slopes when the targets are read off them (no row propagated; the answer is re-simulated by search.ts). */
function* newtonSearch(
  targets: readonly ResolvedTarget[], tracker: CandidateTracker, fixed: Setting[], levers: readonly Lever[], affine: boolean,
  plane: ReadonlyArray<readonly number[]> | null,
): Search<void> {
  const ranges = levers.map((l) => leverRange(l, tracker.base[l.node]!));
  let x: Float64Array = Float64Array.from(levers, (l) => tracker.base[l.node]!);
  const h = affine ? AFFINE_STEP : CURVED_STEP;
  for (let step = 0; step <= NEWTON_STEPS; step++) {
    const rows = [settingsAt(fixed, levers, x), ...levers.map((l, i) => {
      const moved = x.slice();
      moved[i]! += h * l.std;
      return settingsAt(fixed, levers, moved);
    })];
    const values = plane === null ? yield rows : readOffPlane(tracker, levers, plane, rows);
    const at = values[0]!;
    rows.slice(1).forEach((r, i) => tracker.consider(r, values[i + 1]!, false));
    // Met is not enough for a tolerance target: the search solves for its value, as the line search does.
    const solved = targets.every((t, j) => targetMet(t, at[j]!) && (t.kind !== 'continuous' || t.matchMode !== 'tolerance' || Math.abs(at[j]! - t.value) <= SOLVED * t.scale));
    if (solved || step === NEWTON_STEPS) {
      tracker.consider(rows[0]!, at, step > 0);
      return;
    }
    tracker.consider(rows[0]!, at, false);
    // Equations: every tolerance target, and each unmet orMore/orLess target at its bound.
    const equations: { row: Float64Array; rhs: number }[] = [];
    targets.forEach((t, j) => {
      if (t.kind !== 'continuous' || (t.matchMode !== 'tolerance' && targetMet(t, at[j]!))) return;
      const row = Float64Array.from(levers, (_, i) => (values[i + 1]![j]! - at[j]!) / h);
      equations.push({ row, rhs: aimOf(t) - at[j]! });
    });
    const next = boundedLeastNormStep(equations, x, levers, ranges);
    if (!next || next.every((v, i) => v === x[i])) return;
    x = next;
  }
}

/**
 * The step d (in std units) of least norm solving the linearised equations, with levers that would leave their
 * range pinned at the edge and the rest re-solved (at most k rounds). Null when the system has no usable solution.
 */
function boundedLeastNormStep(equations: { row: Float64Array; rhs: number }[], x: Float64Array, levers: readonly Lever[], ranges: [number, number][]): Float64Array | null {
  const k = levers.length;
  const next = x.slice();
  const free = new Set(levers.map((_, i) => i));
  const rhs = equations.map((e) => e.rhs);
  for (let round = 0; round <= k; round++) {
    if (free.size === 0) return next;
    const columns = [...free];
    const d = ridgeLeastSquares(equations.map((e) => Float64Array.from(columns, (i) => e.row[i]!)), rhs);
    if (!d) return null;
    let pinned = false;
    columns.forEach((i, c) => {
      const [low, high] = ranges[i]!;
      const target = x[i]! + d[c]! * levers[i]!.std;
      next[i] = target;
      if (target < low || target > high) {
        next[i] = Math.min(high, Math.max(low, target));
        const moved = (next[i]! - x[i]!) / levers[i]!.std;
        equations.forEach((e, r) => (rhs[r]! -= e.row[i]! * moved));
        free.delete(i);
        pinned = true;
      }
    });
    if (!pinned) return next;
    // Re-solve the free levers from the current point, the pinned ones' movement already credited.
    columns.forEach((i) => {
      if (free.has(i)) next[i] = x[i]!;
    });
  }
  return next;
}

/** argmin ||A d - b||^2 + mu ||d||^2 with a vanishing mu: the least-norm solution when A has full row rank. */
function ridgeLeastSquares(a: Float64Array[], b: number[]): Float64Array | null {
  const k = a[0]?.length ?? 0;
  if (k === 0 || a.length === 0) return null;
  const m = new Float64Array(k * k);
  const v = new Float64Array(k);
  a.forEach((row, r) => {
    for (let i = 0; i < k; i++) {
      v[i]! += row[i]! * b[r]!;
      for (let j = 0; j < k; j++) m[i * k + j]! += row[i]! * row[j]!;
    }
  });
  let trace = 0;
  for (let i = 0; i < k; i++) trace += m[i * k + i]!;
  if (!(trace > 0)) return null;
  for (let i = 0; i < k; i++) m[i * k + i]! += 1e-10 * (trace / k);
  return solveLinear(m, v, k);
}

/** Gaussian elimination with partial pivoting on a small dense k x k system (row-major). */
function solveLinear(m: Float64Array, v: Float64Array, k: number): Float64Array | null {
  const a = m.slice();
  const b = v.slice();
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) if (Math.abs(a[r * k + col]!) > Math.abs(a[pivot * k + col]!)) pivot = r;
    if (Math.abs(a[pivot * k + col]!) < 1e-300) return null;
    if (pivot !== col) {
      for (let c = 0; c < k; c++) [a[col * k + c], a[pivot * k + c]] = [a[pivot * k + c]!, a[col * k + c]!];
      [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    }
    for (let r = col + 1; r < k; r++) {
      const f = a[r * k + col]! / a[col * k + col]!;
      for (let c = col; c < k; c++) a[r * k + c]! -= f * a[col * k + c]!;
      b[r]! -= f * b[col]!;
    }
  }
  const x = new Float64Array(k);
  for (let r = k - 1; r >= 0; r--) {
    let s = b[r]!;
    for (let c = r + 1; c < k; c++) s -= a[r * k + c]! * x[c]!;
    x[r] = s / a[r * k + r]!;
  }
  return x;
}

function* gridSearch(tracker: CandidateTracker, fixed: Setting[], levers: readonly Lever[]): Search<void> {
  const k = levers.length;
  const perAxis = Math.max(3, Math.floor(Math.pow(GRID_ROWS, 1 / k)));
  const axes = levers.map((l) => {
    const [low, high] = leverRange(l, tracker.base[l.node]!);
    return Array.from({ length: perAxis }, (_, i) => low + ((high - low) * i) / (perAxis - 1));
  });
  const rows: Setting[][] = [];
  const walk = (i: number, x: Float64Array) => {
    if (i === k) {
      rows.push(settingsAt(fixed, levers, x));
      return;
    }
    for (const v of axes[i]!) {
      x[i] = v;
      walk(i + 1, x);
    }
  };
  walk(0, new Float64Array(k));
  const values = yield rows;
  let best: { x: Float64Array; values: number[]; cost: number } | null = null;
  rows.forEach((r, i) => {
    const c = tracker.consider(r, values[i]!, false);
    if (c.met && (!best || c.cost < best.cost)) best = { x: Float64Array.from(r.slice(fixed.length), (s) => s.value), values: values[i]!, cost: c.cost };
  });
  if (!best) return;
  const found: { x: Float64Array; values: number[] } = best;
  const base = Float64Array.from(levers, (l) => tracker.base[l.node]!);
  const at = (s: number) => Float64Array.from(base, (b, i) => b + s * (found.x[i]! - b));
  let metS = 1;
  let metValues = found.values;
  let unmetS = 0;
  for (let i = 0; i < SEGMENT_BISECTIONS; i++) {
    const s = (metS + unmetS) / 2;
    const settings = settingsAt(fixed, levers, at(s));
    const v = (yield [settings])[0]!;
    if (tracker.consider(settings, v, false).met) {
      metS = s;
      metValues = v;
    } else unmetS = s;
  }
  tracker.consider(settingsAt(fixed, levers, at(metS)), metValues, true);
}

/**
 * One continuous lever at a time (other changes held): where along its plausible range does the unit meet its
 * targets? Lines are searched in batches, every batch step one propagation. A lever whose effect on every
 * target is affine (search.ts checks the structure) is solved in closed form from two rows; any other by a grid
 * scan, Illinois regula falsi on each target's crossing (exact in one step when the response is linear) and
 * bisection of the met/unmet boundary for categorical targets.
 */
import type { CandidateTracker, Lever, Search, Setting } from './search-candidates.js';
import { aimOf, type ResolvedTarget, targetMet } from './target-match.js';

/** A lever searched along its range with other changes held fixed. */
export interface Line {
  fixed: Setting[];
  lever: Lever;
  /** Every target continuous and affine in this lever: the closed form applies. */
  affine: boolean;
}

/** Plausible range of a continuous lever: mean +- this many std (widened to include the unit's own value). */
const RANGE_STDS = 4;
const GRID_INTERVALS = 24;
const MAX_ROOT_STEPS = 40;
const BOUNDARY_BISECTIONS = 30;
/** Crossings refined per target and line: the ones nearest the unit's value (farther ones cost more anyway). */
const MAX_BRACKETS = 4;
/** A root is accepted within this share of the target's std (far below the orMore/orLess margin of target-match.ts). */
const ROOT_PRECISION = 1e-10;

export function leverRange(lever: Lever, base: number): [number, number] {
  return [Math.min(lever.mean - RANGE_STDS * lever.std, base), Math.max(lever.mean + RANGE_STDS * lever.std, base)];
}

export function* searchLines(targets: readonly ResolvedTarget[], tracker: CandidateTracker, lines: readonly Line[]): Search<void> {
  const affine = lines.filter((l) => l.affine);
  const numeric = lines.filter((l) => !l.affine);
  if (affine.length > 0) yield* solveAffineLines(targets, tracker, affine);
  if (numeric.length > 0) yield* solveNumericLines(targets, tracker, numeric);
}

const withLever = (line: Line, value: number): Setting[] => [...line.fixed, { node: line.lever.node, value }];

/**
 * Closed form: two rows give each target's slope in the lever; each target's aim gives a root. A lever alone at its
 * own value is the unit as it is, so a line without other changes needs only the second row.
 */
function* solveAffineLines(targets: readonly ResolvedTarget[], tracker: CandidateTracker, lines: readonly Line[]): Search<void> {
  const rows = lines.map((line) => {
    const base = tracker.base[line.lever.node]!;
    return { at0: withLever(line, base), at1: withLever(line, base + line.lever.std), known: line.fixed.length === 0 };
  });
  const probeRows = rows.flatMap((row) => (row.known ? [row.at1] : [row.at0, row.at1]));
  const probed = yield probeRows;
  probeRows.forEach((settings, r) => tracker.consider(settings, probed[r]!, false));
  const candidates: { settings: Setting[]; aimed: boolean }[] = [];
  let next = 0;
  lines.forEach((line, l) => {
    const base = tracker.base[line.lever.node]!;
    const [low, high] = leverRange(line.lever, base);
    const { known } = rows[l]!;
    const at0 = known ? [...tracker.baseTargets] : probed[next++]!;
    const at1 = probed[next++]!;
    if (known) tracker.consider(rows[l]!.at0, at0, false);
    const slopes = targets.map((_, j) => (at1[j]! - at0[j]!) / line.lever.std);
    // Each target's own aim, and the nearest point of the interval where all targets are met.
    let lo = low;
    let hi = high;
    targets.forEach((t, j) => {
      if (t.kind !== 'continuous') return;
      const slope = slopes[j]!;
      if (slope === 0) return;
      const root = base + (aimOf(t) - at0[j]!) / slope;
      if (root >= low && root <= high) candidates.push({ settings: withLever(line, root), aimed: true });
      else candidates.push({ settings: withLever(line, Math.min(high, Math.max(low, root))), aimed: false });
      const band = t.matchMode === 'tolerance' ? [t.value - 0.999 * t.tolerance, t.value + 0.999 * t.tolerance] : t.matchMode === 'orMore' ? [aimOf(t), Infinity] : [-Infinity, aimOf(t)];
      const ends = band.map((v) => base + (v - at0[j]!) / slope).sort((a, b) => a - b);
      lo = Math.max(lo, ends[0]!);
      hi = Math.min(hi, ends[1]!);
    });
    if (lo <= hi) candidates.push({ settings: withLever(line, Math.min(hi, Math.max(lo, base))), aimed: false });
  });
  const values = yield candidates.map((c) => c.settings);
  candidates.forEach((c, r) => tracker.consider(c.settings, values[r]!, c.aimed));
}

interface Point {
  x: number;
  values: number[];
  met: boolean;
}

type Bracket =
  | { kind: 'root'; line: Line; target: number; a: number; fa: number; b: number; fb: number; best: Point; done: boolean }
  | { kind: 'boundary'; line: Line; met: Point; unmet: Point; done: boolean };

function* solveNumericLines(targets: readonly ResolvedTarget[], tracker: CandidateTracker, lines: readonly Line[]): Search<void> {
  const grids = lines.map((line) => {
    const base = tracker.base[line.lever.node]!;
    const [low, high] = leverRange(line.lever, base);
    const xs = Array.from({ length: GRID_INTERVALS + 1 }, (_, i) => low + ((high - low) * i) / GRID_INTERVALS);
    return [...new Set([...xs, base])].sort((a, b) => a - b);
  });
  const gridRows = lines.flatMap((line, l) => grids[l]!.map((x) => withLever(line, x)));
  const gridValues = yield gridRows;
  const allMet = (values: number[]) => targets.every((t, j) => targetMet(t, values[j]!));
  const brackets: Bracket[] = [];
  let offset = 0;
  lines.forEach((line, l) => {
    const base = tracker.base[line.lever.node]!;
    const points: Point[] = grids[l]!.map((x, i) => {
      const values = gridValues[offset + i]!;
      tracker.consider(withLever(line, x), values, false);
      return { x, values, met: allMet(values) };
    });
    offset += points.length;
    const nearest = (list: Bracket[]) => list
      .sort((p, q) => distance(p, base) - distance(q, base))
      .slice(0, MAX_BRACKETS);
    targets.forEach((t, j) => {
      if (t.kind !== 'continuous') return;
      const aim = aimOf(t);
      const found: Bracket[] = [];
      for (let i = 0; i + 1 < points.length; i++) {
        const p = points[i]!;
        const q = points[i + 1]!;
        const fa = p.values[j]! - aim;
        const fb = q.values[j]! - aim;
        if (Number.isNaN(fa) || Number.isNaN(fb)) continue;
        if (fa === 0) tracker.consider(withLever(line, p.x), p.values, true);
        else if (fa * fb < 0) found.push({ kind: 'root', line, target: j, a: p.x, fa, b: q.x, fb, best: Math.abs(fa) < Math.abs(fb) ? p : q, done: false });
      }
      brackets.push(...nearest(found));
    });
    const boundaries: Bracket[] = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const p = points[i]!;
      const q = points[i + 1]!;
      if (p.met !== q.met) boundaries.push({ kind: 'boundary', line, met: p.met ? p : q, unmet: p.met ? q : p, done: false });
    }
    brackets.push(...nearest(boundaries));
  });
  yield* refineBrackets(targets, tracker, brackets, allMet);
}

const distance = (b: Bracket, base: number) => (b.kind === 'root' ? Math.abs((b.a + b.b) / 2 - base) : Math.abs(b.met.x - base));

/** Illinois steps on the roots and bisection of the boundaries, all open brackets in one propagation per step. */
function* refineBrackets(targets: readonly ResolvedTarget[], tracker: CandidateTracker, brackets: Bracket[], allMet: (values: number[]) => boolean): Search<void> {
  for (let step = 0; step < Math.max(MAX_ROOT_STEPS, BOUNDARY_BISECTIONS); step++) {
    const open = brackets.filter((b) => !b.done && (b.kind === 'root' ? step < MAX_ROOT_STEPS : step < BOUNDARY_BISECTIONS));
    if (open.length === 0) break;
    const xs = open.map((b) => (b.kind === 'root' ? b.b - (b.fb * (b.b - b.a)) / (b.fb - b.fa) : (b.met.x + b.unmet.x) / 2));
    const values = yield open.map((b, i) => withLever(b.line, xs[i]!));
    open.forEach((b, i) => {
      const point: Point = { x: xs[i]!, values: values[i]!, met: allMet(values[i]!) };
      tracker.consider(withLever(b.line, point.x), point.values, false);
      if (b.kind === 'boundary') {
        if (point.met) b.met = point;
        else b.unmet = point;
        return;
      }
      const t = targets[b.target]!;
      if (t.kind !== 'continuous') return;
      const f = point.values[b.target]! - aimOf(t);
      if (Math.abs(f) < Math.abs(b.best.values[b.target]! - aimOf(t))) b.best = point;
      if (Number.isNaN(f) || Math.abs(f) <= ROOT_PRECISION * t.scale || b.a === b.b) {
        b.done = true;
        return;
      }
      if (f * b.fb < 0) {
        b.a = b.b;
        b.fa = b.fb;
      } else b.fa /= 2;
      b.b = point.x;
      b.fb = f;
    });
  }
  for (const b of brackets) {
    const point = b.kind === 'root' ? b.best : b.met;
    tracker.consider(withLever(b.line, point.x), point.values, true);
  }
}

/**
 * One continuous lever at a time (other changes held): where along its plausible range does the unit meet its
 * targets? Lines are searched in batches, every batch step one propagation. A lever whose effect on every
 * target is affine (search.ts checks the structure) is solved in closed form: two points give the line, and every
 * candidate's values are read off it. With no other change held, the line's slopes are the model's own (the same
 * in every unit: search.ts affineSlopes), so such a line costs no propagation at all. Any other lever is searched by
 * a grid scan, Illinois regula falsi on each target's crossing (exact in one step when the response is linear) and
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

/** Per affine lever, each target's change per unit of the lever when no other change is held (search.ts affineSlopes). */
export type AffineSlopes = ReadonlyMap<number, readonly number[]>;

export function* searchLines(targets: readonly ResolvedTarget[], tracker: CandidateTracker, lines: readonly Line[], slopes: AffineSlopes): Search<void> {
  const affine = lines.filter((l) => l.affine);
  const numeric = lines.filter((l) => !l.affine);
  if (affine.length > 0) yield* solveAffineLines(targets, tracker, affine, slopes);
  if (numeric.length > 0) yield* solveNumericLines(targets, tracker, numeric);
}

const withLever = (line: Line, value: number): Setting[] => [...line.fixed, { node: line.lever.node, value }];

/**
 * Closed form: each line's values at the unit's own lever value (at0) and its slopes give every target's root.
 * A lever alone at its own value is the unit as it is, and its slopes are the model's, so a line without other
 * changes is known without a row; a line with other changes held is probed at two points (the lever at its own
 * value and one std above). The candidates' values are read off the lines: the chosen answer is re-simulated
 * (search.ts), so what is reported is what the model does.
 */
function* solveAffineLines(targets: readonly ResolvedTarget[], tracker: CandidateTracker, lines: readonly Line[], slopes: AffineSlopes): Search<void> {
  const known = (line: Line) => line.fixed.length === 0 && slopes.has(line.lever.node);
  const probeRows = lines.filter((line) => !known(line)).flatMap((line) => {
    const base = tracker.base[line.lever.node]!;
    return [withLever(line, base), withLever(line, base + line.lever.std)];
  });
  const probed = probeRows.length === 0 ? [] : yield probeRows;
  let next = 0;
  // One point reused line after line: a unit reads a handful of candidates off each of its levers' lines.
  const point: LinePoint = { tracker, line: lines[0]!, base: 0, at0: [], slope: [], values: new Array<number>(targets.length) };
  const slopeScratch = new Array<number>(targets.length);
  for (const line of lines) {
    const base = tracker.base[line.lever.node]!;
    const { std } = line.lever;
    if (known(line)) {
      point.at0 = tracker.baseTargets;
      point.slope = slopes.get(line.lever.node)!;
    } else {
      const at0 = probed[next++]!;
      const at1 = probed[next++]!;
      for (let j = 0; j < targets.length; j++) slopeScratch[j] = (at1[j]! - at0[j]!) / std;
      point.at0 = at0;
      point.slope = slopeScratch;
    }
    point.line = line;
    point.base = base;
    const { at0, slope } = point;
    readOff(point, base, false);
    readOff(point, base + std, false);
    const [low, high] = leverRange(line.lever, base);
    // Each target's own aim, and the nearest point of the interval where all targets are met; the lever value at
    // which target j reaches v is base + (v - at0[j]) / slope[j].
    let lo = low;
    let hi = high;
    for (let j = 0; j < targets.length; j++) {
      const t = targets[j]!;
      if (t.kind !== 'continuous' || slope[j] === 0) continue;
      const root = base + (aimOf(t) - at0[j]!) / slope[j]!;
      if (root >= low && root <= high) readOff(point, root, true);
      else readOff(point, Math.min(high, Math.max(low, root)), false);
      const from = t.matchMode === 'tolerance' ? base + (t.value - 0.999 * t.tolerance - at0[j]!) / slope[j]! : t.matchMode === 'orMore' ? root : base + (-Infinity - at0[j]!) / slope[j]!;
      const to = t.matchMode === 'tolerance' ? base + (t.value + 0.999 * t.tolerance - at0[j]!) / slope[j]! : t.matchMode === 'orMore' ? base + (Infinity - at0[j]!) / slope[j]! : root;
      lo = Math.max(lo, Math.min(from, to));
      hi = Math.min(hi, Math.max(from, to));
    }
    if (lo <= hi) readOff(point, Math.min(hi, Math.max(lo, base)), false);
  }
}

/** An affine line: its targets' values at the unit's own lever value (at0) and their slopes. */
interface LinePoint {
  tracker: CandidateTracker;
  line: Line;
  base: number;
  at0: readonly number[];
  slope: readonly number[];
  /** Scratch for the values read off the line. */
  values: number[];
}

/** The line's candidate at lever value x, its values read off the line. */
function readOff(p: LinePoint, x: number, aimed: boolean): void {
  for (let j = 0; j < p.values.length; j++) p.values[j] = p.at0[j]! + p.slope[j]! * (x - p.base);
  p.tracker.considerSetting(p.line.fixed, p.line.lever.node, x, p.values, aimed);
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

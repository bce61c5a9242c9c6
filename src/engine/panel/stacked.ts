/**
 * The lagged designs of several environments' series stacked into one frame (a temporal panel is learned as one
 * design whose rows each know their environment): no row reaches across two series, because each series' design
 * is built on its own (lagged.ts) before they are joined.
 */
import { laggedDesign } from '../temporal/lagged.js';
import type { Frame, FrameColumn } from '../types.js';

export interface StackedDesign {
  frame: Frame;
  /** Each row's environment (index into the series list). */
  environment: Int32Array;
  /** Each row's step in its environment's series. */
  steps: Int32Array;
}

/** `phases[e]`: where series e's step 0 falls in the seasonal cycle (seasonalPhases; default 0). */
export function stackedDesign(series: readonly Frame[], maxLag: number, periods: readonly number[], options: { complete?: boolean; only?: ReadonlySet<string>; phases?: readonly number[] } = {}): StackedDesign {
  const { phases, ...design } = options;
  const designs = series.map((s, e) => laggedDesign(s, maxLag, periods, { ...design, stepOffset: phases?.[e] ?? 0 }));
  const nRows = designs.reduce((s, d) => s + d.frame.nRows, 0);
  const environment = new Int32Array(nRows);
  const steps = new Int32Array(nRows);
  let at = 0;
  designs.forEach((d, e) => {
    environment.fill(e, at, at + d.frame.nRows);
    steps.set(d.steps, at);
    at += d.frame.nRows;
  });
  /** Column k of every design, one after another. */
  const joined = <A extends Float64Array | Int32Array>(k: number, make: (n: number) => A, part: (c: FrameColumn) => A): A => {
    const out = make(nRows);
    let offset = 0;
    for (const d of designs) {
      out.set(part(d.frame.columns[k]!), offset);
      offset += d.frame.nRows;
    }
    return out;
  };
  const columns = (designs[0]?.frame.columns ?? []).map((column, k): FrameColumn => column.kind === 'continuous'
    ? { ...column, values: joined(k, (n) => new Float64Array(n), (c) => (c as typeof column).values) }
    : { ...column, codes: joined(k, (n) => new Int32Array(n), (c) => (c as typeof column).codes) });
  return { frame: { nRows, columns }, environment, steps };
}

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

export function stackedDesign(
  series: readonly Frame[],
  maxLag: number,
  periods: readonly number[],
  options: { complete?: boolean; only?: ReadonlySet<string>; to?: ReadonlyArray<number | undefined>; from?: ReadonlyArray<number | undefined> } = {},
): StackedDesign {
  const designs = series.map((s, e) =>
    laggedDesign(s, maxLag, periods, {
      ...(options.complete === undefined ? {} : { complete: options.complete }),
      ...(options.only === undefined ? {} : { only: options.only }),
      ...(options.to?.[e] === undefined ? {} : { to: options.to[e]! }),
      ...(options.from?.[e] === undefined ? {} : { from: options.from[e]! }),
    }));
  const nRows = designs.reduce((s, d) => s + d.frame.nRows, 0);
  const environment = new Int32Array(nRows);
  const steps = new Int32Array(nRows);
  let at = 0;
  designs.forEach((d, e) => {
    environment.fill(e, at, at + d.frame.nRows);
    steps.set(d.steps, at);
    at += d.frame.nRows;
  });
  const first = designs[0]?.frame.columns ?? [];
  const columns = first.map((column, k): FrameColumn => {
    if (column.kind === 'continuous') {
      const values = new Float64Array(nRows);
      let offset = 0;
      for (const d of designs) {
        const c = d.frame.columns[k]!;
        if (c.kind === 'continuous') values.set(c.values, offset);
        offset += d.frame.nRows;
      }
      return { ...column, values };
    }
    const codes = new Int32Array(nRows);
    let offset = 0;
    for (const d of designs) {
      const c = d.frame.columns[k]!;
      if (c.kind === 'categorical') codes.set(c.codes, offset);
      offset += d.frame.nRows;
    }
    return { ...column, codes };
  });
  return { frame: { nRows, columns }, environment, steps };
}

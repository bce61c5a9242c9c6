/**
 * Confidence of temporal links: rows of a series are not exchangeable, so instead of resampling rows (as static
 * discovery's bootstrap does) discovery is rerun on contiguous windows, each half the series long, at evenly spaced
 * offsets (a subsampling scheme for dependent data; Politis, Romano & Wolf 1999). A causalGraph edge's confidence
 * is the share of windows that found a link from its source to its target at any lag (a same-step link without an
 * orientation the window could decide counts half).
 */
import type { Frame } from '../types.js';
import type { TemporalDiscoveryResult } from './discover.js';

/** The first step of window `index` of `count` over a series of `nRows` steps (subsampleWindow). */
export function windowStart(nRows: number, index: number, count: number): number {
  return count <= 1 ? 0 : Math.round(((nRows - Math.floor(nRows / 2)) * index) / (count - 1));
}

/** The windows' frames: `count` contiguous halves of the series, from the start to the end. */
export function subsampleWindow(series: Frame, index: number, count: number): Frame {
  const length = Math.floor(series.nRows / 2);
  const offset = windowStart(series.nRows, index, count);
  return {
    nRows: length,
    columns: series.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: c.values.slice(offset, offset + length) } : { ...c, codes: c.codes.slice(offset, offset + length) })),
  };
}

export function linkConfidence(windows: readonly TemporalDiscoveryResult[], pairs: ReadonlyArray<{ source: string; target: string }>): number[] {
  if (windows.length === 0) return pairs.map(() => 0);
  return pairs.map(({ source, target }) => {
    let total = 0;
    for (const window of windows) {
      const links = window.links.filter((l) => l.source === source && l.target === target);
      const reversed = window.links.some((l) => l.lag === 0 && l.source === target && l.target === source && l.orientation === 'reversible');
      total += links.some((l) => l.lag > 0 || l.orientation !== 'reversible') ? 1 : links.length > 0 || reversed ? 0.5 : 0;
    }
    return total / windows.length;
  });
}

/**
 * The lagged design of a series: one column per variable and lag 0..maxLag (row t holds the variable at step
 * t - lag), and the seasonal terms (sin and cos of each period, exogenous: functions of the step alone). A temporal
 * model is a CBN over these columns in which only lag-0 columns have parents (Runge 2020's time-series graph
 * restricted to a window).
 */
import { continuousColumn, categoricalColumn, frameOf } from '../frame.js';
import type { Frame, FrameColumn } from '../types.js';

/** The model's name of a variable at a lag: the variable itself at lag 0. */
export const lagName = (variable: string, lag: number) => (lag === 0 ? variable : `${variable}\u27e8t-${lag}\u27e9`);

/** The seasonal terms of a period (in steps). */
export const seasonNames = (period: number): [string, string] => [`\u27e8season ${period} sin\u27e9`, `\u27e8season ${period} cos\u27e9`];

export const seasonValue = (period: number, step: number): [number, number] => [Math.sin((2 * Math.PI * step) / period), Math.cos((2 * Math.PI * step) / period)];

/** What a node of a temporal model's CBN stands for: a variable at a lag (0: the same step), or a seasonal term. */
export type NodeSource = { kind: 'lag'; variable: string; lag: number } | { kind: 'season'; period: number; sin: boolean };

/** The variable and lag, or the season, behind a node name of a model with these variables, lags and seasons. */
export function sourceOf(model: { variables: ReadonlyArray<{ name: string }>; maxLag: number; seasonal: ReadonlyArray<{ period: number }> }, name: string): NodeSource {
  for (const variable of model.variables) for (let lag = 0; lag <= model.maxLag; lag++) if (lagName(variable.name, lag) === name) return { kind: 'lag', variable: variable.name, lag };
  for (const { period } of model.seasonal) {
    const [sin, cos] = seasonNames(period);
    if (name === sin || name === cos) return { kind: 'season', period, sin: name === sin };
  }
  throw new Error(`${name} is not an input of the temporal model`);
}

export interface LaggedDesign {
  frame: Frame;
  /** The series step of each design row. */
  steps: Int32Array;
}

/**
 * Design rows for steps `from`..`to - 1` (each needs maxLag earlier steps; with `partial` rows start at `from`,
 * default 0, and a lag reaching before the series is missing), keeping only rows where every listed column is
 * observed when `complete` is set. `only` names which columns to build (default all); `stepOffset` is the series
 * step of row 0 when the frame is a window of a longer series.
 */
export function laggedDesign(
  series: Frame,
  maxLag: number,
  periods: readonly number[],
  options: { from?: number; to?: number; complete?: boolean; partial?: boolean; only?: ReadonlySet<string>; stepOffset?: number } = {},
): LaggedDesign {
  const from = options.partial === true ? Math.max(0, options.from ?? 0) : Math.max(maxLag, options.from ?? maxLag);
  const to = Math.min(series.nRows, options.to ?? series.nRows);
  const wanted = (name: string) => options.only === undefined || options.only.has(name);
  const stepList: number[] = [];
  for (let t = from; t < to; t++) stepList.push(t);
  const columns: FrameColumn[] = [];
  for (const column of series.columns) {
    for (let lag = 0; lag <= maxLag; lag++) {
      const name = lagName(column.name, lag);
      if (!wanted(name)) continue;
      if (column.kind === 'continuous') columns.push(continuousColumn(name, stepList.map((t) => (t < lag ? null : column.values[t - lag]!))));
      else columns.push(categoricalColumn(name, stepList.map((t) => (t < lag || column.codes[t - lag]! < 0 ? null : column.categories[column.codes[t - lag]!]!)), column.categories));
    }
  }
  for (const period of periods) {
    const [sin, cos] = seasonNames(period);
    // The season's phase follows the series' own step numbers (a window of it starts at stepOffset).
    const offset = options.stepOffset ?? 0;
    if (wanted(sin)) columns.push(continuousColumn(sin, stepList.map((t) => seasonValue(period, t + offset)[0])));
    if (wanted(cos)) columns.push(continuousColumn(cos, stepList.map((t) => seasonValue(period, t + offset)[1])));
  }
  let frame = frameOf(columns);
  let steps = Int32Array.from(stepList);
  if (options.complete === true) {
    const keep: number[] = [];
    for (let r = 0; r < frame.nRows; r++) if (frame.columns.every((c) => (c.kind === 'continuous' ? !Number.isNaN(c.values[r]!) : c.codes[r]! >= 0))) keep.push(r);
    if (keep.length < frame.nRows) {
      frame = frameOf(frame.columns.map((c) => (c.kind === 'continuous' ? { ...c, values: Float64Array.from(keep, (r) => c.values[r]!) } : { ...c, codes: Int32Array.from(keep, (r) => c.codes[r]!) })));
      steps = Int32Array.from(keep, (r) => steps[r]!);
    }
  }
  return { frame, steps };
}

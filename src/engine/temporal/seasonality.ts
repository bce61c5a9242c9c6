/**
 * Seasonal periods of a series: candidates are the calendar's periods at the twin's granularity (7 and 365.25
 * days, 24 hours, 12 months...) and each variable's strongest periodogram peak (Schuster's periodogram over the
 * most recent window); a candidate is kept for a variable when a sine-cosine pair at that period explains a
 * significant share of its (linearly detrended) variance: an F-test at p < 0.001 with at least 2% of the variance.
 */
import type { Frame } from '../types.js';

export interface SeasonalFinding {
  variable: string;
  period: number;
  /** Amplitude of the wave over the variable's standard deviation. */
  strength: number;
}

const WINDOW = 2048;
const MIN_SHARE = 0.02;
const P_VALUE = 0.001;

export function findSeasonality(series: Frame, calendar: readonly number[]): SeasonalFinding[] {
  const findings: SeasonalFinding[] = [];
  for (const column of series.columns) {
    if (column.kind !== 'continuous') continue;
    const from = Math.max(0, column.values.length - WINDOW);
    const steps: number[] = [];
    const values: number[] = [];
    for (let t = from; t < column.values.length; t++) {
      if (Number.isNaN(column.values[t]!)) continue;
      steps.push(t);
      values.push(column.values[t]!);
    }
    const n = values.length;
    if (n < 24) continue;
    const residual = detrend(steps, values);
    const candidates = [...calendar.filter((p) => p * 2 <= n), ...periodogramPeak(steps, residual)];
    let best: SeasonalFinding | null = null;
    for (const period of candidates) {
      const fit = waveFit(steps, residual, period);
      if (fit.share >= MIN_SHARE && fit.pValue < P_VALUE && (best === null || fit.strength > best.strength)) best = { variable: column.name, period: round(period), strength: round(fit.strength) };
    }
    if (best !== null) findings.push(best);
  }
  return findings;
}

const round = (x: number) => Number(x.toFixed(4));

function detrend(steps: number[], values: number[]): number[] {
  const n = values.length;
  const mt = steps.reduce((a, b) => a + b, 0) / n;
  const mv = values.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let k = 0; k < n; k++) {
    sxy += (steps[k]! - mt) * (values[k]! - mv);
    sxx += (steps[k]! - mt) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return values.map((v, k) => v - mv - slope * (steps[k]! - mt));
}

/** The period of the periodogram's highest ordinate among periods 2 .. n/3 (at most one candidate). */
function periodogramPeak(steps: number[], values: number[]): number[] {
  const n = values.length;
  let bestPower = 0;
  let bestPeriod = 0;
  let total = 0;
  for (let k = 3; k <= n / 2; k++) {
    const w = (2 * Math.PI * k) / n;
    let c = 0;
    let s = 0;
    for (let i = 0; i < n; i++) {
      c += values[i]! * Math.cos(w * steps[i]!);
      s += values[i]! * Math.sin(w * steps[i]!);
    }
    const power = c * c + s * s;
    total += power;
    if (power > bestPower) {
      bestPower = power;
      bestPeriod = n / k;
    }
  }
  // A peak worth testing stands well above the average ordinate.
  const ordinates = Math.max(1, Math.floor(n / 2) - 2);
  return bestPeriod >= 2 && bestPower > 10 * (total / ordinates) ? [bestPeriod] : [];
}

/** Least squares on sin and cos of the period: explained share, F-test p-value, amplitude over std. */
function waveFit(steps: number[], values: number[], period: number): { share: number; pValue: number; strength: number } {
  const n = values.length;
  let ss = 0;
  let scc = 0;
  let sss = 0;
  let ssc = 0;
  let syc = 0;
  let sys = 0;
  for (let k = 0; k < n; k++) {
    const a = (2 * Math.PI * steps[k]!) / period;
    const c = Math.cos(a);
    const s = Math.sin(a);
    scc += c * c;
    sss += s * s;
    ssc += s * c;
    syc += values[k]! * c;
    sys += values[k]! * s;
    ss += values[k]! ** 2;
  }
  const det = scc * sss - ssc * ssc;
  if (det <= 1e-9 || ss === 0) return { share: 0, pValue: 1, strength: 0 };
  const bc = (syc * sss - sys * ssc) / det;
  const bs = (sys * scc - syc * ssc) / det;
  const explained = bc * syc + bs * sys;
  const share = explained / ss;
  const df2 = n - 3;
  const f = (explained / 2) / Math.max(1e-12, (ss - explained) / df2);
  // F(2, df2) survival: for 2 numerator degrees of freedom it is (1 + 2F/df2)^(-df2/2).
  const pValue = Math.pow(1 + (2 * f) / df2, -df2 / 2);
  const std = Math.sqrt(ss / n);
  return { share, pValue, strength: Math.hypot(bc, bs) / Math.max(1e-12, std) };
}

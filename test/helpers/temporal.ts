/** A daily series from a known lagged model, for tests of temporal twins (with faults injected on request). */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { buildTestApp } from './app.js';
import { waitForJob } from './jobs.js';
import { seededRandom } from './simulated.js';
import type { TrainedTwin } from './simulations.js';

export const DAY = 86_400_000;
export const START = Date.UTC(2023, 0, 1);

/**
 * ads(t) = 20 + 0.6 ads(t-1) + e; visits(t) = 10 + 0.5 visits(t-1) + 0.8 ads(t-1) + 6 sin(2 pi t / 7) + e;
 * sales(t) = 5 + 0.3 sales(t-1) + 0.4 visits(t) + e (unit noise).
 */
export const COEFFICIENTS = { ads: { c: 20, ar: 0.6 }, visits: { c: 10, ar: 0.5, ads: 0.8, wave: 6 }, sales: { c: 5, ar: 0.3, visits: 0.4 } };

export interface Faults {
  /** Adds `size` to ads' noise on day `day`. */
  adsShock?: { day: number; size: number };
  /** From day `from` on, visits depend on yesterday's ads with this coefficient instead. */
  adsToVisits?: { from: number; coefficient: number };
}

export interface Day {
  ads: number;
  visits: number;
  sales: number;
}

/** The true daily values (after a burn-in), with the same noise whatever the faults. */
export function dailyTruth(days: number, faults: Faults = {}, random = seededRandom(41)): Day[] {
  const truth: Day[] = [];
  let prev = { ads: 50, visits: 120, sales: 75 };
  for (let t = 0; t < days + 100; t++) {
    const day = t - 100;
    const shock = faults.adsShock?.day === day ? faults.adsShock.size : 0;
    const adsToVisits = faults.adsToVisits !== undefined && day >= faults.adsToVisits.from ? faults.adsToVisits.coefficient : COEFFICIENTS.visits.ads;
    const ads = COEFFICIENTS.ads.c + COEFFICIENTS.ads.ar * prev.ads + random.normal() + shock;
    const visits = COEFFICIENTS.visits.c + COEFFICIENTS.visits.ar * prev.visits + adsToVisits * prev.ads + COEFFICIENTS.visits.wave * Math.sin((2 * Math.PI * day) / 7) + random.normal();
    const sales = COEFFICIENTS.sales.c + COEFFICIENTS.sales.ar * prev.sales + COEFFICIENTS.sales.visits * visits + random.normal();
    prev = { ads, visits, sales };
    if (t >= 100) truth.push(prev);
  }
  return truth;
}

const round = (x: number) => Math.round(x * 1e4) / 1e4;
export const dayText = (t: number) => new Date(START + t * DAY).toISOString().slice(0, 10);

/** Records of days [from, to) of a truth, keyed as the source holds them (`day` the time column). */
export const dailyRecords = (truth: Day[], from: number, to: number) =>
  truth.slice(from, to).map((v, k) => ({ day: dayText(from + k), ads: round(v.ads), visits: round(v.visits), sales: round(v.sales) }));

/**
 * The source rows of `days` days: shuffled, with some days missing, some days twice (the duplicate averages to the
 * day's value) and a few missing cells.
 */
export function dailySeries(days: number) {
  const random = seededRandom(41);
  const truth = dailyTruth(days, {}, random);
  const rows: Array<Record<string, string | number | null>> = [];
  truth.forEach((v, t) => {
    if (t % 97 === 50) return; // a gap
    const day = dayText(t);
    rows.push({ day, ads: round(v.ads), visits: t % 131 === 7 ? null : round(v.visits), sales: round(v.sales) });
    if (t % 113 === 3) rows.push({ day, ads: round(v.ads), visits: round(v.visits), sales: round(v.sales) }); // the same day twice
  });
  for (let k = rows.length - 1; k > 0; k--) {
    const j = Math.floor(random.uniform() * (k + 1));
    [rows[k], rows[j]] = [rows[j]!, rows[k]!];
  }
  return { rows, truth };
}

/** A temporal twin of the daily ads -> visits -> sales series (dailySeries), learned through the API on `days` days. */
export async function dailyTwin(t: TestContext, days: number): Promise<TrainedTwin> {
  const api = '/api/v1';
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const source = await app.call({ method: 'POST', url: `${api}/workspaces/${ws}/sources/from-data`, body: { name: 'daily', rows: dailySeries(days).rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${api}/workspaces/${ws}/digital-twins`, body: { name: 'daily', type: 'temporal', selectedTimeColumnName: 'day', sourceId: source.body.data.id } });
  const twinId = created.body.data.id;
  const versionId = created.body.data.versionId;
  const job = await app.call({ method: 'POST', url: `${api}/workspaces/${ws}/digital-twins/${twinId}/run-pipeline`, body: { bootstrapSamples: 0 } });
  assert.equal((await waitForJob(app, ws, job.body.data.jobId)).status, 'completed');
  return { app, ws, twinId, versionId, simulations: `${api}/workspaces/${ws}/simulations`, version: `${api}/workspaces/${ws}/digital-twins/${twinId}/versions/${versionId}` };
}

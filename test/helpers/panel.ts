/**
 * Generated panels with known truth: one linear-Gaussian process observed in many environments of different sizes,
 * with environment-specific coefficients and intercepts, and some edges gated to a subset of environments.
 *
 *   a -> b, a -> c, b -> c, d -> c (gated: present in a share of environments), b -> e (gated)
 *
 * Coefficients vary around a shared mean per environment; intercepts shift per environment (the environment changes
 * the mechanisms of b and c).
 */
import assert from 'node:assert/strict';
import { Rng } from '../../src/engine/random.js';
import type { TestApp } from './app.js';
import { waitForJob } from './jobs.js';
import type { TrainedTwin } from './simulations.js';

export interface PanelTruth {
  keys: string[];
  sizes: number[];
  /** Per environment: coefficient of each edge (0 where a gated edge is absent). */
  coefficients: Array<Record<string, number>>;
  intercepts: Array<Record<string, number>>;
  gated: string[];
  /** Per gated edge: the share of environments where it is present. */
  presence: Record<string, number>;
  edges: string[];
}

const EDGES = ['a->b', 'a->c', 'b->c', 'd->c', 'b->e'];
const MEANS: Record<string, number> = { 'a->b': 1.2, 'a->c': 0.8, 'b->c': -1, 'd->c': 1.5, 'b->e': 0.9 };
const GATED: Record<string, number> = { 'd->c': 0.4, 'b->e': 0.6 };

export function panelTruth(environments: number, seed: number, options: { minRows?: number; maxRows?: number } = {}): PanelTruth {
  const rng = new Rng(seed);
  const minRows = options.minRows ?? 30;
  const maxRows = options.maxRows ?? 400;
  const keys = Array.from({ length: environments }, (_, e) => `site=s${String(e).padStart(3, '0')}`);
  const sizes = keys.map(() => Math.round(minRows * (maxRows / minRows) ** rng.uniform()));
  const presentIn = Object.fromEntries(Object.entries(GATED).map(([edge, share]) => {
    const count = Math.round(share * environments);
    const order = rng.shuffle(Array.from({ length: environments }, (_, e) => e));
    return [edge, new Set(order.slice(0, count))];
  }));
  const coefficients = keys.map((_, e) => Object.fromEntries(EDGES.map((edge) => {
    const present = presentIn[edge] === undefined || presentIn[edge]!.has(e);
    return [edge, present ? MEANS[edge]! * (1 + 0.25 * rng.normal()) : 0];
  })));
  const intercepts = keys.map(() => ({ a: 0, b: 0.5 * rng.normal(), c: 1 + rng.normal(), d: 0, e: 0 }));
  const presence = Object.fromEntries(Object.keys(GATED).map((edge) => [edge, presentIn[edge]!.size / environments]));
  return { keys, sizes, coefficients, intercepts, gated: Object.keys(GATED), presence, edges: EDGES };
}

/** Rows of every environment, with the environment column `site`. */
export function panelRows(truth: PanelTruth, seed: number): Array<Record<string, number | string>> {
  const rng = new Rng(seed);
  return truth.keys.flatMap((key, e) => {
    const b = truth.coefficients[e]!;
    const c = truth.intercepts[e]!;
    return Array.from({ length: truth.sizes[e]! }, () => {
      const a = rng.normal();
      const d = rng.normal();
      const bv = c.b! + b['a->b']! * a + rng.normal();
      const cv = c.c! + b['a->c']! * a + b['b->c']! * bv + b['d->c']! * d + rng.normal();
      const ev = b['b->e']! * bv + rng.normal();
      return { site: key.slice('site='.length), a, b: bv, c: cv, d, e: ev };
    });
  });
}

/**
 * A static panel twin over `rows` by site, learned (alpha 0.01, no bootstrap): its version, the edge between two
 * variables, and the twin as the simulation helpers take it.
 */
export async function sitePanel(app: TestApp, ws: string, name: string, rows: Array<Record<string, unknown>>) {
  const api = '/api/v1';
  const source = await app.call({ method: 'POST', url: `${api}/workspaces/${ws}/sources/from-data`, body: { name, rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const created = await app.call({ method: 'POST', url: `${api}/workspaces/${ws}/digital-twins`, body: { name, type: 'multi-environment-static', sourceId: source.body.data.id, environmentColumns: ['site'] } });
  const base = `${api}/workspaces/${ws}/digital-twins/${created.body.data.id}`;
  const accepted = await app.call({ method: 'POST', url: `${base}/run-pipeline`, body: { bootstrapSamples: 0, alpha: 0.01 } });
  const job = await waitForJob(app, ws, accepted.body.data.jobId, 120_000);
  assert.equal(job.status, 'completed', JSON.stringify(job));
  const versionId = created.body.data.versionId as string;
  const version = (await app.call({ method: 'GET', url: `${base}/versions/${versionId}` })).body.data;
  const between = (a: string, b: string) => version.causalGraph.find((e: Record<string, any>) => (e.source === a && e.target === b) || (e.source === b && e.target === a));
  const twin: TrainedTwin = { app, ws, twinId: created.body.data.id, versionId, simulations: `${api}/workspaces/${ws}/simulations`, version: `${base}/versions/${versionId}` };
  return { version, between, twin };
}

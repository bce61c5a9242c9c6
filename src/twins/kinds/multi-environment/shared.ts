/**
 * What the multi-environment learners (static and temporal panels) share: rows labelled with their environment
 * key, each environment's profile entry, shards of environments for the pool, and an edge's judgement as the
 * version records it.
 */
import type { Node, Relationship } from '../../../../schemas/twins.js';
import { termsFor } from '../../../engine/cbn/design.js';
import type { EdgeJudgement, FamilyCounts } from '../../../engine/panel/evidence.js';
import type { CountNode, ShardStatistics } from '../../../engine/panel/fit.js';
import { type Family, type FamilyMoments, quantileCuts } from '../../../engine/panel/moments.js';
import type { EdgeRef, Frame } from '../../../engine/types.js';
import { JobError } from '../../../jobs/runner.js';
import { environmentKey } from '../../../engine/panel/keys.js';
import type { EnvironmentEntry, EnvironmentProfile } from '../../environments/profile.js';

/** An environment judges edges (and counts in graph slices) from this many rows. */
export const EVIDENCE_ROWS = 10;

/**
 * Rows with a value in every environment column, each with its environment (index into `keys`, sorted naturally;
 * on shared memory for the pool); at least two environments.
 */
export function labelRows(all: ReadonlyArray<Record<string, unknown>>, environmentColumns: readonly string[]) {
  const labelled: Array<Record<string, unknown>> = [];
  const keyOf: string[] = [];
  const valuesOf = new Map<string, Record<string, string>>();
  for (const row of all) {
    const values: Record<string, string> = {};
    let complete = true;
    for (const column of environmentColumns) {
      const value = row[column];
      if (value === null || value === undefined || value === '') {
        complete = false;
        break;
      }
      values[column] = String(value);
    }
    if (!complete) continue;
    const key = environmentKey(environmentColumns, values);
    labelled.push(row);
    keyOf.push(key);
    if (!valuesOf.has(key)) valuesOf.set(key, values);
  }
  const keys = [...valuesOf.keys()].sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (keys.length < 2) throw new JobError(`A multi-environment twin needs at least two environments; the data has ${keys.length} (environment columns ${environmentColumns.join(', ')})`);
  const index = new Map(keys.map((k, i) => [k, i]));
  const environment = new Int32Array(new SharedArrayBuffer(labelled.length * 4));
  keyOf.forEach((key, r) => (environment[r] = index.get(key)!));
  return { labelled, keys, valuesOf, environment };
}

/** Environment indices split into `shardCount` groups of about equal rows (largest first onto the lightest group). */
export function shardGroups(nRows: readonly number[], shardCount: number): number[][] {
  const count = Math.max(1, Math.min(shardCount, nRows.length));
  const groups = Array.from({ length: count }, () => ({ rows: 0, environments: [] as number[] }));
  const bySize = nRows.map((rows, i) => ({ i, rows })).sort((a, b) => b.rows - a.rows);
  for (const { i, rows } of bySize) {
    const lightest = groups.reduce((a, b) => (b.rows < a.rows ? b : a));
    lightest.environments.push(i);
    lightest.rows += rows;
  }
  return groups.filter((g) => g.environments.length > 0).map((g) => g.environments.sort((a, b) => a - b));
}

export function momentsByEnvironment(count: number, shards: readonly ShardStatistics[]): FamilyMoments[][] {
  const out: FamilyMoments[][] = new Array(count);
  for (const shard of shards) shard.environments.forEach((e, at) => (out[e] = shard.moments[at]!));
  return out;
}

/**
 * The count nodes among `cpts` (categorical nodes, continuous parents binned) with the per-environment counts the
 * shards gathered for them, as evidence.ts reads them: what judges the edges into categorical nodes.
 */
export function familyCounts(cpts: ReadonlyArray<{ node: string; parents: string[] }>, count: number, shards: readonly ShardStatistics[]): FamilyCounts {
  const counts: number[][][][] = new Array(count);
  for (const shard of shards) shard.environments.forEach((e, at) => (counts[e] = cpts.map((c) => shard.counts[c.node]![at]!)));
  const levels = shards[0]?.cptLevels ?? {};
  const families = cpts.map((c) => ({ node: c.node, parents: c.parents, parentLevels: levels[c.node]?.parents ?? [], classes: levels[c.node]?.classes ?? 0 }));
  return { families, counts };
}

/** Bins a continuous input of a categorical node is counted in, per environment (quartiles of the pooled values). */
const INPUT_BINS = 4;

/**
 * The categorical nodes with parents along `edges`, whose edges are judged from per-environment counts: each
 * continuous parent binned at the quartiles of its values in `frame`, or of `valuesOf` it (the values of every
 * environment, when `frame` is one environment's), so that the cuts are the same in every environment.
 */
export function countNodesOf(frame: Frame, edges: readonly EdgeRef[], valuesOf: (name: string) => Float64Array | undefined = () => undefined): CountNode[] {
  const columns = new Map(frame.columns.map((c) => [c.name, c]));
  return frame.columns.flatMap((column) => {
    if (column.kind !== 'categorical') return [];
    const parents = edges.filter((e) => e.target === column.name).map((e) => e.source).filter((p) => columns.has(p));
    if (parents.length === 0) return [];
    const cuts: Record<string, number[]> = {};
    for (const parent of parents) {
      const input = columns.get(parent)!;
      if (input.kind === 'continuous') cuts[parent] = quantileCuts(valuesOf(parent) ?? input.values, INPUT_BINS);
    }
    return [{ node: column.name, parents, ...(Object.keys(cuts).length > 0 && { cuts }) }];
  });
}

/** A fitted network's statistics plan with the count nodes (countNodesOf) it lacks: every categorical node's edges are judged from counts. */
export function withCountNodes(plan: { families: Family[]; cpts: CountNode[] }, nodes: readonly CountNode[]): { families: Family[]; cpts: CountNode[] } {
  const counted = new Set(plan.cpts.map((c) => c.node));
  return { ...plan, cpts: [...plan.cpts, ...nodes.filter((c) => !counted.has(c.node))] };
}

export function familiesOf(frame: Frame, edges: readonly EdgeRef[]): Family[] {
  return frame.columns.flatMap((column) => {
    if (column.kind !== 'continuous') return [];
    const parents = edges.filter((e) => e.target === column.name).map((e) => e.source);
    return [{ node: column.name, terms: termsFor(frame, parents, false) }];
  });
}

export function entry(frame: Frame, environment: Int32Array, e: number, key: string, values: Record<string, string>): EnvironmentEntry {
  let nRows = 0;
  for (const x of environment) if (x === e) nRows++;
  const stats: EnvironmentEntry['stats'] = {};
  for (const column of frame.columns) {
    let n = 0;
    let sum = 0;
    let sumSq = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    let missing = 0;
    for (let r = 0; r < frame.nRows; r++) {
      if (environment[r] !== e) continue;
      if (column.kind === 'categorical') {
        if (column.codes[r]! < 0) missing++;
        continue;
      }
      const v = column.values[r]!;
      if (Number.isNaN(v)) {
        missing++;
        continue;
      }
      n++;
      sum += v;
      sumSq += v * v;
      if (v < min) min = v;
      if (v > max) max = v;
    }
    const mean = n > 0 ? sum / n : null;
    stats[column.name] = {
      mean: mean === null ? null : round(mean),
      std: n > 1 ? round(Math.sqrt(Math.max(0, (sumSq - n * mean! * mean!) / (n - 1)))) : null,
      min: n > 0 ? min : null,
      max: n > 0 ? max : null,
      missing,
    };
  }
  return { key, values, nRows, timeSpan: null, stats, hasEvidence: nRows >= EVIDENCE_ROWS };
}

const round = (x: number) => Number(x.toPrecision(8));

export function panelMembers(judgement: EdgeJudgement): Pick<Relationship, 'agreementRate' | 'isEnvironmentGated'> {
  return { agreementRate: judgement.agreementRate === null ? null : Number(judgement.agreementRate.toFixed(4)), isEnvironmentGated: judgement.gated };
}

export function evidenceOf(judgements: readonly EdgeJudgement[]): EnvironmentProfile['edges'] {
  return judgements.map((j) => ({ source: j.source, target: j.target, holds: j.holds, strength: j.strength.map((s) => (s === null ? null : Number(s.toFixed(4)))) }));
}

/** Nodes whose mechanism differs across environments (the indicator points to them, or an edge into them is gated) carry the environment columns. */
export function withEnvironmentColumns(nodes: Node[], changing: ReadonlySet<string>, judgements: readonly EdgeJudgement[], columns: string[]): Node[] {
  const gatedTargets = new Set(judgements.filter((j) => j.gated).map((j) => j.target));
  return nodes.map((node) => (changing.has(node.name) || gatedTargets.has(node.name) ? { ...node, environmentColumns: columns } : node));
}

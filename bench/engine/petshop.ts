/**
 * Reader for the PetShop root-cause benchmark (Hardt et al. 2023, amazon-science/petshop-root-cause-analysis),
 * laid out in ../shared/benchmarks/data/petshop/<traffic>/:
 * - graph.csv: the call graph as an adjacency matrix, row = caller, column = callee (the publishers read it with
 *   networkx from_pandas_adjacency and reverse it for the causal graph, as we do in causalEdges);
 * - noissue/metrics.csv and {train,test}/issue_<k>/metrics.csv: three header rows (microservice, metric,
 *   statistic), a unix_timestamp row, then one row per 5-minute window; empty cells are missing;
 * - issue_<k>/target.json: {target: {node, metric, agg}, root_cause: {node}}.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EdgeRef } from '../../src/engine/types.js';

export interface MetricTable {
  timestamps: number[];
  /** Column values keyed by `${node}|${metric}|${statistic}`; NaN = missing. */
  columns: Map<string, Float64Array>;
}

export interface Issue {
  split: 'train' | 'test';
  name: string;
  metrics: MetricTable;
  targetNode: string;
  targetMetric: string;
  statistic: string;
  rootCause: string;
}

export const columnKey = (node: string, metric: string, statistic: string) => `${node}|${metric}|${statistic}`;

export function readMetrics(file: string): MetricTable {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const cells = lines.map(splitCsvLine);
  const [nodes, metrics, statistics] = [cells[0]!, cells[1]!, cells[2]!];
  const body = cells.slice(4);
  const columns = new Map<string, Float64Array>();
  for (let j = 1; j < nodes.length; j++) {
    const values = Float64Array.from(body, (row) => (row[j] === undefined || row[j] === '' ? Number.NaN : Number(row[j])));
    columns.set(columnKey(nodes[j]!, metrics[j]!, statistics[j]!), values);
  }
  return { timestamps: body.map((row) => Number(row[0])), columns };
}

/** The call graph's caller -> callee edges. */
export function readCallGraph(file: string): EdgeRef[] {
  const cells = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '').map(splitCsvLine);
  const callees = cells[0]!.slice(1);
  const edges: EdgeRef[] = [];
  for (const row of cells.slice(1)) {
    row.slice(1).forEach((v, j) => {
      if (Number(v) !== 0) edges.push({ source: row[0]!, target: callees[j]! });
    });
  }
  return edges;
}

/** Causal edges: a callee's latency and errors reach its caller, so each call edge is reversed. */
export const causalEdges = (calls: EdgeRef[]): EdgeRef[] => calls.map((e) => ({ source: e.target, target: e.source }));

export function readIssues(dir: string): Issue[] {
  const issues: Issue[] = [];
  for (const split of ['train', 'test'] as const) {
    const splitDir = join(dir, split);
    if (!existsSync(splitDir)) continue;
    const names = readdirSync(splitDir).filter((n) => n.startsWith('issue_')).sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)));
    for (const name of names) {
      const target = JSON.parse(readFileSync(join(splitDir, name, 'target.json'), 'utf8')) as {
        target: { node: string; metric: string; agg: string };
        root_cause: { node: string };
      };
      issues.push({
        split, name, metrics: readMetrics(join(splitDir, name, 'metrics.csv')),
        targetNode: target.target.node, targetMetric: target.target.metric, statistic: target.target.agg, rootCause: target.root_cause.node,
      });
    }
  }
  return issues;
}

/** Edges among `kept` nodes after removing the others, each removed node's parents joined to its children. */
export function marginalise(edges: EdgeRef[], kept: Set<string>): EdgeRef[] {
  let current = edges.map((e) => ({ ...e }));
  const removed = [...new Set(edges.flatMap((e) => [e.source, e.target]))].filter((n) => !kept.has(n));
  for (const node of removed) {
    const parents = current.filter((e) => e.target === node).map((e) => e.source);
    const children = current.filter((e) => e.source === node).map((e) => e.target);
    current = current.filter((e) => e.source !== node && e.target !== node);
    for (const p of parents) for (const c of children) if (p !== c) current.push({ source: p, target: c });
  }
  const seen = new Set<string>();
  return current.filter((e) => {
    const key = `${e.source}\u0000${e.target}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Node -> values of one metric and statistic. */
export function metricColumns(table: MetricTable, metric: string, statistic: string): Map<string, Float64Array> {
  const out = new Map<string, Float64Array>();
  for (const [key, values] of table.columns) {
    const [node, m, s] = key.split('|');
    if (m === metric && s === statistic) out.set(node!, values);
  }
  return out;
}

/** Comma-separated cells; no quoting occurs in these files (names hold no commas). */
function splitCsvLine(line: string): string[] {
  return line.split(',').map((s) => s.trim());
}

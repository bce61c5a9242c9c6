/**
 * Readers for the public benchmark sets in /work/shared/benchmarks/data (data/README.md describes the formats):
 * whitespace- or comma-separated tables with a header, and causal-learn's graph text ("Graph Edges:" then
 * `k. Xa --> Xb`). Located at `../shared/benchmarks/data` from the repository root, or BENCH_DATA_DIR.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { categoricalColumn, continuousColumn, frameOf } from '../../src/engine/frame.js';
import type { PdagEdge } from '../../src/engine/graph/pdag.js';
import type { EdgeRef, Frame } from '../../src/engine/types.js';

const HERE = dirname(fileURLToPath(import.meta.url));
/** The repository root: this file runs from <root>/<outDir>/bench/engine/. */
export const REPO_ROOT = resolve(HERE, '../../..');

export function benchmarkDataDir(): string {
  const dir = process.env.BENCH_DATA_DIR ?? resolve(REPO_ROOT, '../shared/benchmarks/data');
  if (!existsSync(dir)) throw new Error(`benchmark data not found at ${dir} (set BENCH_DATA_DIR)`);
  return dir;
}

/** A delimited table with a header row: every column continuous, or every column categorical (labels kept as text). */
export function readTable(file: string, kind: 'continuous' | 'categorical'): Frame {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const split = (line: string) => (line.includes(',') ? line.split(',') : line.trim().split(/\s+/)).map((s) => s.trim().replace(/^"|"$/g, ''));
  const header = split(lines[0]!);
  const cells = header.map(() => [] as string[]);
  for (const line of lines.slice(1)) split(line).forEach((v, j) => cells[j]?.push(v));
  return frameOf(header.map((name, j) => {
    const column = cells[j]!;
    if (kind === 'continuous') return continuousColumn(name, column.map((v) => (v === '' || v === 'NA' ? null : Number(v))));
    const categories = [...new Set(column)].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
    return categoricalColumn(name, column, categories);
  }));
}

/** Edges of causal-learn's graph text: `-->` directed, `---` undirected (other marks are refused). */
export function readGraphText(file: string): { nodes: string[]; edges: PdagEdge[] } {
  const text = readFileSync(file, 'utf8');
  const nodesLine = text.split(/\r?\n/).find((l, i, all) => i > 0 && all[i - 1]!.startsWith('Graph Nodes'));
  const nodes = nodesLine ? nodesLine.split(';').map((s) => s.trim()).filter(Boolean) : [];
  const edges: PdagEdge[] = [];
  for (const match of text.matchAll(/^\s*\d+\.\s+(\S+)\s+(\S+)\s+(\S+)\s*$/gm)) {
    const [, a, mark, b] = match;
    if (mark === '-->') edges.push({ source: a!, target: b!, directed: true });
    else if (mark === '<--') edges.push({ source: b!, target: a!, directed: true });
    else if (mark === '---') edges.push({ source: a!, target: b!, directed: false });
    else throw new Error(`${file}: unsupported edge mark ${mark}`);
  }
  return { nodes, edges };
}

/** cause,effect rows with a header. */
export function readEdgeCsv(file: string): EdgeRef[] {
  return readFileSync(file, 'utf8').split(/\r?\n/).slice(1).filter((l) => l.trim() !== '').map((line) => {
    const [source, target] = line.split(',').map((s) => s.trim());
    return { source: source!, target: target! };
  });
}

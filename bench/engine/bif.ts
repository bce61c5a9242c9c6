/**
 * Discrete Bayesian networks in the Bayesian Interchange Format (the bnlearn repository's .bif files in
 * ../shared/benchmarks/data/bif): a reader, seeded ancestral sampling, the true network as an engine model, and
 * its mutilation do(X = x) -- the ground truth of interventional queries, answered exactly by variable elimination.
 */
import { readFileSync } from 'node:fs';
import { topologicalSort } from '../../src/engine/graph/dag.js';
import { Rng } from '../../src/engine/random.js';
import type { CbnModel, EdgeRef, Frame } from '../../src/engine/types.js';
import { reachable } from '../../src/engine/inference/scm.js';

export interface BifNetwork {
  names: string[];
  states: string[][];
  /** Parent indices per variable, in the order the file declares them. */
  parents: number[][];
  /** Per variable: one row of probabilities per parent configuration (mixed radix, last parent fastest). */
  cpts: number[][][];
  /** A topological order of the variables. */
  order: number[];
}

export function readBif(file: string): BifNetwork {
  const text = readFileSync(file, 'utf8');
  const names: string[] = [];
  const states: string[][] = [];
  for (const m of text.matchAll(/variable\s+([^\s{]+)\s*\{[^}]*?type\s+discrete\s*\[\s*\d+\s*\]\s*\{([^}]*)\}/g)) {
    names.push(m[1]!);
    states.push(m[2]!.split(',').map((s) => s.trim()).filter((s) => s !== ''));
  }
  const index = new Map(names.map((n, i) => [n, i]));
  const parents: number[][] = names.map(() => []);
  const cpts: number[][][] = names.map(() => []);
  for (const m of text.matchAll(/probability\s*\(\s*([^|)]+?)\s*(?:\|\s*([^)]*))?\)\s*\{([^}]*)\}/g)) {
    const child = index.get(m[1]!.trim());
    if (child === undefined) throw new Error(`${file}: probability of unknown variable ${m[1]}`);
    const pa = (m[2] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '').map((p) => {
      const i = index.get(p);
      if (i === undefined) throw new Error(`${file}: unknown parent ${p}`);
      return i;
    });
    parents[child] = pa;
    const configs = pa.reduce((acc, p) => acc * states[p]!.length, 1);
    const table: number[][] = Array.from({ length: configs }, () => []);
    const body = m[3]!;
    const flat = /table\s+([^;]*);/.exec(body);
    if (flat) {
      // The repository's files use `table` only for parentless variables; its order with parents varies by tool.
      if (pa.length > 0) throw new Error(`${file}: a \`table\` CPT with parents (${names[child]}) is not supported`);
      table[0] = flat[1]!.split(',').map(Number);
    }
    for (const row of body.matchAll(/\(([^)]*)\)\s*([^;]*);/g)) {
      const labels = row[1]!.split(',').map((s) => s.trim());
      let config = 0;
      labels.forEach((label, k) => {
        const code = states[pa[k]!]!.indexOf(label);
        if (code < 0) throw new Error(`${file}: ${names[pa[k]!]} has no state ${label}`);
        config = config * states[pa[k]!]!.length + code;
      });
      table[config] = row[2]!.split(',').map(Number);
    }
    if (table.some((r) => r.length !== states[child]!.length)) throw new Error(`${file}: incomplete CPT for ${names[child]}`);
    cpts[child] = table;
  }
  const edges = bifEdgesOf(names, parents);
  const sorted = topologicalSort(names, edges);
  if (!sorted) throw new Error(`${file}: the network has a cycle`);
  return { names, states, parents, cpts, order: sorted.map((n) => index.get(n)!) };
}

function bifEdgesOf(names: string[], parents: number[][]): EdgeRef[] {
  return parents.flatMap((pa, child) => pa.map((p) => ({ source: names[p]!, target: names[child]! })));
}

export const bifEdges = (net: BifNetwork): EdgeRef[] => bifEdgesOf(net.names, net.parents);

/** n rows drawn ancestrally from the network (seeded), categorical columns over the declared states. */
export function sampleBif(net: BifNetwork, n: number, seed: number): Frame {
  const rng = new Rng(seed);
  const codes = net.names.map(() => new Int32Array(n));
  for (const j of net.order) {
    const pa = net.parents[j]!;
    const out = codes[j]!;
    for (let r = 0; r < n; r++) {
      let config = 0;
      for (const p of pa) config = config * net.states[p]!.length + codes[p]![r]!;
      const row = net.cpts[j]![config]!;
      let u = rng.uniform();
      let k = 0;
      while (k < row.length - 1 && (u -= row[k]!) >= 0) k++;
      out[r] = k;
    }
  }
  return { nRows: n, columns: net.names.map((name, j) => ({ name, kind: 'categorical' as const, codes: codes[j]!, categories: [...net.states[j]!] })) };
}

/** The true network as an engine model (CPT nodes in topological order); with `intervene`, X's mechanism is
 * replaced by the point mass at code x and its parents cut (graph mutilation, Pearl 2009 3.2). */
export function bifModel(net: BifNetwork, intervene?: { variable: number; code: number }): CbnModel {
  return {
    nodes: net.order.map((j) => {
      const cut = intervene?.variable === j;
      const pa = cut ? [] : net.parents[j]!;
      const table = cut ? [net.states[j]!.map((_, k) => (k === intervene!.code ? 1 : 0))] : net.cpts[j]!;
      return {
        name: net.names[j]!, kind: 'categorical' as const, parents: pa.map((p) => net.names[p]!), categories: [...net.states[j]!],
        cpt: { parentCategories: pa.map((p) => [...net.states[p]!]), table }, marginal: table[0]!,
      };
    }),
  };
}

/** Every variable with a directed path into j. */
export function bifAncestors(net: BifNetwork, j: number): Set<number> {
  return reachable([j], (i) => net.parents[i]!);
}

/** A fitted discrete model with X's mechanism replaced by the point mass at `state` (its parents cut). */
export function mutilateModel(model: CbnModel, variable: string, state: string): CbnModel {
  return {
    nodes: model.nodes.map((node) => {
      if (node.name !== variable) return node;
      if (node.kind !== 'categorical') throw new Error(`${variable} is not categorical`);
      const table = [node.categories.map((c) => (c === state ? 1 : 0))];
      return { ...node, parents: [], cpt: { parentCategories: [], table }, marginal: table[0]! };
    }),
  };
}

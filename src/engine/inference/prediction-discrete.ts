/**
 * Exact posterior marginals on a discrete twin (every node a CPT) by variable elimination (Zhang & Poole 1994;
 * Koller & Friedman 2009, ch. 9): factors from the CPTs of the query's relevant nodes (target, evidence and their
 * ancestors -- other nodes sum to one), evidence fixed, then every other variable summed out in greedy
 * min-weight order.
 */
import type { CbnModel } from '../types.js';
import { reachable } from './scm.js';

interface Factor {
  /** Node indices, ascending. */
  vars: number[];
  cards: number[];
  /** Mixed radix over vars, last var fastest. */
  values: Float64Array;
}

/** True when every node is categorical and fully tabulated (a CPT, or a parentless marginal). */
export function isDiscrete(model: CbnModel): boolean {
  return model.nodes.every((n) => n.kind === 'categorical' && (n.cpt !== undefined || (n.parents.length === 0 && !n.logistic)));
}

/** A discrete model prepared for repeated queries. */
export class DiscreteNetwork {
  private readonly parents: number[][];
  private readonly cards: number[];

  constructor(private readonly model: CbnModel) {
    const index = new Map(model.nodes.map((n, i) => [n.name, i]));
    this.parents = model.nodes.map((n) => n.parents.map((p) => index.get(p)!));
    this.cards = model.nodes.map((n) => (n.kind === 'categorical' ? n.categories.length : 0));
  }

  /** P(target | evidence) over the target's categories; evidence maps node index -> category code. */
  posterior(target: number, evidence: ReadonlyMap<number, number>): Float64Array {
    if (evidence.has(target)) {
      const out = new Float64Array(this.cards[target]!);
      out[evidence.get(target)!] = 1;
      return out;
    }
    const relevant = this.ancestralSet([target, ...evidence.keys()]);
    let factors = [...relevant].map((i) => this.cptFactor(i));
    for (const [v, code] of evidence) factors = factors.map((f) => (f.vars.includes(v) ? reduce(f, v, code) : f));
    const hidden = new Set([...relevant].filter((i) => i !== target && !evidence.has(i)));
    while (hidden.size > 0) {
      const v = cheapest(hidden, factors, this.cards);
      hidden.delete(v);
      const touching = factors.filter((f) => f.vars.includes(v));
      factors = factors.filter((f) => !f.vars.includes(v));
      factors.push(sumOut(product(touching, this.cards), v));
    }
    const joint = product(factors, this.cards);
    // Only the target is left in scope: normalise its unnormalised marginal P(target, evidence).
    if (joint.vars.length !== 1 || joint.vars[0] !== target) throw new Error('variable elimination left more than the target');
    const total = joint.values.reduce((a, b) => a + b, 0);
    return joint.values.map((v) => v / total);
  }

  /** The nodes and their ancestors: the only factors a query over them needs. */
  private ancestralSet(nodes: number[]): Set<number> {
    return new Set([...nodes, ...reachable(nodes, (i) => this.parents[i]!)]);
  }

  /** P(node | parents) as a factor; parent codes are translated to the CPT's categories by label. */
  private cptFactor(i: number): Factor {
    const node = this.model.nodes[i]!;
    if (node.kind !== 'categorical') throw new Error(`node ${node.name} is not categorical`);
    const parents = this.parents[i]!;
    const vars = [...parents, i].sort((a, b) => a - b);
    const cards = vars.map((v) => this.cards[v]!);
    const values = new Float64Array(cards.reduce((a, b) => a * b, 1));
    const labels = node.cpt?.parentCategories ?? [];
    const translate = parents.map((p, k) => {
      const parent = this.model.nodes[p]!;
      return parent.kind === 'categorical' ? parent.categories.map((label) => labels[k]?.indexOf(label) ?? -1) : [];
    });
    const parentAt = parents.map((p) => vars.indexOf(p));
    const selfAt = vars.indexOf(i);
    const assignment = new Int32Array(vars.length);
    for (let flat = 0; flat < values.length; flat++) {
      let config = 0;
      let known = node.cpt !== undefined;
      for (let k = 0; k < parents.length; k++) {
        const code = translate[k]![assignment[parentAt[k]!]!] ?? -1;
        if (code < 0) known = false;
        config = config * (labels[k]?.length ?? 1) + Math.max(code, 0);
      }
      // A parent category the CPT never saw falls back to the node's marginal, as sampling does.
      const row = known ? node.cpt!.table[config]! : node.marginal;
      values[flat] = row[assignment[selfAt]!]!;
      increment(assignment, cards);
    }
    return { vars, cards, values };
  }
}

/** Odometer step over a mixed-radix assignment (last position fastest). */
function increment(assignment: Int32Array, cards: number[]): void {
  for (let k = assignment.length - 1; k >= 0; k--) {
    if (++assignment[k]! < cards[k]!) return;
    assignment[k] = 0;
  }
}

function strides(cards: number[]): number[] {
  const out = new Array<number>(cards.length).fill(1);
  for (let k = cards.length - 2; k >= 0; k--) out[k] = out[k + 1]! * cards[k + 1]!;
  return out;
}

/** The factor with variable v fixed at `code` (v dropped). */
function reduce(f: Factor, v: number, code: number): Factor {
  const at = f.vars.indexOf(v);
  const vars = f.vars.filter((_, k) => k !== at);
  const cards = f.cards.filter((_, k) => k !== at);
  const values = new Float64Array(cards.reduce((a, b) => a * b, 1));
  const fs = strides(f.cards);
  const assignment = new Int32Array(vars.length);
  for (let flat = 0; flat < values.length; flat++) {
    let source = code * fs[at]!;
    for (let k = 0; k < vars.length; k++) source += assignment[k]! * fs[k < at ? k : k + 1]!;
    values[flat] = f.values[source]!;
    increment(assignment, cards);
  }
  return { vars, cards, values };
}

/** The pointwise product of factors over the union of their variables. */
function product(factors: Factor[], allCards: number[]): Factor {
  const vars = [...new Set(factors.flatMap((f) => f.vars))].sort((a, b) => a - b);
  const cards = vars.map((v) => allCards[v]!);
  const values = new Float64Array(cards.reduce((a, b) => a * b, 1)).fill(1);
  // For each factor, its stride along each union variable (0 where it does not depend on it).
  const along = factors.map((f) => {
    const fs = strides(f.cards);
    return vars.map((v) => {
      const k = f.vars.indexOf(v);
      return k < 0 ? 0 : fs[k]!;
    });
  });
  const assignment = new Int32Array(vars.length);
  const offsets = new Int32Array(factors.length);
  for (let flat = 0; flat < values.length; flat++) {
    let v = 1;
    for (let j = 0; j < factors.length; j++) v *= factors[j]!.values[offsets[j]!]!;
    values[flat] = v;
    // Advance the odometer and every factor's offset with it.
    for (let k = vars.length - 1; k >= 0; k--) {
      if (++assignment[k]! < cards[k]!) {
        for (let j = 0; j < factors.length; j++) offsets[j]! += along[j]![k]!;
        break;
      }
      for (let j = 0; j < factors.length; j++) offsets[j]! -= along[j]![k]! * (cards[k]! - 1);
      assignment[k] = 0;
    }
  }
  return { vars, cards, values };
}

function sumOut(f: Factor, v: number): Factor {
  const at = f.vars.indexOf(v);
  const vars = f.vars.filter((_, k) => k !== at);
  const cards = f.cards.filter((_, k) => k !== at);
  const values = new Float64Array(cards.reduce((a, b) => a * b, 1));
  const fs = strides(f.cards);
  const inner = fs[at]!;
  const outer = inner * f.cards[at]!;
  // Index = high * outer + code * inner + low.
  for (let high = 0, target = 0; high < f.values.length / outer; high++) {
    for (let low = 0; low < inner; low++, target++) {
      let s = 0;
      for (let code = 0; code < f.cards[at]!; code++) s += f.values[high * outer + code * inner + low]!;
      values[target] = s;
    }
  }
  return { vars, cards, values };
}

/** Greedy min-weight elimination: the hidden variable whose elimination creates the smallest factor. */
function cheapest(hidden: Set<number>, factors: Factor[], cards: number[]): number {
  let best = -1;
  let bestSize = Number.POSITIVE_INFINITY;
  for (const v of hidden) {
    const scope = new Set<number>();
    for (const f of factors) if (f.vars.includes(v)) for (const u of f.vars) scope.add(u);
    let size = 1;
    for (const u of scope) size *= cards[u]!;
    if (size < bestSize) {
      bestSize = size;
      best = v;
    }
  }
  return best;
}

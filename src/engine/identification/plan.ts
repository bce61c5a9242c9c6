/**
 * Identification of a question's effects over the class of DAGs the twin cannot tell apart (DESIGN.md
 * "Identification"): which effects the class decides, which edges decide the others, and one model per distinct
 * way those edges can point, so a family can answer every possible effect beside its chosen DAG's.
 */
import type { Kernels } from '../../compute/kernels.js';
import { clonePdag, isDirected, type Pdag, pdagFromEdges, removeEdge, setDirected } from '../graph/pdag.js';
import type { CbnModel, EdgeRef, Frame } from '../types.js';
import { modelOnDag, syntheticRows } from './alternatives.js';
import { type Configuration, pairKey, parentConfigurations } from './configurations.js';
import { decidingEdges, possibleDescendants } from './paths.js';

/** What an effect is on: a variable, the variables a metric reads, or (null) every variable. */
export type Outcome = string | readonly string[] | null;

/** What a run knows of its version's class: the reversible edges as the chosen DAG has them. */
export interface ClassInput {
  reversible: EdgeRef[];
  /**
   * Columns that repeat another exactly (discovery/copies.ts; the chosen DAG has `copyOf -> column` and the other
   * edges on `copyOf`): the DAG with the two swapped fits the data as well.
   */
  copies?: { column: string; copyOf: string }[];
  /** Rows the model was fitted on (rescales the alternatives' parameter uncertainty); null when unknown. */
  trainingRows: number | null;
  kernels: Kernels;
}

/** Whether an effect is decided by the class, and if not, the edges (as the chosen DAG has them) that decide it. */
export interface EffectIdentification {
  identified: boolean;
  decidingEdges: EdgeRef[];
}

/** Another DAG of the class, with the direction its deciding edges take. */
export interface Alternative {
  model: CbnModel;
  /** The deciding edges as this DAG orients them. */
  orientation: EdgeRef[];
  /** Pair keys (pairKey) -> whether the neighbour is a parent of the intervened node here. */
  parentOf: Map<string, boolean>;
}

/** Distinct models at most beside the chosen one (each is one more simulation of the question). */
const MAX_ALTERNATIVES = 8;

export class IdentificationPlan {
  private readonly names: string[];
  private readonly index: Map<string, number>;
  private readonly dag: Pdag;
  private readonly pdag: Pdag;
  private readonly xs: number[];
  /** Per intervened node in a copy pair (its partner not intervened): [original, copy]. */
  private readonly copyPairs = new Map<number, [number, number]>();
  private readonly deciding = new Map<string, [number, number][]>();
  private built: { alternatives: Alternative[]; truncated: boolean } | null = null;

  private constructor(private readonly model: CbnModel, private readonly input: ClassInput, intervened: readonly string[]) {
    this.names = model.nodes.map((n) => n.name);
    this.index = new Map(this.names.map((n, i) => [n, i]));
    const edges = model.nodes.flatMap((n) => n.parents.map((p) => ({ source: p, target: n.name })));
    const reversible = new Set(input.reversible.flatMap((e) => [`${e.source}\u0000${e.target}`, `${e.target}\u0000${e.source}`]));
    this.dag = pdagFromEdges(this.names, edges.map((e) => ({ ...e, directed: true })));
    this.pdag = pdagFromEdges(this.names, edges.map((e) => ({ ...e, directed: !reversible.has(`${e.source}\u0000${e.target}`) })));
    this.xs = [...new Set(intervened.map((n) => this.index.get(n)).filter((i): i is number => i !== undefined))];
    for (const { column, copyOf } of input.copies ?? []) {
      const [o, c] = [this.index.get(copyOf), this.index.get(column)];
      if (o === undefined || c === undefined || !isDirected(this.dag, o, c)) continue;
      const [oIn, cIn] = [this.xs.includes(o), this.xs.includes(c)];
      if (oIn !== cIn) this.copyPairs.set(oIn ? o : c, [o, c]);
    }
  }

  /** null when the run carries no class (then every answer is its chosen DAG's, as before identification). */
  static of(model: CbnModel, input: ClassInput | undefined, intervened: readonly string[]): IdentificationPlan | null {
    return input === undefined ? null : new IdentificationPlan(model, input, intervened);
  }

  /** Variables some DAG of the class puts downstream of the intervened ones (the chosen DAG's descendants among them). */
  possibleDescendants(): string[] {
    return [...possibleDescendants(this.pdag, this.xs, new Set(this.xs))].sort((a, b) => a - b).map((i) => this.names[i]!);
  }

  /** Whether `edge` joins a column to its exact copy (the direction alone decides nothing: the pair can swap roles). */
  joinsCopy(edge: EdgeRef): boolean {
    const [a, b] = [this.index.get(edge.source), this.index.get(edge.target)];
    return [...this.copyPairs.values()].some(([o, c]) => (a === o && b === c) || (a === c && b === o));
  }

  /** The effect on `outcome` (a variable, the variables a metric reads, or every variable when null). */
  effectOn(outcome: Outcome): EffectIdentification {
    const pairs = this.pairsFor(outcome);
    return { identified: pairs.length === 0, decidingEdges: pairs.map(([x, s]) => this.asChosen(x, s)) };
  }

  /**
   * One model per distinct direction of the deciding edges of `outcomes` other than the chosen DAG's (built once:
   * call with every outcome the question reports). `truncated` when the class had more than the caps allow.
   */
  alternatives(outcomes: readonly Outcome[], seed: number): { alternatives: Alternative[]; truncated: boolean } {
    if (this.built) return this.built;
    const union = new Map<string, [number, number]>();
    for (const o of outcomes) for (const [x, s] of this.pairsFor(o)) union.set(pairKey(x, s), [x, s]);
    if (union.size === 0) return (this.built = { alternatives: [], truncated: false });
    const { configurations, truncated } = parentConfigurations(this.pdag, this.dag, this.xs);
    const keyOf = (parentOf: Map<string, boolean>) => [...union.keys()].map((k) => (parentOf.get(k) ? '1' : '0')).join('');
    const chosen = keyOf(this.parentOfIn(this.dag, [...union.values()]));
    const groups = new Map<string, Configuration>();
    for (const c of configurations) if (!groups.has(keyOf(c.parentOf))) groups.set(keyOf(c.parentOf), c);
    groups.delete(chosen);
    for (const swapped of this.swappedCopies(union)) if (!groups.has(keyOf(swapped.parentOf))) groups.set(keyOf(swapped.parentOf), swapped);
    const kept = [...groups.values()].slice(0, MAX_ALTERNATIVES);
    let rows: Frame | null = null;
    const alternatives = kept.map((c) => {
      rows ??= syntheticRows(this.model, seed);
      return {
        model: modelOnDag(this.model, c.dag, rows, this.input.trainingRows, this.input.kernels),
        orientation: [...union.values()].map(([x, s]) => this.oriented(c.parentOf.get(pairKey(x, s)) === true, x, s)),
        parentOf: c.parentOf,
      };
    });
    return (this.built = { alternatives, truncated: truncated || groups.size > MAX_ALTERNATIVES });
  }

  /** Whether `alternative` differs from the chosen DAG on an edge that decides `outcome` (else its answer is the chosen one's). */
  differsFor(alternative: Alternative, outcome: Outcome): boolean {
    const chosen = this.parentOfIn(this.dag, this.pairsFor(outcome));
    return this.pairsFor(outcome).some(([x, s]) => alternative.parentOf.get(pairKey(x, s)) !== chosen.get(pairKey(x, s)));
  }

  /** The deciding edges of `outcome` as `alternative` orients them. */
  orientationFor(alternative: Alternative, outcome: Outcome): EdgeRef[] {
    return this.pairsFor(outcome).map(([x, s]) => this.oriented(alternative.parentOf.get(pairKey(x, s)) === true, x, s));
  }

  private pairsFor(outcome: Outcome): [number, number][] {
    if (Array.isArray(outcome)) {
      const union = new Map<string, [number, number]>();
      for (const name of outcome) for (const [x, s] of this.pairsFor(name)) union.set(pairKey(x, s), [x, s]);
      return [...union.values()];
    }
    const key = (outcome as string | null) ?? '\u0000all';
    let pairs = this.deciding.get(key);
    if (!pairs) {
      if (outcome === null) {
        const seen = new Map<string, [number, number]>();
        for (let y = 0; y < this.names.length; y++) for (const [x, s] of this.decidingAt(y)) seen.set(pairKey(x, s), [x, s]);
        pairs = [...seen.values()];
      } else {
        const y = this.index.get(outcome as string);
        pairs = y === undefined ? [] : this.decidingAt(y);
      }
      this.deciding.set(key, pairs);
    }
    return pairs;
  }

  /**
   * The class's deciding edges for outcome `y`, and the edge of each intervened copy pair when swapping the pair
   * moves the effect: setting the copy moves nothing in the chosen DAG and what setting the original moves in the
   * swapped one (and the reverse for the original), so the effect on the original's descendants and on the partner.
   */
  private decidingAt(y: number): [number, number][] {
    const pairs = decidingEdges(this.pdag, this.xs, y);
    for (const [x, [o, c]] of this.copyPairs) {
      const partner = x === o ? c : o;
      const moved = y === partner || possibleDescendants(this.pdag, [o], new Set([...this.xs, c])).has(y);
      if (moved && !this.xs.includes(y) && !pairs.some(([a, b]) => a === x && b === partner)) pairs.push([x, partner]);
    }
    return pairs;
  }

  /** The chosen DAG with each intervened copy pair among `union`'s pairs swapped: the copy takes the original's edges. */
  private swappedCopies(union: Map<string, [number, number]>): Configuration[] {
    const pairs = [...this.copyPairs.entries()].filter(([x, [o, c]]) => union.has(pairKey(x, x === o ? c : o)));
    if (pairs.length === 0) return [];
    const dag = clonePdag(this.dag);
    const { p } = dag;
    for (const [, [o, c]] of pairs) {
      for (let a = 0; a < p; a++) {
        if (a === c || a === o) continue;
        if (isDirected(dag, a, o)) moveEdge(dag, [a, o], [a, c]);
        if (isDirected(dag, o, a)) moveEdge(dag, [o, a], [c, a]);
      }
      setDirected(dag, c, o);
    }
    const parentOf = this.parentOfIn(this.dag, [...union.values()]);
    for (const [x, [o, c]] of pairs) {
      const partner = x === o ? c : o;
      parentOf.set(pairKey(x, partner), !parentOf.get(pairKey(x, partner)));
    }
    return [{ dag, parentOf }];
  }

  private parentOfIn(dag: Pdag, pairs: [number, number][]): Map<string, boolean> {
    return new Map(pairs.map(([x, s]) => [pairKey(x, s), isDirected(dag, s, x)]));
  }

  private asChosen(x: number, s: number): EdgeRef {
    return this.oriented(isDirected(this.dag, s, x), x, s);
  }

  private oriented(sIsParent: boolean, x: number, s: number): EdgeRef {
    return sIsParent ? { source: this.names[s]!, target: this.names[x]! } : { source: this.names[x]!, target: this.names[s]! };
  }
}

function moveEdge(g: Pdag, [a, b]: [number, number], [c, d]: [number, number]): void {
  removeEdge(g, a, b);
  setDirected(g, c, d);
}

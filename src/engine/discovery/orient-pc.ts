/**
 * Orientation of a PC skeleton: v-structures from the separating sets (Spirtes, Glymour & Scheines 2000), with
 * conflicting arrowheads left undirected (order-independent, as PC-stable wants), then background knowledge, then
 * Meek 1995 rules R1-R4.
 */
import { applyMeekRules } from '../graph/meek.js';
import { adjacent, emptyPdag, type Pdag, setDirected, setUndirected } from '../graph/pdag.js';
import type { Knowledge } from './knowledge.js';
import type { Skeleton } from './pc-skeleton.js';

export function orientSkeleton(p: number, skeleton: Skeleton, knowledge: Knowledge): Pdag {
  const g = emptyPdag(p);
  const { adjacency, sepsets } = skeleton;
  for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) if (adjacency[i * p + j] === 1) setUndirected(g, i, j);
  const arrowheads = new Uint8Array(p * p); // arrowheads[a * p + c] = 1: a *-> c suggested by some v-structure
  for (let c = 0; c < p; c++) {
    for (let a = 0; a < p; a++) {
      if (a === c || adjacency[a * p + c] !== 1) continue;
      for (let b = a + 1; b < p; b++) {
        if (b === c || adjacency[b * p + c] !== 1 || adjacency[a * p + b] === 1) continue;
        const sepset = sepsets.get(a * p + b);
        if (sepset === undefined || sepset.includes(c)) continue; // no test separated them, or c separates them
        arrowheads[a * p + c] = 1;
        arrowheads[b * p + c] = 1;
      }
    }
  }
  for (let a = 0; a < p; a++) for (let c = 0; c < p; c++) {
    if (arrowheads[a * p + c] === 1 && arrowheads[c * p + a] === 0) setDirected(g, a, c);
  }
  applyKnowledge(g, knowledge);
  applyMeekRules(g, true);
  return g;
}

/** Orients adjacent pairs as the knowledge dictates: required i -> j, and j -> i when i -> j is forbidden. */
export function applyKnowledge(g: Pdag, knowledge: Knowledge): void {
  const { p } = g;
  for (let i = 0; i < p; i++) for (let j = 0; j < p; j++) {
    if (i === j || !adjacent(g, i, j)) continue;
    if (knowledge.required[i * p + j] === 1) setDirected(g, i, j);
    else if (knowledge.forbidden[j * p + i] === 1 && knowledge.forbidden[i * p + j] === 0) setDirected(g, i, j);
  }
}

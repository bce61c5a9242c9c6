/** Orientation propagation on a PDAG: Meek 1995 rules R1-R4, applied until nothing changes. */
import { adjacent, isDirected, isUndirected, type Pdag, setDirected } from './pdag.js';

/**
 * Applies Meek's rules in place. R1-R3 complete the orientation of a pattern (skeleton + v-structures); R4 is
 * needed only when background knowledge has oriented extra edges. Answers the number of edges oriented.
 */
export function applyMeekRules(g: Pdag, withR4 = false): number {
  const { p } = g;
  let oriented = 0;
  for (let changed = true; changed; ) {
    changed = false;
    for (let a = 0; a < p; a++) {
      for (let b = 0; b < p; b++) {
        if (a === b || !isUndirected(g, a, b)) continue;
        if (orientsByR1(g, a, b) || orientsByR2(g, a, b) || orientsByR3(g, a, b) || (withR4 && orientsByR4(g, a, b))) {
          setDirected(g, a, b);
          oriented++;
          changed = true;
        }
      }
    }
  }
  return oriented;
}

// R1: c -> a - b with c, b non-adjacent gives a -> b (no new v-structure).
function orientsByR1(g: Pdag, a: number, b: number): boolean {
  for (let c = 0; c < g.p; c++) if (c !== b && isDirected(g, c, a) && !adjacent(g, c, b)) return true;
  return false;
}

// R2: a -> c -> b with a - b gives a -> b (no cycle).
function orientsByR2(g: Pdag, a: number, b: number): boolean {
  for (let c = 0; c < g.p; c++) if (isDirected(g, a, c) && isDirected(g, c, b)) return true;
  return false;
}

// R3: a - c -> b and a - d -> b with c, d non-adjacent, and a - b, gives a -> b.
function orientsByR3(g: Pdag, a: number, b: number): boolean {
  const { p } = g;
  for (let c = 0; c < p; c++) {
    if (!isUndirected(g, a, c) || !isDirected(g, c, b)) continue;
    for (let d = c + 1; d < p; d++) {
      if (isUndirected(g, a, d) && isDirected(g, d, b) && !adjacent(g, c, d)) return true;
    }
  }
  return false;
}

// R4: a - b with c -> d -> b, a adjacent to c and to d, and c, b non-adjacent, gives a -> b.
function orientsByR4(g: Pdag, a: number, b: number): boolean {
  const { p } = g;
  for (let d = 0; d < p; d++) {
    if (d === a || !isDirected(g, d, b) || !adjacent(g, a, d)) continue;
    for (let c = 0; c < p; c++) {
      if (c !== a && c !== b && isDirected(g, c, d) && isUndirected(g, a, c) && !adjacent(g, c, b)) return true;
    }
  }
  return false;
}

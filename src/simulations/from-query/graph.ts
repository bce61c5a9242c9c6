/** The twin's causal graph as the query parser needs it: ancestors, and the root variables one may act on. */
import type { QueryContext } from './reader.js';

export function ancestorsOf(context: QueryContext, name: string): Set<string> {
  const parents = new Map<string, string[]>();
  for (const edge of context.edges) parents.set(edge.target, [...(parents.get(edge.target) ?? []), edge.source]);
  const seen = new Set<string>();
  const stack = [...(parents.get(name) ?? [])];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(parents.get(next) ?? []));
  }
  seen.delete(name);
  return seen;
}

/** The version's source-role variables; a version without roles falls back to the graph's roots (no parents). */
export function sourceVariables(context: QueryContext): string[] {
  if (context.variables.some((v) => v.role === 'source' || v.role === 'target')) {
    return context.variables.filter((v) => v.role === 'source').map((v) => v.name);
  }
  const children = new Set(context.edges.map((e) => e.target));
  return context.variables.filter((v) => !children.has(v.name)).map((v) => v.name);
}

/** Which of two variables causes the other through the graph: [cause, effect]; as given when neither does. */
export function orient(context: QueryContext, a: string, b: string): [string, string] {
  return ancestorsOf(context, a).has(b) ? [b, a] : [a, b];
}

/** Scope strings `<area>:<action>` (spec, Authentication 6; DESIGN.md "Contracts"). */
export const SCOPES = [
  'sources:read', 'sources:write', 'sources:delete',
  'datasets:read', 'datasets:write', 'datasets:delete',
  'ontology:read', 'ontology:write', 'ontology:delete',
  'digital-twins:read', 'digital-twins:write', 'digital-twins:delete', 'digital-twins:execute',
  'simulations:read', 'simulations:execute',
  'connectors:read', 'connectors:write',
  'catalog:read',
  'jobs:read',
  'exports:read',
  'agent:read', 'agent:write',
  'reports:read', 'reports:write',
] as const;

export type Scope = (typeof SCOPES)[number];

const KNOWN = new Set<string>(SCOPES);

export const isScope = (value: string): value is Scope => KNOWN.has(value);

/** Expands `area:*` to every action of the area; returns unknown entries separately so callers can refuse them. */
export function parseScopes(requested: readonly string[]): { scopes: Scope[]; unknown: string[] } {
  const scopes = new Set<Scope>();
  const unknown: string[] = [];
  for (const entry of requested) {
    const value = entry.trim();
    if (value.endsWith(':*')) {
      const area = value.slice(0, -1);
      const matched = SCOPES.filter((scope) => scope.startsWith(area));
      if (matched.length === 0) unknown.push(value);
      matched.forEach((scope) => scopes.add(scope));
    } else if (isScope(value)) {
      scopes.add(value);
    } else {
      unknown.push(value);
    }
  }
  return { scopes: SCOPES.filter((scope) => scopes.has(scope)), unknown };
}

/**
 * MCP carries JSON Schemas whole (a client compiles a tool's inputSchema and outputSchema on their own), while the
 * REST schemas refer to OpenAPI components by `$ref`. `selfContained` inlines those references from the same
 * TypeBox schemas the OpenAPI document is built from, so both describe one shape.
 */
import * as catalog from '../../schemas/catalog.js';
import * as common from '../../schemas/common.js';
import * as connectors from '../../schemas/connectors.js';
import * as datasets from '../../schemas/datasets.js';
import * as environments from '../../schemas/environments.js';
import * as identity from '../../schemas/identity.js';
import * as jobs from '../../schemas/jobs.js';
import * as ontology from '../../schemas/ontology.js';
import * as ontologyLibraries from '../../schemas/ontology-libraries.js';
import * as query from '../../schemas/query.js';
import * as simulations from '../../schemas/simulations.js';
import * as sources from '../../schemas/sources.js';
import * as twins from '../../schemas/twins.js';
import * as workspaces from '../../schemas/workspaces.js';

const components = new Map<string, unknown>();
for (const module of [catalog, common, connectors, datasets, environments, identity, jobs, ontology, ontologyLibraries, query, simulations, sources, twins, workspaces]) {
  for (const value of Object.values(module)) {
    const id = (value as { $id?: unknown } | null)?.$id;
    if (typeof id === 'string' && !components.has(id)) components.set(id, value);
  }
}

/** A copy of `schema` with every component `$ref` replaced by the component and `$id`s dropped. */
export function selfContained(schema: unknown, depth = 0): unknown {
  if (Array.isArray(schema)) return schema.map((item) => selfContained(item, depth));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const target = components.get(ref.replace(/#$/, ''));
    // A component missing from the modules above is a mistake here, not a shape to leave open.
    if (target === undefined) throw new Error(`MCP schemas: no component ${ref} (add its module to src/mcp/schemas.ts)`);
    if (depth > 20) return {};
    return selfContained(target, depth + 1);
  }
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (key !== '$id') out[key] = selfContained(value, depth);
  return out;
}

/**
 * Readable resources: twins, versions (graph and evaluation), datasets and completed simulation runs, by stable URIs
 *
 *   causa://workspaces/{workspaceId}/digital-twins/{twinId}
 *   causa://workspaces/{workspaceId}/digital-twins/{twinId}/versions/{versionId}
 *   causa://workspaces/{workspaceId}/datasets/{datasetId}
 *   causa://workspaces/{workspaceId}/simulations/{runId}
 *
 * listed per workspace the caller can read (the newest of each kind), read as JSON through the same services and
 * scopes as the REST API.
 */
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { AppError } from '../errors.js';
import type { ToolServices } from './tool.js';

export const RESOURCE_TEMPLATES = [
  { uriTemplate: 'causa://workspaces/{workspaceId}/digital-twins/{twinId}', name: 'digital-twin', title: 'Digital twin', description: 'A twin: its type, data, input schema and versions', mimeType: 'application/json' },
  { uriTemplate: 'causa://workspaces/{workspaceId}/digital-twins/{twinId}/versions/{versionId}', name: 'twin-version', title: 'Twin version', description: 'A version: causal graph with orientations, nodes, evaluation, changelog', mimeType: 'application/json' },
  { uriTemplate: 'causa://workspaces/{workspaceId}/datasets/{datasetId}', name: 'dataset', title: 'Dataset', description: 'A dataset\'s definition and schema', mimeType: 'application/json' },
  { uriTemplate: 'causa://workspaces/{workspaceId}/simulations/{runId}', name: 'simulation-run', title: 'Simulation run', description: 'A completed run: scenario, outputs and summary', mimeType: 'application/json' },
];

/** Per workspace and kind, the newest resources listed (the templates reach the rest). */
const LISTED = 20;

interface Listed {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: 'application/json';
}

export async function listResources(services: ToolServices, principal: Principal): Promise<Listed[]> {
  const can = (scope: Scope) => principal.scopes.has(scope);
  const out: Listed[] = [];
  const spaces = can('sources:read') ? await services.workspaces.list(principal) : principal.workspaceId === null ? [] : [{ id: principal.workspaceId, name: principal.workspaceId }];
  for (const space of spaces) {
    const base = `causa://workspaces/${space.id}`;
    if (can('digital-twins:read')) {
      for (const twin of (await services.twins.list(principal, space.id, { limit: LISTED })).items) {
        out.push({ uri: `${base}/digital-twins/${twin.id}`, name: twin.name, title: `${twin.name} (${twin.type} twin)`, description: `Digital twin in ${space.name}`, mimeType: 'application/json' });
        const latest = twin.latestVersionId ?? null;
        if (latest !== null) out.push({ uri: `${base}/digital-twins/${twin.id}/versions/${latest}`, name: `${twin.name} latest version`, title: `${twin.name}: latest version (graph and evaluation)`, mimeType: 'application/json' });
      }
    }
    if (can('datasets:read')) {
      for (const dataset of (await services.datasets.list(principal, space.id, { limit: LISTED })).items) {
        out.push({ uri: `${base}/datasets/${dataset.id}`, name: dataset.name, title: `${dataset.name} (dataset)`, description: `Dataset in ${space.name}`, mimeType: 'application/json' });
      }
    }
    if (can('simulations:read')) {
      for (const run of (await services.simulations.list(principal, space.id, { limit: LISTED, status: 'completed' })).items) {
        out.push({ uri: `${base}/simulations/${run.id}`, name: run.id, title: `${run.scenarioType} run ${run.id}`, description: `Completed simulation run in ${space.name}`, mimeType: 'application/json' });
      }
    }
  }
  return out;
}

const PATTERNS: Array<{ pattern: RegExp; scope: Scope; read(services: ToolServices, principal: Principal, ids: string[]): Promise<unknown> }> = [
  { pattern: /^causa:\/\/workspaces\/([^/]+)\/digital-twins\/([^/]+)$/, scope: 'digital-twins:read', read: (s, p, [ws, id]) => s.twins.get(p, ws!, id!) },
  { pattern: /^causa:\/\/workspaces\/([^/]+)\/digital-twins\/([^/]+)\/versions\/([^/]+)$/, scope: 'digital-twins:read', read: (s, p, [ws, id, v]) => s.twins.getVersion(p, ws!, id!, v!) },
  { pattern: /^causa:\/\/workspaces\/([^/]+)\/datasets\/([^/]+)$/, scope: 'datasets:read', read: (s, p, [ws, id]) => s.datasets.get(p, ws!, id!) },
  { pattern: /^causa:\/\/workspaces\/([^/]+)\/simulations\/([^/]+)$/, scope: 'simulations:read', read: async (s, p, [ws, id]) => JSON.parse(await s.simulations.get(p, ws!, id!)) as unknown },
];

/** The resource's JSON; AppError not_found for a URI that names nothing (or nothing the caller may read). */
export async function readResource(services: ToolServices, principal: Principal, uri: string): Promise<{ uri: string; mimeType: string; text: string }> {
  for (const { pattern, scope, read } of PATTERNS) {
    const match = pattern.exec(uri);
    if (match === null) continue;
    if (!principal.scopes.has(scope)) throw new AppError('missing_scope', `Reading ${uri} needs the scope ${scope}`);
    const value = await read(services, principal, match.slice(1).map(decodeURIComponent));
    return { uri, mimeType: 'application/json', text: JSON.stringify(value) };
  }
  throw new AppError('not_found', `${uri} is not a resource of this service (templates: resources/templates/list)`);
}

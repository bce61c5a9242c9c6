/**
 * completion/complete (an optional MCP capability): values for a prompt's argument or a resource template's
 * variable, from what the caller can read: workspaces, twins, versions, datasets, runs, sources, and the variables
 * of a twin. A value matches when its id starts with what was typed or its name contains it (case-insensitive);
 * the arguments already given (`context.arguments`, from 2025-06-18) narrow the search (a workspace, a twin).
 */
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import { AppError } from '../errors.js';
import { PROMPTS } from './prompts.js';
import { RESOURCE_TEMPLATES } from './resources.js';
import type { ToolServices } from './tool.js';

/** The most values one completion answers (the MCP limit). */
const MAX_VALUES = 100;
/** Workspaces searched when none is named. */
const MAX_WORKSPACES = 10;
/** Items read per list. */
const LISTED = 200;

interface Named {
  id: string;
  name: string;
}

export interface CompletionRequest {
  ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string };
  argument: { name: string; value: string };
  context: Record<string, string>;
}

export interface Completion {
  values: string[];
  total: number;
  hasMore: boolean;
}

type Completer = (services: ToolServices, principal: Principal, context: Record<string, string>) => Promise<Named[]>;

/** The workspaces to look in: the one named, the credential's own, or the first the caller can read. */
async function workspaces(services: ToolServices, principal: Principal, context: Record<string, string>): Promise<string[]> {
  if (context.workspaceId !== undefined) return [context.workspaceId];
  if (principal.workspaceId !== null) return [principal.workspaceId];
  return (await services.workspaces.list(principal)).slice(0, MAX_WORKSPACES).map((w) => w.id);
}

/** Items of each workspace searched; a workspace the caller cannot read adds nothing. */
const perWorkspace = <T extends Named>(scope: Scope, list: (services: ToolServices, principal: Principal, workspaceId: string) => Promise<T[]>) => async (services: ToolServices, principal: Principal, context: Record<string, string>): Promise<T[]> => {
  if (!principal.scopes.has(scope)) return [];
  const out: T[] = [];
  for (const workspaceId of await workspaces(services, principal, context)) {
    try {
      out.push(...(await list(services, principal, workspaceId)));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
  }
  return out;
};

const twinsOf = perWorkspace('digital-twins:read', async (s, p, ws) => (await s.twins.list(p, ws, { limit: LISTED })).items);

/** The twin named in the context (with or without its workspace), or the twins searched. */
async function twinsInContext(services: ToolServices, principal: Principal, context: Record<string, string>) {
  const twins = await twinsOf(services, principal, context);
  return context.twinId === undefined ? twins : twins.filter((twin) => twin.id === context.twinId);
}

const COMPLETERS: Record<string, Completer> = {
  workspaceId: async (services, principal) => (principal.scopes.has('sources:read') ? services.workspaces.list(principal) : []),
  twinId: twinsOf,
  versionId: async (services, principal, context) => {
    const out: Named[] = [];
    for (const twin of await twinsInContext(services, principal, context)) {
      for (const version of (await services.twins.listVersions(principal, twin.workspaceId, twin.id, { limit: LISTED })).items) out.push({ id: version.id, name: `${twin.name} ${version.version}` });
    }
    return out;
  },
  datasetId: perWorkspace('datasets:read', async (s, p, ws) => (await s.datasets.list(p, ws, { limit: LISTED })).items),
  runId: perWorkspace('simulations:read', async (s, p, ws) => (await s.simulations.list(p, ws, { limit: LISTED })).items.map((run) => ({ id: run.id, name: run.scenarioType }))),
  data: async (services, principal, context) => [
    ...(await perWorkspace('sources:read', async (s, p, ws) => (await s.sources.listForWorkspace(p, ws, { limit: LISTED })).items)(services, principal, context)),
    ...(await COMPLETERS.datasetId!(services, principal, context)),
  ],
};

/** A twin's variables (the columns it models): the twin in the context, else every twin searched. */
const variables: Completer = async (services, principal, context) => {
  const names = new Set<string>();
  for (const twin of await twinsInContext(services, principal, context)) for (const entry of twin.canonicalInputSchema) names.add(entry.field);
  return [...names].map((name) => ({ id: name, name }));
};
for (const name of ['metric', 'outcome', 'target']) COMPLETERS[name] = variables;

export async function complete(services: ToolServices, principal: Principal, request: CompletionRequest): Promise<Completion> {
  const { ref, argument, context } = request;
  if (ref.type === 'ref/prompt' && !PROMPTS.some((prompt) => prompt.name === ref.name)) throw new AppError('validation_failed', `No prompt is named ${ref.name} (prompts/list)`);
  if (ref.type === 'ref/resource' && !RESOURCE_TEMPLATES.some((template) => template.uriTemplate === ref.uri)) throw new AppError('validation_failed', `No resource template is ${ref.uri} (resources/templates/list)`);
  const completer = COMPLETERS[argument.name];
  if (completer === undefined) return { values: [], total: 0, hasMore: false };
  const typed = argument.value.toLowerCase();
  const matches = new Set<string>();
  for (const item of await completer(services, principal, context)) {
    if (item.id.toLowerCase().startsWith(typed) || item.name.toLowerCase().includes(typed)) matches.add(item.id);
  }
  const values = [...matches];
  return { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES };
}

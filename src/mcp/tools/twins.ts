/** Digital twins as MCP tools: list, create, versions, the fixed graph, learning (the routes' services and schemas). */
import { Type } from 'typebox';
import { JobAcceptedSchema } from '../../../schemas/jobs.js';
import { CreateTwinBody, DigitalTwinSchema, FixedSubGraphSchema, PatchFixedGraphBody, RunPipelineBody, TwinVersionSchema } from '../../../schemas/twins.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, page, followJob } from '../tool.js';

const TwinId = IdOf('Digital twin');
const VersionId = IdOf('Twin version');

export const twinTools: Tool[] = [
  defineTool({
    name: 'list_twins', title: 'List digital twins', scope: 'digital-twins:read', effect: 'read',
    description: 'The digital twins (causal models) of a workspace, newest first, with their type, data and latest version.',
    input: { workspaceId: WorkspaceId, ...PageMembers }, output: ListOf(DigitalTwinSchema),
    run: async ({ services, principal, args }) => {
      const listed = await services.twins.list(principal, args.workspaceId, page(args));
      return { items: listed.items, pagination: listed.pagination };
    },
  }),
  defineTool({
    name: 'get_twin', title: 'Read a digital twin', scope: 'digital-twins:read', effect: 'read',
    description: 'One twin: its input schema, its versions\' ids, and the questions it suggests.',
    input: { workspaceId: WorkspaceId, twinId: TwinId }, output: DigitalTwinSchema,
    run: ({ services, principal, args }) => services.twins.get(principal, args.workspaceId, args.twinId),
  }),
  defineTool({
    name: 'create_twin', title: 'Create a digital twin', scope: 'digital-twins:write', effect: 'write',
    description: 'Creates a twin over a source or dataset (type static, temporal, multi-environment-static or multi-environment-temporal) and its first version; nothing is learned until run_pipeline.',
    input: { workspaceId: WorkspaceId, ...CreateTwinBody.properties }, output: DigitalTwinSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return services.twins.create(principal, workspaceId, body as never);
    },
  }),
  defineTool({
    name: 'list_twin_versions', title: 'List twin versions', scope: 'digital-twins:read', effect: 'read',
    description: 'The versions of a twin, newest first: status (created, discovered, trained), graph and evaluation.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, ...PageMembers }, output: ListOf(TwinVersionSchema),
    run: async ({ services, principal, args }) => {
      const listed = await services.twins.listVersions(principal, args.workspaceId, args.twinId, page(args));
      return { items: listed.items, pagination: listed.pagination };
    },
  }),
  defineTool({
    name: 'get_twin_version', title: 'Read a twin version', scope: 'digital-twins:read', effect: 'read',
    description: 'One version: its causal graph (each edge with orientation: compelled, fixed, assumed or reversible), nodes, evaluation and changelog.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: VersionId }, output: TwinVersionSchema,
    run: ({ services, principal, args }) => services.twins.getVersion(principal, args.workspaceId, args.twinId, args.versionId),
  }),
  defineTool({
    name: 'get_fixed_graph', title: 'Read the fixed graph', scope: 'digital-twins:read', effect: 'read',
    description: 'The edges pinned present (relationships) and forbidden (antiRelationships) on a version.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: VersionId }, output: FixedSubGraphSchema,
    run: ({ services, principal, args }) => services.twins.getFixedGraph(principal, args.workspaceId, args.twinId, args.versionId),
  }),
  defineTool({
    name: 'update_fixed_graph', title: 'Pin or forbid edges', scope: 'digital-twins:write', effect: 'write', idempotent: true,
    description: 'Pins edges present or forbidden on a version before it learns (what the user knows; a reversible edge that decides an answer is the one to pin). Retrain with run_pipeline.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: VersionId, ...PatchFixedGraphBody.properties }, output: FixedSubGraphSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, versionId, ...body } = args;
      return services.twins.patchFixedGraph(principal, workspaceId, twinId, versionId, body as never);
    },
  }),
  defineTool({
    name: 'run_pipeline', title: 'Learn a twin', scope: 'digital-twins:execute', effect: 'long',
    description: 'Starts learning the twin\'s newest version: discovery of the causal graph, then training. Answers the job id; follow it with get_job.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, ...RunPipelineBody.properties }, output: JobAcceptedSchema,
    intent: (args) => `start a learning job (discovery and training) on twin ${String(args.twinId)}; it runs for seconds to minutes`,
    follow: followJob,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, ...body } = args;
      return services.twins.runPipeline(principal, workspaceId, twinId, body as never);
    },
  }),
  defineTool({
    name: 'delete_twin', title: 'Delete a digital twin', scope: 'digital-twins:delete', effect: 'destructive',
    description: 'Deletes a twin with its versions and models (its simulation runs stay as history).',
    input: { workspaceId: WorkspaceId, twinId: TwinId }, output: Type.Object({ deleted: Type.Boolean() }),
    intent: (args) => `delete twin ${String(args.twinId)} with every version and model`,
    run: async ({ services, principal, args }) => {
      await services.twins.delete(principal, args.workspaceId, args.twinId);
      return { deleted: true };
    },
  }),
];

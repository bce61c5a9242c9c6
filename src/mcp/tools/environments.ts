/**
 * Multi-environment twins as MCP tools: the environments a version read, environment groups (list, read, create,
 * update, delete, resolve) and graph slices (the routes' services and schemas).
 */
import { Type } from 'typebox';
import {
  CreateEnvironmentGroupBody,
  EnvironmentGroupSchema,
  EnvironmentListQuery,
  EnvironmentListSchema,
  EnvironmentResolutionSchema,
  GraphSliceBody,
  GraphSliceSchema,
  PatchEnvironmentGroupBody,
  ResolveEnvironmentGroupBody,
} from '../../../schemas/environments.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, listed, page } from '../tool.js';

const TwinId = IdOf('Digital twin');
const GroupId = IdOf('Environment group');

export const environmentTools: Tool[] = [
  defineTool({
    name: 'list_environments', title: 'List a twin\'s environments', scope: 'digital-twins:read', effect: 'read',
    description: 'The environments (stores, regions, machines: combinations of the environment columns) of a multi-environment twin\'s version, with row counts and statistics; `q` filters on the key. Default: the newest version that read its data.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: Type.Optional(IdOf('Twin version')), ...EnvironmentListQuery.properties }, output: EnvironmentListSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, versionId, ...query } = args;
      return services.environments.listEnvironments(principal, workspaceId, twinId, query, versionId);
    },
  }),
  defineTool({
    name: 'list_environment_groups', title: 'List environment groups', scope: 'digital-twins:read', effect: 'read',
    description: 'The saved environment groups of a multi-environment twin (a named selection of environments that panel questions and graph slices can name).',
    input: { workspaceId: WorkspaceId, twinId: TwinId, ...PageMembers }, output: ListOf(EnvironmentGroupSchema),
    run: async ({ services, principal, args }) => listed(await services.environments.listGroups(principal, args.workspaceId, args.twinId, page(args))),
  }),
  defineTool({
    name: 'get_environment_group', title: 'Read an environment group', scope: 'digital-twins:read', effect: 'read',
    description: 'One environment group: its definition (by environments, column values or statistics filters) and agreement threshold.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, groupId: GroupId }, output: EnvironmentGroupSchema,
    run: ({ services, principal, args }) => services.environments.getGroup(principal, args.workspaceId, args.twinId, args.groupId),
  }),
  defineTool({
    name: 'resolve_environment_group', title: 'Which environments a group matches', scope: 'digital-twins:read', effect: 'read',
    description: 'The environments a definition (inline, or a saved group by groupId) matches on a version, without saving anything. Try a definition here before creating a group.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, ...ResolveEnvironmentGroupBody.properties }, output: EnvironmentResolutionSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, ...body } = args;
      return services.environments.resolve(principal, workspaceId, twinId, body as never);
    },
  }),
  defineTool({
    name: 'create_environment_group', title: 'Create an environment group', scope: 'digital-twins:write', effect: 'write',
    description: 'Saves a named environment group on a multi-environment twin (names are unique within the twin).',
    input: { workspaceId: WorkspaceId, twinId: TwinId, ...CreateEnvironmentGroupBody.properties }, output: EnvironmentGroupSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, ...body } = args;
      return services.environments.createGroup(principal, workspaceId, twinId, body as never);
    },
  }),
  defineTool({
    name: 'update_environment_group', title: 'Update an environment group', scope: 'digital-twins:write', effect: 'write', idempotent: true,
    description: 'Changes a group\'s name, definition or agreement threshold (runs already submitted keep the environments frozen at their submit).',
    input: { workspaceId: WorkspaceId, twinId: TwinId, groupId: GroupId, ...PatchEnvironmentGroupBody.properties }, output: EnvironmentGroupSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, groupId, ...body } = args;
      return services.environments.updateGroup(principal, workspaceId, twinId, groupId, body as never);
    },
  }),
  defineTool({
    name: 'delete_environment_group', title: 'Delete an environment group', scope: 'digital-twins:write', effect: 'destructive',
    description: 'Deletes a saved environment group (runs that named it keep their frozen snapshot).',
    input: { workspaceId: WorkspaceId, twinId: TwinId, groupId: GroupId }, output: Type.Object({ deleted: Type.Boolean() }),
    intent: (args) => `delete environment group ${String(args.groupId)} of twin ${String(args.twinId)}`,
    run: async ({ services, principal, args }) => {
      await services.environments.deleteGroup(principal, args.workspaceId, args.twinId, args.groupId);
      return { deleted: true };
    },
  }),
  defineTool({
    name: 'slice_graph', title: 'Slice a twin\'s graph by environments', scope: 'digital-twins:read', effect: 'read',
    description: 'The causal graph over a subset of environments (an inline definition or a saved group): each edge with its strength and the share of those environments where it holds (agreement), kept when at least agreementThreshold.',
    input: { workspaceId: WorkspaceId, twinId: TwinId, versionId: IdOf('Twin version'), ...GraphSliceBody.properties }, output: GraphSliceSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, twinId, versionId, ...body } = args;
      return services.environments.slice(principal, workspaceId, twinId, versionId, body as never);
    },
  }),
];

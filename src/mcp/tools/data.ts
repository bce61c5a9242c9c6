/** Workspaces, sources and datasets as MCP tools (the routes' services, the routes' schemas). */
import { Type } from 'typebox';
import { CreateDatasetBody, DatasetSchema, ValidateDatasetBody } from '../../../schemas/datasets.js';
import { FromDataBody, OrgSourceSchema, SourceSchema } from '../../../schemas/sources.js';
import { CreateWorkspaceBody, WorkspaceSchema } from '../../../schemas/workspaces.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, listed, page } from '../tool.js';

export const dataTools: Tool[] = [
  defineTool({
    name: 'list_workspaces', title: 'List workspaces', scope: 'sources:read', effect: 'read',
    description: 'The workspaces the caller can read. Every other tool names one by its id.',
    input: {}, output: ListOf(WorkspaceSchema),
    run: async ({ services, principal }) => ({ items: await services.workspaces.list(principal) }),
  }),
  defineTool({
    name: 'create_workspace', title: 'Create a workspace', scope: 'sources:write', effect: 'write',
    description: 'Creates a workspace; the caller becomes its owner. Names are unique in the organisation.',
    input: CreateWorkspaceBody.properties, output: WorkspaceSchema,
    run: ({ services, principal, args }) => services.workspaces.create(principal, { name: args.name, ...(args.description === undefined ? {} : { description: args.description }) }),
  }),
  defineTool({
    name: 'list_sources', title: 'List data sources', scope: 'sources:read', effect: 'read',
    description: 'The data sources (uploaded files, imported tables, inline rows) of a workspace, newest first, with their columns.',
    input: { workspaceId: WorkspaceId, ...PageMembers }, output: ListOf(SourceSchema),
    run: async ({ services, principal, args }) => listed(await services.sources.listForWorkspace(principal, args.workspaceId, page(args))),
  }),
  defineTool({
    name: 'get_source', title: 'Read a data source', scope: 'sources:read', effect: 'read',
    description: 'One data source: its schema (column types), row count and per-column statistics (columnMetadata: missing share, distinct values, range, mean).',
    input: { sourceId: IdOf('Source') }, output: OrgSourceSchema,
    run: ({ services, principal, args }) => services.sources.get(principal, args.sourceId),
  }),
  defineTool({
    name: 'create_source_from_rows', title: 'Create a source from rows', scope: 'sources:write', effect: 'write',
    description: 'Creates a tabular source from inline records (an array of objects, one per row); column types are inferred.',
    input: { workspaceId: WorkspaceId, ...FromDataBody.properties }, output: SourceSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return services.sourceBatches.createFromData(principal, workspaceId, body as never);
    },
  }),
  defineTool({
    name: 'list_datasets', title: 'List datasets', scope: 'datasets:read', effect: 'read',
    description: 'The datasets of a workspace: sources shaped (joined, filtered, derived columns) for learning twins.',
    input: { workspaceId: WorkspaceId, ...PageMembers }, output: ListOf(DatasetSchema),
    run: async ({ services, principal, args }) => listed(await services.datasets.list(principal, args.workspaceId, page(args))),
  }),
  defineTool({
    name: 'create_dataset', title: 'Create a dataset', scope: 'datasets:write', effect: 'write',
    description: 'Creates a dataset from sources and operations (as POST .../datasets). validate_dataset checks a definition first.',
    input: { workspaceId: WorkspaceId, ...CreateDatasetBody.properties }, output: DatasetSchema,
    run: ({ services, principal, args }) => {
      const { workspaceId, ...body } = args;
      return services.datasets.create(principal, workspaceId, body as never);
    },
  }),
  defineTool({
    name: 'validate_dataset', title: 'Validate a dataset definition', scope: 'datasets:write', effect: 'read',
    description: 'Checks a dataset\'s definition (or changed sources and operations) and answers the resulting schema and any problems, changing nothing.',
    input: { workspaceId: WorkspaceId, datasetId: IdOf('Dataset'), ...ValidateDatasetBody.properties },
    run: ({ services, principal, args }) => {
      const { workspaceId, datasetId, ...body } = args;
      return services.datasets.validate(principal, workspaceId, datasetId, body as never);
    },
  }),
  defineTool({
    name: 'get_dataset_records', title: 'Read dataset records', scope: 'datasets:read', effect: 'read',
    description: 'A page of a dataset\'s rows.',
    input: { workspaceId: WorkspaceId, datasetId: IdOf('Dataset'), ...PageMembers },
    output: Type.Object({ items: Type.Array(Type.Record(Type.String(), Type.Unknown())), pagination: Type.Optional(Type.Unknown()) }),
    run: async ({ services, principal, args }) => listed(await services.datasets.records(principal, args.workspaceId, args.datasetId, page(args))),
  }),
];

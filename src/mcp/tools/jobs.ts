/** Jobs and connectors as MCP tools. */
import { BrowseEntrySchema, BrowseMembers, ConnectorSchema, ImportBody, PreviewBody } from '../../../schemas/connectors.js';
import { JobAcceptedSchema, JobSchema } from '../../../schemas/jobs.js';
import { IdOf, ListOf, PageMembers, type Tool, WorkspaceId, defineTool, followJob, listed, page } from '../tool.js';

const ConnectorId = IdOf('Connector');

export const jobTools: Tool[] = [
  defineTool({
    name: 'get_job', title: 'Read a job', scope: 'jobs:read', effect: 'read',
    description: 'A learning or import job: status (queued, running, completed, failed, cancelled), progress and result.',
    input: { workspaceId: WorkspaceId, jobId: IdOf('Job') }, output: JobSchema,
    run: ({ services, principal, args }) => services.jobs.get(principal, args.workspaceId, args.jobId),
  }),
  defineTool({
    name: 'cancel_job', title: 'Cancel a job', scope: 'jobs:read', effect: 'destructive', idempotent: true,
    description: 'Cancels a queued or running job; its partial work is discarded.',
    input: { workspaceId: WorkspaceId, jobId: IdOf('Job') },
    intent: (args) => `cancel job ${String(args.jobId)} and discard its partial work`,
    run: ({ services, principal, args }) => services.jobs.cancel(principal, args.workspaceId, args.jobId),
  }),
  defineTool({
    name: 'list_connectors', title: 'List database connectors', scope: 'connectors:read', effect: 'read',
    description: 'The organisation\'s connectors to databases and warehouses (credentials are never shown).',
    input: { ...PageMembers }, output: ListOf(ConnectorSchema),
    run: async ({ services, principal, args }) => listed(await services.connectors.list(principal, page(args))),
  }),
  defineTool({
    name: 'browse_connector', title: 'Browse a connector', scope: 'connectors:read', effect: 'read', openWorld: true,
    description: 'Lists one level of what a connector reaches: PostgreSQL databases, schemas, tables (context schema), columns (schema, table); MySQL/MariaDB and ClickHouse databases, tables (database), columns (database, table); storage files (path).',
    input: { connectorId: ConnectorId, ...BrowseMembers },
    output: ListOf(BrowseEntrySchema),
    run: async ({ services, principal, args, signal }) => {
      const { connectorId, ...query } = args;
      return { items: await services.connectors.browse(principal, connectorId, query as Record<string, string>, signal) };
    },
  }),
  defineTool({
    name: 'preview_connector', title: 'Preview a table or query', scope: 'connectors:read', effect: 'read', openWorld: true,
    description: 'The first rows of a table or a read-only query on a connector.',
    input: { connectorId: ConnectorId, ...PreviewBody.properties },
    run: ({ services, principal, args, signal }) => {
      const { connectorId, ...body } = args;
      return services.connectors.preview(principal, connectorId, body as never, signal);
    },
  }),
  defineTool({
    name: 'import_from_connector', title: 'Import a table', scope: 'connectors:write', effect: 'long', openWorld: true,
    description: 'Starts importing a table or query from a connector into a workspace as a source. Answers the job id; follow it with get_job.',
    input: { connectorId: ConnectorId, ...ImportBody.properties }, output: JobAcceptedSchema,
    intent: (args) => `start an import job from connector ${String(args.connectorId)} into workspace ${String(args.workspaceId)}`,
    follow: followJob,
    run: ({ services, principal, args }) => {
      const { connectorId, ...body } = args;
      return services.connectors.import(principal, connectorId, body as never);
    },
  }),
];

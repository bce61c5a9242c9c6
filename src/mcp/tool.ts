/**
 * An MCP tool as one typed entry: its name, title and description, the scope it needs, what it does to the world
 * (annotations), its input schema (built from the REST API's TypeBox schemas, so the two never drift) and the
 * service call it makes. Tools call the services the routes call, with the caller's principal; never HTTP.
 */
import { type TObject, type TProperties, type TSchema, Type } from 'typebox';
import type { Principal } from '../auth/principal.js';
import type { Scope } from '../auth/scopes.js';
import type { Context } from '../context.js';

export type ToolServices = Pick<Context, 'workspaces' | 'sources' | 'sourceBatches' | 'datasets' | 'ontology' | 'ontologyLibraries' | 'queries' | 'dataViews' | 'connectors' | 'twins' | 'environments' | 'simulations' | 'jobs'>;

/**
 * read: no effect on the world; write: creates or changes (idempotentHint when repeating changes nothing more);
 * destructive: deletes or cancels; long: starts a job or run. destructive and long need `confirm: true`.
 */
export type ToolEffect = 'read' | 'write' | 'destructive' | 'long';

export interface ToolCall<A> {
  principal: Principal;
  services: ToolServices;
  args: A;
  signal: AbortSignal;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  effect: ToolEffect;
  /** Repeating the call with the same arguments changes nothing more (a PUT-like write). */
  idempotent?: boolean;
  /** Reaches outside the service (a connector's database). */
  openWorld?: boolean;
  input: TObject;
  /** The structured result's shape (an object), from 2025-06-18. */
  output?: TSchema;
  /** What the tool would do, said when `confirm` is missing. */
  intent(args: Record<string, unknown>): string;
  run(call: ToolCall<Record<string, unknown>>): Promise<unknown>;
  /**
   * Long tools: the state of the job or run `run` started, read again (the caller sent a progress token, so the call
   * follows the work to its end and reports progress on the way).
   */
  follow?(call: ToolCall<Record<string, unknown>>, started: Record<string, any>): Promise<Followed>;
}

/** A job's or run's state as a long tool follows it. */
export interface Followed {
  status: string;
  progress: { percentage: number; state: string };
  /** The record read (the job, or the run with its outputs once completed). */
  record: unknown;
}

/** Terminal states of jobs and runs. */
export const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

const Confirm = Type.Boolean({ description: 'Must be true: this tool deletes, cancels or starts long-running work' });

/**
 * A tool from its members; `input` properties are the path ids and the REST body's members. Destructive and
 * long-running tools take `confirm`.
 */
export function defineTool<P extends TProperties>(tool: Omit<Tool, 'input' | 'run' | 'intent' | 'follow'> & {
  input: P;
  intent?: (args: Record<string, unknown>) => string;
  run(call: ToolCall<Record<string, any>>): Promise<unknown>;
  follow?(call: ToolCall<Record<string, any>>, started: Record<string, any>): Promise<Followed>;
}): Tool {
  const needsConfirm = tool.effect === 'destructive' || tool.effect === 'long';
  // A followed call answers what it started and the final record.
  const output = tool.follow !== undefined && tool.output !== undefined && 'properties' in tool.output
    ? Type.Object({ ...(tool.output as TObject).properties, final: Type.Optional(Type.Unknown({ description: 'With a progress token: the job or run as it ended' })) })
    : tool.output;
  return {
    ...tool,
    ...(output === undefined ? {} : { output }),
    input: Type.Object({ ...tool.input, ...(needsConfirm ? { confirm: Type.Optional(Confirm) } : {}) }, { additionalProperties: false }),
    intent: tool.intent ?? (() => tool.description),
  };
}

/** A workspace id member. */
export const WorkspaceId = Type.String({ minLength: 1, maxLength: 64, description: 'Workspace id (list_workspaces)' });
export const IdOf = (what: string) => Type.String({ minLength: 1, maxLength: 64, description: `${what} id` });
export const PageMembers = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Page size (default 50)' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'The pagination cursor of the previous page' })),
};
/** A list tool's page arguments as the services take them. */
export const page = (args: { limit?: number; cursor?: string }) => ({ ...(args.limit === undefined ? {} : { limit: args.limit }), ...(args.cursor === undefined ? {} : { cursor: args.cursor }) });

/** A list tool's structured result. */
export const ListOf = (item: TSchema) => Type.Object({ items: Type.Array(item), pagination: Type.Optional(Type.Unknown()) });
/** A service's page as a list tool's result (the shape ListOf describes). */
export const listed = <T>(p: { items: T[]; pagination: unknown }) => ({ items: p.items, pagination: p.pagination });

/** Follows a job started by a long tool (learning, imports). */
export const followJob = async ({ services, principal, args }: ToolCall<Record<string, any>>, started: Record<string, any>): Promise<Followed> => {
  const job = await services.jobs.get(principal, args.workspaceId, started.jobId);
  return { status: job.status, progress: job.progress, record: job };
};

/** Follows a simulation run started by a long tool. */
export const followRun = async ({ services, principal, args }: ToolCall<Record<string, any>>, started: Record<string, any>): Promise<Followed> => {
  const run = JSON.parse(await services.simulations.get(principal, args.workspaceId, started.runId)) as { status: string; progress: Followed['progress'] };
  return { status: run.status, progress: run.progress, record: run };
};

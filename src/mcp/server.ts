/**
 * The MCP dispatcher: one JSON-RPC message in, its response out (null for notifications and responses), for a
 * caller (the REST principal) on a negotiated revision. Transports (routes.ts) carry the messages; this file knows
 * the methods: initialize, ping, tools, resources, prompts.
 */
import { Compile } from 'typebox/compile';
import type { Principal } from '../auth/principal.js';
import { AppError } from '../errors.js';
import { GzipPrefix } from '../lib/gzip-prefix.js';
import { PROMPTS, promptMessages } from './prompts.js';
import { type Id, REVISIONS, RPC, type Revision, type RpcResponse, features, negotiate, rpcError, rpcResult, statelessRevision } from './protocol.js';
import { type CompletionRequest, complete } from './completions.js';
import { RESOURCE_TEMPLATES, listResources, readResource } from './resources.js';
import { LOG_LEVELS, type LogLevel, type McpSessions, isLogLevel } from './sessions.js';
import { selfContained } from './schemas.js';
import { TERMINAL, type Tool, type ToolServices } from './tool.js';
import { TOOLS, toolNamed } from './tools/index.js';

/**
 * Results kept between calls (tools/list), encoded once: the response up to its id as UTF-8 bytes, and for a large
 * one the same gzipped (`{"jsonrpc":"2.0","result":...,"id":` is constant; only the id and `}` differ per call).
 */
interface Preserialized {
  prefix: Buffer;
  gzip: GzipPrefix | undefined;
}
const PRESERIALIZED = new WeakMap<object, Preserialized>();
/** Smaller answers are not worth compressing. */
const GZIP_FROM_BYTES = 1024;

function keepSerialized(result: Record<string, unknown>): void {
  const prefix = Buffer.from(`{"jsonrpc":"2.0","result":${JSON.stringify(result)},"id":`);
  PRESERIALIZED.set(result, { prefix, gzip: prefix.length >= GZIP_FROM_BYTES ? new GzipPrefix(prefix) : undefined });
}

/** A response as JSON bytes; gzipped when the client accepts it and the result was kept with a compressed form. */
export function encodeResponse(response: RpcResponse, acceptsGzip = false): { body: Buffer; gzipped: boolean } {
  const kept = 'result' in response ? PRESERIALIZED.get(response.result) : undefined;
  if (kept === undefined) return { body: Buffer.from(JSON.stringify(response)), gzipped: false };
  const tail = Buffer.from(`${JSON.stringify(response.id)}}`);
  if (acceptsGzip && kept.gzip !== undefined) return { body: kept.gzip.with(tail), gzipped: true };
  return { body: Buffer.concat([kept.prefix, tail]), gzipped: false };
}

export const SERVER_INFO = { name: 'causa', title: 'Causa', version: '0.1.0' };

const INSTRUCTIONS = 'Causa learns causal models (digital twins) of tabular data and answers questions on them as asynchronous simulation runs. '
  + 'Journey: list_workspaces -> list_sources / create_source_from_rows -> create_twin -> run_pipeline (confirm) -> get_job -> scenario_from_query -> submit_simulation (confirm) -> get_simulation. '
  + 'Resources hold twins, versions, datasets and completed runs; prompts are the platform\'s skills.';

/** JSON-RPC error for a resource that does not exist (MCP's resource-not-found code). */
const RESOURCE_NOT_FOUND = -32002;

export interface McpCall {
  principal: Principal;
  revision: Revision;
  signal: AbortSignal;
  /** Sends a notification to the client before the response (an event stream is open); absent otherwise. */
  notify?: (message: Record<string, unknown>) => void;
}

/** How often a followed job or run is read again. */
const FOLLOW_INTERVAL_MS = 250;
/** A followed call gives up waiting (answering the state it reached) after this long. */
const FOLLOW_LIMIT_MS = 10 * 60_000;

const validators = new WeakMap<Tool, ReturnType<typeof Compile>>();
const validatorOf = (tool: Tool) => {
  let validator = validators.get(tool);
  if (validator === undefined) validators.set(tool, (validator = Compile(tool.input)));
  return validator;
};

export class McpServer {
  constructor(private readonly services: ToolServices, private readonly sessions: McpSessions) {}

  /**
   * A message already parsed; `null` when it needs no response (a notification, or a client's response). Methods
   * answered from memory (ping, tools/list, prompts) answer synchronously, the others with a promise.
   */
  handle(message: unknown, call: McpCall): RpcResponse | null | Promise<RpcResponse | null> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) return rpcError(null, RPC.invalidRequest, 'A JSON-RPC message is an object');
    const { jsonrpc, method, params, id } = message as { jsonrpc?: unknown; method?: unknown; params?: unknown; id?: unknown };
    const validId = id === undefined || id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
    const replyId: Id = validId && id !== undefined ? (id as Id) : null;
    if (jsonrpc !== '2.0' || !validId) return rpcError(replyId, RPC.invalidRequest, 'jsonrpc must be "2.0" and id a string, a number or null');
    if (typeof method !== 'string') {
      // A client's response (result or error) to a server request: nothing to answer.
      if ('result' in message || 'error' in message) return null;
      return rpcError(replyId, RPC.invalidRequest, 'method is required');
    }
    if (params !== undefined && params !== null && (typeof params !== 'object' || Array.isArray(params))) return rpcError(replyId, RPC.invalidParams, 'params must be an object');
    const p = (params ?? {}) as Record<string, unknown>;
    const notification = id === undefined;
    const stateless = statelessRevision(p);
    if (stateless !== null) return rpcError(replyId, RPC.unsupportedProtocolVersion, `Unsupported protocol version ${stateless}`, { supported: [...REVISIONS], requested: stateless });
    if (notification) return null;
    const answer = (result: Record<string, unknown> | undefined) => (result === undefined ? rpcError(replyId, RPC.methodNotFound, `Method ${method} is not supported`) : rpcResult(replyId, result));
    const failure = (error: unknown) => {
      if (error instanceof RpcFault) return rpcError(replyId, error.code, error.message, error.data);
      if (error instanceof AppError) {
        const code = error.code === 'not_found' && method.startsWith('resources/') ? RESOURCE_NOT_FOUND : error.status < 500 ? RPC.invalidParams : RPC.internalError;
        return rpcError(replyId, code, error.detail, error.toProblem());
      }
      return rpcError(replyId, RPC.internalError, 'The request failed inside the service');
    };
    try {
      const result = this.dispatch(method, p, call);
      return result instanceof Promise ? result.then(answer, failure) : answer(result);
    } catch (error) {
      return failure(error);
    }
  }

  private dispatch(method: string, params: Record<string, unknown>, call: McpCall): Record<string, unknown> | undefined | Promise<Record<string, unknown>> {
    switch (method) {
      case 'initialize':
        return {
          protocolVersion: negotiate(params.protocolVersion),
          capabilities: { tools: { listChanged: false }, resources: { subscribe: true, listChanged: false }, prompts: { listChanged: false }, logging: {}, completions: {} },
          serverInfo: SERVER_INFO,
          instructions: INSTRUCTIONS,
        };
      case 'ping':
        return {};
      case 'tools/list':
        return this.toolList(call);
      case 'tools/call':
        return this.callTool(params, call);
      case 'resources/list':
        return listResources(this.services, call.principal).then((resources) => ({ resources }));
      case 'resources/templates/list':
        return { resourceTemplates: RESOURCE_TEMPLATES };
      case 'resources/read':
        return readResource(this.services, call.principal, uriOf(params, method)).then((content) => ({ contents: [content] }));
      case 'resources/subscribe': {
        const uri = uriOf(params, method);
        return readResource(this.services, call.principal, uri).then((content) => (this.sessions.subscribe(call.principal, uri, content.text), {}));
      }
      case 'resources/unsubscribe':
        this.sessions.unsubscribe(call.principal, uriOf(params, method));
        return {};
      case 'logging/setLevel':
        if (!isLogLevel(params.level)) throw new RpcFault(RPC.invalidParams, `level must be one of ${LOG_LEVELS.join(', ')}`);
        this.sessions.setLevel(call.principal, params.level);
        return {};
      case 'completion/complete':
        return complete(this.services, call.principal, completionRequest(params)).then((completion) => ({ completion }));
      case 'prompts/list':
        return { prompts: PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, ...(features(call.revision).titles ? { title } : {}), description, arguments: args })) };
      case 'prompts/get': {
        if (typeof params.name !== 'string') throw new RpcFault(RPC.invalidParams, 'prompts/get needs name');
        const args = (params.arguments ?? {}) as Record<string, string>;
        try {
          return promptMessages(params.name, args);
        } catch (error) {
          if (error instanceof AppError) throw new RpcFault(RPC.invalidParams, error.detail);
          throw error;
        }
      }
      default:
        return undefined;
    }
  }

  /**
   * Follows the job or run a long tool started to its end (the caller sent a progress token), sending
   * notifications/progress as its percentage moves; answers what it started with the final record (`final`).
   */
  private async follow(tool: Tool, toolCall: Parameters<Tool['run']>[0], started: Record<string, unknown>, token: string | number, call: McpCall): Promise<Record<string, unknown>> {
    const deadline = Date.now() + FOLLOW_LIMIT_MS;
    let last = -1;
    let status = '';
    for (;;) {
      const state = await tool.follow!(toolCall, started);
      if (state.status !== status) {
        status = state.status;
        this.sessions.log(call.principal, 'info', `tools/${tool.name}`, { message: `${status}: ${state.progress.state}`, ...idsOf(started) }, call.notify);
      }
      if (state.progress.percentage !== last) {
        last = state.progress.percentage;
        call.notify!({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, progress: state.progress.percentage, total: 100, message: state.progress.state } });
      }
      if (TERMINAL.has(state.status) || call.signal.aborted || Date.now() > deadline) return { ...started, final: state.record };
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_INTERVAL_MS));
    }
  }

  /** tools/list's result, kept per revision and set of scopes (the schemas are inlined once). */
  private readonly lists = new Map<string, Record<string, unknown>>();

  private toolList(call: McpCall): Record<string, unknown> {
    const key = `${call.revision} ${[...call.principal.scopes].sort().join(' ')}`;
    let list = this.lists.get(key);
    if (list === undefined) {
      list = { tools: this.visibleTools(call.principal).map((tool) => describeTool(tool, call.revision)) };
      this.lists.set(key, list);
      keepSerialized(list);
    }
    return list;
  }

  /** The tools the credential's scopes permit. */
  visibleTools(principal: Principal): Tool[] {
    return TOOLS.filter((tool) => principal.scopes.has(tool.scope));
  }

  private async callTool(params: Record<string, unknown>, call: McpCall): Promise<Record<string, unknown>> {
    const name = params.name;
    const tool = typeof name === 'string' ? toolNamed(name) : undefined;
    if (tool === undefined) throw new RpcFault(RPC.invalidParams, `Unknown tool: ${String(name)} (tools/list)`);
    if (!call.principal.scopes.has(tool.scope)) return toolError(new AppError('missing_scope', `The tool ${tool.name} needs the scope ${tool.scope}, which this credential lacks`));
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const validator = validatorOf(tool);
    if (args === null || typeof args !== 'object' || Array.isArray(args) || !validator.Check(args)) {
      const errors = [...validator.Errors(args)].slice(0, 20).map((e) => ({ location: `arguments${e.instancePath}`, message: e.message }));
      const detail = `The arguments of ${tool.name} are invalid: ${errors.map((e) => `${e.location}: ${e.message}`).join('; ')}`;
      if (features(call.revision).inputErrorsAsToolResults) return toolError(new AppError('validation_failed', detail, { errors }));
      throw new RpcFault(RPC.invalidParams, detail, { errors });
    }
    const { confirm, ...rest } = args;
    if ((tool.effect === 'destructive' || tool.effect === 'long') && confirm !== true) {
      const wouldDo = tool.intent(rest);
      return { content: [{ type: 'text', text: `Not run: this would ${wouldDo}. Ask the user, then call ${tool.name} again with confirm: true.` }], isError: true };
    }
    const log = (level: LogLevel, data: Record<string, unknown>) => this.sessions.log(call.principal, level, `tools/${tool.name}`, data, call.notify);
    const started = Date.now();
    try {
      const toolCall = { principal: call.principal, services: this.services, args: rest, signal: call.signal };
      let value = await tool.run(toolCall);
      if (tool.effect === 'long') log('info', { message: `Started: ${tool.intent(rest)}`, ...idsOf(value) });
      const token = (params._meta as { progressToken?: unknown } | undefined)?.progressToken;
      if (tool.follow !== undefined && call.notify !== undefined && (typeof token === 'string' || typeof token === 'number')) {
        value = await this.follow(tool, toolCall, value as Record<string, unknown>, token, call);
      }
      const structured = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { value };
      log('debug', { message: `${tool.name} answered in ${Date.now() - started} ms` });
      return {
        content: [{ type: 'text', text: JSON.stringify(value) }],
        ...(features(call.revision).structuredContent ? { structuredContent: structured } : {}),
        isError: false,
      };
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      log(error.status >= 500 ? 'error' : 'warning', { message: `${tool.name} failed: ${error.detail}`, problem: error.toProblem() });
      return toolError(error);
    }
  }
}

/** The ids a started job or run is known by (for log messages). */
function idsOf(value: unknown): Record<string, unknown> {
  const record = (value ?? {}) as Record<string, unknown>;
  return Object.fromEntries(['jobId', 'runId', 'id'].filter((key) => typeof record[key] === 'string').map((key) => [key, record[key]]));
}

/** The `uri` a resources method names. */
function uriOf(params: Record<string, unknown>, method: string): string {
  if (typeof params.uri !== 'string' || params.uri === '') throw new RpcFault(RPC.invalidParams, `${method} needs uri`);
  return params.uri;
}

/** completion/complete's params, checked. */
function completionRequest(params: Record<string, unknown>): CompletionRequest {
  const ref = params.ref as { type?: unknown; name?: unknown; uri?: unknown } | undefined;
  const argument = params.argument as { name?: unknown; value?: unknown } | undefined;
  const given = (params.context as { arguments?: unknown } | undefined)?.arguments ?? {};
  const refOk = (ref?.type === 'ref/prompt' && typeof ref.name === 'string') || (ref?.type === 'ref/resource' && typeof ref.uri === 'string');
  if (!refOk || typeof argument?.name !== 'string' || typeof argument.value !== 'string' || given === null || typeof given !== 'object') {
    throw new RpcFault(RPC.invalidParams, 'completion/complete needs ref ({type: ref/prompt, name} or {type: ref/resource, uri}) and argument {name, value}');
  }
  const context = Object.fromEntries(Object.entries(given).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  return { ref: ref as CompletionRequest['ref'], argument: { name: argument.name, value: argument.value }, context };
}

/** A protocol fault raised inside a method (answered as a JSON-RPC error). */
class RpcFault extends Error {
  constructor(readonly code: number, message: string, readonly data?: unknown) {
    super(message);
  }
}

/**
 * A tool failure as a tool result: the problem document (type, title, status, detail, field errors) as its text.
 * No structuredContent: a client checks that against the tool's outputSchema, which describes success.
 */
function toolError(error: AppError): Record<string, unknown> {
  return { content: [{ type: 'text', text: JSON.stringify(error.toProblem()) }], isError: true };
}

/** tools/list's entry: title and outputSchema from 2025-06-18; annotations say truthfully what the tool does. */
function describeTool(tool: Tool, revision: Revision): Record<string, unknown> {
  const f = features(revision);
  return {
    name: tool.name,
    ...(f.titles ? { title: tool.title } : {}),
    description: tool.description + (tool.effect === 'destructive' || tool.effect === 'long' ? ' Needs confirm: true.' : ''),
    inputSchema: selfContained(tool.input),
    ...(f.structuredContent && tool.output !== undefined ? { outputSchema: selfContained(tool.output) } : {}),
    annotations: {
      title: tool.title,
      readOnlyHint: tool.effect === 'read',
      destructiveHint: tool.effect === 'destructive',
      idempotentHint: tool.effect === 'read' || tool.idempotent === true,
      openWorldHint: tool.openWorld === true,
    },
  };
}

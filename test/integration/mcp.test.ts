/**
 * The MCP endpoint with the official SDK client, over Streamable HTTP on each revision and over the legacy
 * HTTP+SSE transport: initialize, tools filtered by scope, a whole journey (rows -> twin -> what-if -> results)
 * through tools, `confirm`, resources and prompts; and the protocol rules over raw HTTP: batches, notifications,
 * -32022, the session of another organisation, Origin, the revision header.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { buildTestApp } from '../helpers/app.js';
import { chainWithPlanRows } from '../helpers/simulations.js';

const REVISIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;

/** A connected SDK client asking for `revision` at initialize (the SDK asks for its newest otherwise). */
async function connect(url: URL, key: string, revision: string, kind: 'streamable' | 'sse' = 'streamable'): Promise<{ client: Client; transport: Transport }> {
  const headers = { authorization: `Bearer ${key}` };
  const transport: Transport = kind === 'streamable'
    ? new StreamableHTTPClientTransport(url, { requestInit: { headers } })
    : new SSEClientTransport(url, { requestInit: { headers }, eventSourceInit: { fetch: (input, init) => fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) } });
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send('method' in message && message.method === 'initialize' ? { ...message, params: { ...message.params, protocolVersion: revision } } : message, options);
  const client = new Client({ name: 'causa-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

const structured = (result: Awaited<ReturnType<Client['callTool']>>) => (result.structuredContent ?? JSON.parse((result.content as Array<{ text: string }>)[0]!.text)) as Record<string, any>;

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`still waiting after ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 400)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('MCP with the SDK client: every revision, a whole journey through tools, confirm, resources, prompts, scopes and the legacy SSE transport', async (t) => {
  const app = await buildTestApp(t);
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const url = new URL(`${address}/api/v1/mcp`);
  const ws = app.tenant.libraryWorkspaceId;

  for (const revision of REVISIONS) {
    const { client, transport } = await connect(url, app.tenant.key, revision);
    t.after(() => client.close());
    assert.equal((transport as StreamableHTTPClientTransport).protocolVersion, revision);
    assert.equal(client.getServerVersion()?.name, 'causa');
    assert.deepEqual(Object.keys(client.getServerCapabilities() ?? {}).sort(), ['completions', 'logging', 'prompts', 'resources', 'tools']);
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    const { tools } = await client.listTools();
    const names = tools.map((tool) => tool.name);
    for (const name of ['list_workspaces', 'create_source_from_rows', 'create_twin', 'run_pipeline', 'submit_simulation', 'get_simulation', 'get_job', 'import_from_connector']) assert.ok(names.includes(name), name);
    const runPipeline = tools.find((tool) => tool.name === 'run_pipeline')!;
    assert.deepEqual(runPipeline.annotations, { title: 'Learn a twin', readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false });
    const deleteTwin = tools.find((tool) => tool.name === 'delete_twin')!;
    assert.equal(deleteTwin.annotations?.destructiveHint, true);
    assert.equal(tools.find((tool) => tool.name === 'get_twin')!.annotations?.readOnlyHint, true);
    // Structured output from 2025-06-18; titles too.
    assert.equal(tools.find((tool) => tool.name === 'get_twin')!.outputSchema !== undefined, revision !== '2025-03-26');
    assert.equal(runPipeline.title === 'Learn a twin', revision !== '2025-03-26');
    const workspaces = await client.callTool({ name: 'list_workspaces', arguments: {} });
    assert.equal(workspaces.isError, false);
    assert.equal(workspaces.structuredContent !== undefined, revision !== '2025-03-26');
    assert.ok(structured(workspaces).items.some((w: { id: string }) => w.id === ws));
    // Arguments failing the input schema: a tool error on 2025-11-25, a JSON-RPC error before.
    if (revision === '2025-11-25') {
      const invalid = await client.callTool({ name: 'get_twin', arguments: { workspaceId: ws } });
      assert.equal(invalid.isError, true);
      assert.match((invalid.content as Array<{ text: string }>)[0]!.text, /urn:causa:problem:validation-failed/);
    } else {
      await assert.rejects(client.callTool({ name: 'get_twin', arguments: { workspaceId: ws } }), /-32602|arguments of get_twin are invalid/);
    }
  }

  // The journey on the newest revision: rows -> source -> twin -> learning -> what-if -> results.
  const { client } = await connect(url, app.tenant.key, REVISIONS[0]);
  t.after(() => client.close());
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, false, `${name}: ${JSON.stringify(result.content)}`);
    return structured(result);
  };
  const source = await call('create_source_from_rows', { workspaceId: ws, name: 'chain', rows: chainWithPlanRows(600) });
  // The semantic layer: what the columns mean, then data asked for by meaning.
  await call('create_dataset', { workspaceId: ws, name: 'chain', sources: [{ id: source.id }] });
  for (let i = 0; (await call('list_concepts', { workspaceId: ws, sourceId: source.id })).items.length === 0; i++) {
    assert.ok(i < 500, 'the source is described as concepts');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const asked = (await call('query_workspace', { workspaceId: ws, query: 'SELECT plan, count(*) AS n FROM chain GROUP BY plan ORDER BY plan' })).result;
  assert.equal(asked.ok, true, JSON.stringify(asked));
  assert.equal(asked.rows.reduce((sum: number, row: { n: number }) => sum + row.n, 0), 600);
  const misspelled = (await call('query_workspace', { workspaceId: ws, query: 'SELECT count(*) AS n FROM chian' })).result;
  assert.equal(misspelled.error.suggestedQuery, 'SELECT count(*) AS n FROM chain');
  const view = await call('save_data_view', { workspaceId: ws, name: 'Plans', query: 'SELECT plan, count(*) AS n FROM chain GROUP BY plan ORDER BY plan' });
  assert.deepEqual((await call('list_data_views', { workspaceId: ws })).items.map((v: { id: string }) => v.id), [view.id]);
  assert.deepEqual((await call('read_data_view', { workspaceId: ws, dataViewId: view.id })).result.rows, asked.rows, 'a saved query read again answers the same rows');
  const plan = (await call('list_concepts', { workspaceId: ws, sourceId: source.id })).items.find((c: { fieldMappings: Array<{ field: string }> }) => c.fieldMappings.some((m) => m.field === 'plan'));
  await call('update_concept', { workspaceId: ws, conceptId: plan.id, valueMappings: [{ canonicalValue: 'Premium plan', aliases: ['premium'] }, { canonicalValue: 'Basic plan', aliases: ['basic'] }] });
  const enriched = await call('enrich_concept', { workspaceId: ws, conceptId: plan.id, confirm: true });
  assert.match(enriched.jobId, /^job_/);
  for (let i = 0; (await call('get_concept', { workspaceId: ws, conceptId: plan.id })).metadata.enrichments?.canonicalValues?.status !== 'completed'; i++) {
    assert.ok(i < 500, 'the enrichment completes');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const canonical = (await call('query_workspace', { workspaceId: ws, query: 'SELECT plan, count(*) AS n FROM chain GROUP BY plan ORDER BY plan' })).result;
  assert.deepEqual(canonical.rows.map((r: { plan: string }) => r.plan), ['Basic plan', 'Premium plan'], 'queries read the plans as their canonical values');
  const twin = await call('create_twin', { workspaceId: ws, name: 'Chain twin', sourceId: source.id });
  await call('update_fixed_graph', { workspaceId: ws, twinId: twin.id, versionId: twin.versionId, addEdges: [{ source: 'x', target: 'y' }, { source: 'plan', target: 'y' }, { source: 'y', target: 'z' }] });
  const unconfirmed = await client.callTool({ name: 'run_pipeline', arguments: { workspaceId: ws, twinId: twin.id, bootstrapSamples: 0 } });
  assert.equal(unconfirmed.isError, true);
  assert.match((unconfirmed.content as Array<{ text: string }>)[0]!.text, /Not run: this would start a learning job .* confirm: true/);
  // With a progress token the call follows the job to its end, reporting progress on the way.
  const progress: Array<{ progress: number; total?: number; message?: string }> = [];
  const followed = await client.callTool({ name: 'run_pipeline', arguments: { workspaceId: ws, twinId: twin.id, bootstrapSamples: 0, confirm: true } }, undefined, { onprogress: (p) => progress.push(p) });
  assert.equal(followed.isError, false, JSON.stringify(followed.content));
  const job = structured(followed);
  assert.equal(job.final.status, 'completed', JSON.stringify(job.final));
  assert.ok(progress.length >= 2 && progress.at(-1)!.progress === 100 && progress.every((p) => p.total === 100), JSON.stringify(progress));
  const learned = await call('get_job', { workspaceId: ws, jobId: job.jobId });
  assert.equal(learned.status, 'completed');
  // A long call unconfirmed says what it would do: columnar rows counted as rows are.
  const scoring = await client.callTool({ name: 'score_rows', arguments: { workspaceId: ws, twinId: twin.id, versionId: twin.versionId, rowsTable: { columns: ['x', 'plan'], rows: [[1, 'basic'], [2, 'premium']] }, targets: [{ variable: 'z', value: 1, matchMode: 'orMore' }] } });
  assert.match((scoring.content as Array<{ text: string }>)[0]!.text, /Not run: this would score 2 rows on twin /);
  const read = await call('scenario_from_query', { workspaceId: ws, twinId: twin.id, versionId: twin.versionId, query: 'what if x increases by 1?' });
  assert.equal(read.scenario.type, 'intervention');
  const accepted = await call('submit_simulation', { workspaceId: ws, digitalTwinId: twin.id, digitalTwinVersionId: twin.versionId, scenario: read.scenario, confirm: true });
  const run = await until(() => call('get_simulation', { workspaceId: ws, runId: accepted.runId }), (r) => ['completed', 'failed'].includes(r.status));
  assert.equal(run.status, 'completed', JSON.stringify(run.error));
  const z = run.outputs['1.0.0'].details.variables.find((v: { variable: string }) => v.variable === 'z');
  assert.ok(Math.abs(z.effect.difference - -3) < 0.4, `effect of x + 1 on z (truth -3): ${z.effect.difference}`);
  const missing = await client.callTool({ name: 'get_twin', arguments: { workspaceId: ws, twinId: 'dt_nowhere' } });
  assert.equal(missing.isError, true);
  assert.match((missing.content as Array<{ text: string }>)[0]!.text, /"status":404/);

  // Resources: the twin, its version and the completed run, readable as JSON.
  const { resources } = await client.listResources();
  const twinUri = `causa://workspaces/${ws}/digital-twins/${twin.id}`;
  assert.ok(resources.some((r) => r.uri === twinUri), JSON.stringify(resources.map((r) => r.uri)));
  assert.ok(resources.some((r) => r.uri === `causa://workspaces/${ws}/simulations/${accepted.runId}`));
  const version = await client.readResource({ uri: `${twinUri}/versions/${twin.versionId}` });
  assert.equal(JSON.parse((version.contents[0] as { text: string }).text).status, 'trained');
  await assert.rejects(client.readResource({ uri: `causa://workspaces/${ws}/digital-twins/dt_nowhere` }), /-32002|not found/);
  const templates = await client.listResourceTemplates();
  assert.equal(templates.resourceTemplates.length, 4);

  // Completions: ids and variables from what the caller can read, narrowed by the arguments already given.
  const twinTemplate = 'causa://workspaces/{workspaceId}/digital-twins/{twinId}';
  const completed = async (ref: Parameters<Client['complete']>[0]['ref'], name: string, value: string, given: Record<string, string> = {}) =>
    (await client.complete({ ref, argument: { name, value }, context: { arguments: given } })).completion;
  assert.ok((await completed({ type: 'ref/resource', uri: twinTemplate }, 'workspaceId', ws.slice(0, 5))).values.includes(ws));
  assert.deepEqual((await completed({ type: 'ref/resource', uri: twinTemplate }, 'twinId', 'chain t', { workspaceId: ws })).values, [twin.id], 'by name, case-insensitive');
  assert.deepEqual((await completed({ type: 'ref/resource', uri: twinTemplate }, 'twinId', 'nothing like it', { workspaceId: ws })).values, []);
  assert.deepEqual((await completed({ type: 'ref/resource', uri: `${twinTemplate}/versions/{versionId}` }, 'versionId', '', { workspaceId: ws, twinId: twin.id })).values, [twin.versionId]);
  assert.deepEqual((await completed({ type: 'ref/prompt', name: 'what-if' }, 'outcome', '', { twinId: twin.id })).values.sort(), ['plan', 'w', 'x', 'y', 'z']);
  assert.deepEqual((await completed({ type: 'ref/prompt', name: 'what-if' }, 'outcome', 'Z', { twinId: twin.id })).values, ['z']);
  assert.deepEqual(await completed({ type: 'ref/prompt', name: 'what-if' }, 'change', 'raise'), { values: [], total: 0, hasMore: false }, 'free text has no completions');
  await assert.rejects(completed({ type: 'ref/prompt', name: 'no-such-prompt' }, 'metric', ''), /No prompt is named no-such-prompt/);

  // Logging: messages at or above the level set, on the session's stream.
  const logs: Array<{ level: string; logger?: string; data: any }> = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void logs.push(notification.params));
  await client.setLoggingLevel('debug');
  await call('list_twins', { workspaceId: ws });
  await until(async () => logs, (seen) => seen.some((m) => m.logger === 'tools/list_twins' && m.level === 'debug' && /answered in \d+ ms/.test(m.data.message)));
  await client.setLoggingLevel('warning');
  logs.length = 0;
  await call('list_twins', { workspaceId: ws });
  await client.callTool({ name: 'get_twin', arguments: { workspaceId: ws, twinId: 'dt_nowhere' } });
  await until(async () => logs, (seen) => seen.some((m) => m.level === 'warning' && m.logger === 'tools/get_twin' && m.data.problem.status === 404));
  assert.ok(!logs.some((m) => m.level === 'debug'), 'nothing below the level set');
  await assert.rejects(client.setLoggingLevel('loud' as never), /level must be one of debug, info/);

  // Subscriptions: a change to a subscribed resource is announced on the session's stream.
  const updated: string[] = [];
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => void updated.push(notification.params.uri));
  await client.subscribeResource({ uri: twinUri });
  assert.equal((await app.call({ method: 'PATCH', url: `/api/v1/workspaces/${ws}/digital-twins/${twin.id}`, body: { name: 'Chain twin, renamed' } })).status, 200);
  await until(async () => updated, (uris) => uris.includes(twinUri), 20_000);
  await client.unsubscribeResource({ uri: twinUri });
  await assert.rejects(client.subscribeResource({ uri: `causa://workspaces/${ws}/digital-twins/dt_nowhere` }), /-32002|not found/);

  // Multi-environment tools are there; on a static twin the environments are an empty page and groups are refused.
  assert.deepEqual((await call('list_environments', { workspaceId: ws, twinId: twin.id })).data, []);
  const group = await client.callTool({ name: 'create_environment_group', arguments: { workspaceId: ws, twinId: twin.id, name: 'g', definition: { mode: 'environments', environments: ['a'] } } });
  assert.equal(group.isError, true);
  assert.match((group.content as Array<{ text: string }>)[0]!.text, /"status":422/);

  // Prompts: the platform's skills.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name).sort(), ['build-twin', 'explain-metric-drivers', 'find-root-cause', 'what-if']);
  const whatIf = await client.getPrompt({ name: 'what-if', arguments: { change: 'raise x by 1', outcome: 'z' } });
  assert.match((whatIf.messages[0]!.content as { text: string }).text, /raise x by 1.*scenario_from_query.*submit_simulation/s);
  await assert.rejects(client.getPrompt({ name: 'what-if', arguments: {} }), /needs change/);

  // A workspace-scoped read-only key sees read tools only; a write tool names the scope it lacks.
  const created = await app.call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'reader', workspaceId: ws, scopes: ['sources:read', 'datasets:read', 'digital-twins:read', 'simulations:read', 'jobs:read'] } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const reader = (await connect(url, created.body.data.key, REVISIONS[0])).client;
  t.after(() => reader.close());
  const readable = (await reader.listTools()).tools;
  assert.ok(readable.length > 5);
  assert.ok(readable.every((tool) => tool.annotations?.readOnlyHint === true || tool.name === 'cancel_job'), readable.map((tool) => tool.name).join(', '));
  assert.ok(!readable.some((tool) => tool.name === 'create_twin'));
  const refused = await reader.callTool({ name: 'create_twin', arguments: { workspaceId: ws, name: 'x', sourceId: source.id } });
  assert.equal(refused.isError, true);
  assert.match((refused.content as Array<{ text: string }>)[0]!.text, /needs the scope digital-twins:write/);

  // The legacy HTTP+SSE transport: the endpoint event, then answers on the stream.
  const legacy = (await connect(url, app.tenant.key, '2025-03-26', 'sse')).client;
  t.after(() => legacy.close());
  const overSse = await legacy.callTool({ name: 'get_twin', arguments: { workspaceId: ws, twinId: twin.id } });
  assert.equal(JSON.parse((overSse.content as Array<{ text: string }>)[0]!.text).id, twin.id);
});

test('MCP protocol rules over raw HTTP: batches, notifications, -32022, sessions, Origin, revision header, credentials', async (t) => {
  const app = await buildTestApp(t);
  const post = (body: unknown, headers: Record<string, string> = {}, key: string | null = app.tenant.key) =>
    app.app.inject({ method: 'POST', url: '/api/v1/mcp', headers: { 'content-type': 'application/json', ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...headers }, payload: JSON.stringify(body) });
  const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2024-01-01', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  assert.equal(init.statusCode, 200);
  assert.equal(init.json().result.protocolVersion, '2025-11-25', 'an unknown revision gets the newest');
  assert.equal(init.headers['mcp-session-id'], `org-${app.tenant.organisationId}`);

  const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
  const batch = await post([ping(1), ping(2), { jsonrpc: '2.0', method: 'notifications/initialized' }], { 'mcp-protocol-version': '2025-03-26' });
  assert.equal(batch.statusCode, 200);
  assert.deepEqual(batch.json(), [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {} }]);
  const headerless = await post([ping(1)]);
  assert.equal(headerless.statusCode, 200, 'no header: 2025-03-26, which batches');
  for (const revision of ['2025-06-18', '2025-11-25']) {
    const refused = await post([ping(1)], { 'mcp-protocol-version': revision });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json().error.code, -32600);
  }
  const notification = await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-protocol-version': '2025-11-25' });
  assert.equal(notification.statusCode, 202);
  assert.equal(notification.body, '');
  const stateless = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } });
  assert.equal(stateless.statusCode, 400);
  assert.equal(stateless.json().error.code, -32022);
  assert.deepEqual(stateless.json().error.data.supported, ['2025-11-25', '2025-06-18', '2025-03-26']);
  // tools/list goes gzipped to a client that accepts it; the same JSON as without, for any id.
  for (const id of [11, 'list-é']) {
    const plain = await post({ jsonrpc: '2.0', id, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25' });
    assert.equal(plain.headers['content-encoding'], undefined);
    const gzipped = await post({ jsonrpc: '2.0', id, method: 'tools/list' }, { 'mcp-protocol-version': '2025-11-25', 'accept-encoding': 'br, gzip;q=0.8' });
    assert.equal(gzipped.headers['content-encoding'], 'gzip');
    assert.ok(gzipped.rawPayload.length < plain.rawPayload.length / 3);
    assert.deepEqual(JSON.parse(gunzipSync(gzipped.rawPayload).toString()), plain.json());
    assert.equal(plain.json().id, id);
  }
  const small = await post(ping(12), { 'mcp-protocol-version': '2025-11-25', 'accept-encoding': 'gzip' });
  assert.equal(small.headers['content-encoding'], undefined, 'small answers are not compressed');
  const unknownMethod = await post({ jsonrpc: '2.0', id: 4, method: 'tools/teleport' });
  assert.equal(unknownMethod.json().error.code, -32601);
  const notRpc = await post({ id: 5, method: 'ping' });
  assert.equal(notRpc.json().error.code, -32600);
  const unknownTool = await post({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'teleport', arguments: {} } }, { 'mcp-protocol-version': '2025-11-25' });
  assert.equal(unknownTool.json().error.code, -32602);

  const otherSession = await post(ping(7), { 'mcp-session-id': `org-${app.other.organisationId}` });
  assert.equal(otherSession.statusCode, 403);
  assert.equal((await post(ping(8), { 'mcp-session-id': `org-${app.tenant.organisationId}` })).statusCode, 200);
  const foreign = await post(ping(9), { origin: 'https://evil.example' });
  assert.equal(foreign.statusCode, 403);
  assert.match(foreign.json().detail, /Origin https:\/\/evil.example/);
  assert.equal((await post(ping(10), { origin: 'http://localhost:3000', host: 'localhost:8080' })).statusCode, 200, 'a page on the same machine');
  const rebound = await post(ping(15), { origin: 'http://evil.example.com', host: 'evil.example.com' });
  assert.equal(rebound.statusCode, 403, 'a rebound name carries itself in Origin and Host');
  const badHeader = await post(ping(11), { 'mcp-protocol-version': '1999-01-01' });
  assert.equal(badHeader.statusCode, 400);
  const anonymous = await post(ping(12), {}, null);
  assert.equal(anonymous.statusCode, 401);
  assert.match(String(anonymous.headers['www-authenticate']), /^Bearer/);
  const noStream = await post(ping(13), {}, app.tenant.key);
  assert.equal(noStream.statusCode, 200);
  const gone = await app.app.inject({ method: 'POST', url: '/api/v1/mcp?stream=nowhere', headers: { 'content-type': 'application/json', authorization: `Bearer ${app.tenant.key}` }, payload: JSON.stringify(ping(14)) });
  assert.equal(gone.statusCode, 404);
});

test('MCP sessions: the streams of a revoked key end within a round of checks, with or without subscriptions, and their subscriptions go', async (t) => {
  const app = await buildTestApp(t);
  const address = await app.app.listen({ port: 0, host: '127.0.0.1' });
  const ws = app.tenant.libraryWorkspaceId;
  const source = await app.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/sources/from-data`, body: { name: 'rows', rows: [{ a: 1, b: 2 }, { a: 2, b: 4 }] } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const dataset = await app.call({ method: 'POST', url: `/api/v1/workspaces/${ws}/datasets`, body: { name: 'rows', sources: [{ id: source.body.data.id }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const uri = `causa://workspaces/${ws}/datasets/${dataset.body.data.id}`;

  const opened = async (name: string, subscribe: boolean) => {
    const made = await app.call({ method: 'POST', url: '/api/v1/api-keys', body: { name, scopes: ['sources:read', 'datasets:read'] } });
    assert.equal(made.status, 201);
    const headers = { authorization: `Bearer ${made.body.data.key}`, 'mcp-protocol-version': '2025-11-25' };
    const stream = await fetch(`${address}/api/v1/mcp`, { headers: { ...headers, accept: 'text/event-stream' } });
    assert.equal(stream.status, 200);
    const reader = stream.body!.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /^event: endpoint/);
    if (subscribe) {
      const subscribed = await fetch(`${address}/api/v1/mcp`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/subscribe', params: { uri } }) });
      assert.deepEqual(await subscribed.json(), { jsonrpc: '2.0', id: 1, result: {} });
    }
    return { id: made.body.data.id as string, reader };
  };
  const keys = [await opened('subscribed', true), await opened('streaming only', false)];
  for (const key of keys) assert.equal((await app.call({ method: 'POST', url: `/api/v1/api-keys/${key.id}/revoke` })).status, 200);
  for (const key of keys) {
    const ended = await Promise.race([
      (async () => {
        for (;;) if ((await key.reader.read()).done) return true;
      })(),
      new Promise((resolve) => setTimeout(() => resolve(false), 15_000)),
    ]);
    assert.equal(ended, true, 'the revoked key\'s stream ended');
  }
});

test('MCP ontology libraries: list_ontologies names the bundled libraries, install_ontology installs one once, and a read-only key sees no install tool', async (t) => {
  const app = await buildTestApp(t);
  const ws = app.tenant.libraryWorkspaceId;
  const post = (body: unknown, key = app.tenant.key) =>
    app.app.inject({ method: 'POST', url: '/api/v1/mcp', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'mcp-protocol-version': '2025-11-25' }, payload: JSON.stringify(body) });
  const call = async (name: string, args: Record<string, unknown>, key?: string) => {
    const response = (await post({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, key)).json();
    assert.equal(response.result?.isError, false, JSON.stringify(response));
    return response.result.structuredContent as Record<string, any>;
  };

  const listed = await call('list_ontologies', {});
  assert.deepEqual(listed.items.map((l: { id: string; version: string }) => `${l.id}@${l.version}`), ['causa.commerce@1.0.0']);
  const first = await call('install_ontology', { workspaceId: ws, ontologyId: 'causa.commerce' });
  assert.equal(first.install.version, '1.0.0');
  assert.ok(first.created.some((c: { canonicalId: string }) => c.canonicalId === 'country'));
  const again = await call('install_ontology', { workspaceId: ws, ontologyId: 'causa.commerce' });
  assert.deepEqual([again.created, again.updated], [[], []], 'installing again changes nothing');
  assert.equal(again.unchanged.length, first.created.length);
  const concepts = await call('list_concepts', { workspaceId: ws, limit: 200 });
  assert.ok(concepts.items.some((c: { name: string; ontologyRef: { canonicalId: string } | null }) => c.name === 'Country' && c.ontologyRef?.canonicalId === 'country'));

  const tools = (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' })).json().result.tools as Array<{ name: string; annotations: Record<string, boolean> }>;
  assert.equal(tools.find((tool) => tool.name === 'install_ontology')?.annotations.idempotentHint, true);
  assert.equal(tools.find((tool) => tool.name === 'list_ontologies')?.annotations.readOnlyHint, true);
  const reader = await app.call({ method: 'POST', url: '/api/v1/api-keys', body: { name: 'ontology reader', scopes: ['ontology:read'] } });
  const readable = (await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, reader.body.data.key)).json().result.tools.map((tool: { name: string }) => tool.name);
  assert.ok(readable.includes('list_ontologies') && !readable.includes('install_ontology'), readable.join(', '));
  const refused = (await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'install_ontology', arguments: { workspaceId: ws, ontologyId: 'causa.commerce' } } }, reader.body.data.key)).json();
  assert.equal(refused.result.isError, true);
  assert.match(refused.result.content[0].text, /needs the scope ontology:write/);
});

/**
 * Authorization matrix (issue 2, "Shown by"): every authenticated operation of the served OpenAPI document is
 * tried with every kind of credential that must be refused, and with resources it must not reach. The requests
 * are otherwise valid (a sample per operation, checked by a positive control), so each refusal has one cause.
 */
import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { SCOPES, type Scope, isScope } from '../../src/auth/scopes.js';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CallOptions, type Response, type TestApp, buildTestApp, testConfig } from '../helpers/app.js';
import { panelRows, panelTruth } from '../helpers/panel.js';

const API = '/api/v1';
/** Requests per minute for the keys this file uses many times (the default is 1200). */
const MANY = 100_000;
/** A scope no identity or workspace operation needs: held by the key that proves an unscoped operation needs none. */
const UNRELATED_SCOPE: Scope = 'jobs:read';

// ---------------------------------------------------------------------------------------------------------------
// The sample table: one valid request per operationId. A new operation fails the matrix until it is added here.
// ---------------------------------------------------------------------------------------------------------------

interface Sample {
  /** A body, or a function of the ids in play when the body names a resource. */
  body?: unknown | ((ids: Ids) => unknown);
  /** For file bodies: the media type the raw `body` text is sent as. */
  contentType?: string;
  /** A query string the operation needs. */
  query?: string;
  /** The answer is an event stream that stays open: read its headers and first event, then let it go. */
  stream?: boolean;
}

/** The storage root the matrix's service allows; each organisation reads its own directory in it (a small CSV). */
const STORAGE_ROOT = mkdtempSync(join(tmpdir(), 'causa-matrix-storage-'));
process.once('exit', () => rmSync(STORAGE_ROOT, { recursive: true, force: true }));

/** The bundled ontology library the samples read and install (a library is the service's, not a tenant's). */
const ONTOLOGY_ID = 'causa.commerce';

const SAMPLES: Record<string, Sample> = {
  getMe: {},
  createApiKey: { body: { name: 'matrix sample key', scopes: [UNRELATED_SCOPE] } },
  listApiKeys: {},
  getApiKey: {},
  revokeApiKey: {},
  createUser: { body: { name: 'Matrix sample user', role: 'member' } },
  listUsers: {},
  getUser: {},
  listWorkspaces: {},
  createWorkspace: { body: { name: 'Matrix sample workspace', description: 'made by the matrix' } },
  getWorkspace: {},
  updateWorkspace: { body: { description: 'edited by the matrix' } },
  deleteWorkspace: {},
  listWorkspaceMembers: {},
  putWorkspaceMember: { body: { level: 'write' } },
  removeWorkspaceMember: {},
  listOrganisationSources: {},
  getSource: {},
  linkSource: { body: (ids: Ids) => ({ workspaceId: ids.workspace }) },
  unlinkSource: {},
  listWorkspaceSources: {},
  createSource: { body: { name: 'Matrix sample source', dataFormat: 'Tabular' } },
  uploadSourceFile: { body: 'a,b,c\n1,x,0.5\n2,y,1.5\n', contentType: 'text/csv' },
  createSourceFromData: { body: { name: 'Matrix inline source', rows: [{ a: 1, b: 'x' }, { a: 2, b: 'y' }] } },
  deleteSource: {},
  retypeSourceColumn: { body: { field: 'a', type: 'text' } },
  listSourceFiles: {},
  extractFolderFiles: { body: {} },
  listDatasets: {},
  createDataset: { body: { name: 'Matrix sample dataset' } },
  recommendDatasets: {},
  getDataset: {},
  updateDataset: { body: { description: 'edited by the matrix' } },
  deleteDataset: {},
  getEnrichedDataset: {},
  getDatasetMetadata: {},
  listDatasetRecords: {},
  getDatasetSchema: {},
  validateDataset: { body: { operations: [] } },
  exportDataset: {},
  listCatalogTables: {},
  listCatalogViews: {},
  listCatalogConcepts: {},
  getCatalogGraph: {},
  listConcepts: {},
  createConcept: { body: (ids: Ids) => ({ name: 'Matrix sample concept', fieldMappings: [{ sourceId: ids.source, field: 'b' }] }) },
  getConcept: {},
  putConcept: { body: (ids: Ids) => ({ _id: ids.concept, description: 'edited by the matrix' }) },
  deleteConcept: {},
  splitConcept: { body: (ids: Ids) => ({ fieldMapping: { sourceId: ids.source, field: 'a' } }) },
  extractOntology: { body: (ids: Ids) => ({ sourceId: ids.source }) },
  enrichConcept: { body: {} },
  listOntologies: {},
  getOntology: {},
  installOntology: { body: { ontologyId: ONTOLOGY_ID } },
  listOntologyInstalls: {},
  getOntologyInstall: {},
  uninstallOntology: {},
  queryWorkspace: { body: { query: 'SHOW DATASETS' } },
  listDataViews: {},
  createDataView: { body: () => ({ name: `Matrix sample view ${Math.random()}`, query: VIEW_QUERY }) },
  getDataView: {},
  updateDataView: { body: { description: 'edited by the matrix' } },
  deleteDataView: {},
  readDataView: {},
  listJobs: {},
  getJob: {},
  cancelJob: {},
  listDigitalTwins: {},
  createDigitalTwin: { body: (ids: Ids) => ({ name: 'Matrix sample twin', sourceId: ids.source }) },
  getDigitalTwin: {},
  updateDigitalTwin: { body: { tags: ['edited'] } },
  deleteDigitalTwin: {},
  listTwinVersions: {},
  createTwinVersion: { body: { bump: 'minor' } },
  getTwinVersion: {},
  getFixedGraph: {},
  patchFixedGraph: { body: { removeEdges: [{ source: 'c', target: 'a' }] } },
  discoverTwinVersion: { body: { bootstrapSamples: 0 } },
  trainTwinVersion: { body: {} },
  runTwinPipeline: { body: (ids: Ids) => ({ versionId: ids.version, bootstrapSamples: 0 }) },
  listTwinEnvironments: { query: 'q=b' },
  listVersionEnvironments: {},
  listEnvironmentGroups: {},
  createEnvironmentGroup: { body: { name: 'Matrix sample group', definition: { mode: 'columnValues', columnValues: { site: ['s001'] } } } },
  getEnvironmentGroup: {},
  updateEnvironmentGroup: { body: { agreementThreshold: 0.6 } },
  deleteEnvironmentGroup: {},
  resolveEnvironmentGroup: { body: (ids: Ids) => ({ groupId: ids.group }) },
  sliceTwinGraph: { body: (ids: Ids) => ({ groupId: ids.group }) },
  listSimulations: {},
  submitSimulation: { body: (ids: Ids) => ({ digitalTwinId: ids.twin, digitalTwinVersionId: ids.trainedVersion, scenario: { type: 'prediction', sample: [{ a: 1 }], targetVars: ['c'] } }) },
  getSimulation: {},
  getSimulationResults: {},
  cancelSimulation: {},
  getSimulationSweep: {},
  getSimulationScore: {},
  getSimulationStatus: {},
  listSimulationRows: {},
  exportSimulationRows: {},
  exportSimulation: {},
  scoreRows: { body: { rows: [{ a: 1 }], targets: [{ variable: 'c', value: 2, matchMode: 'orMore' }] } },
  scenarioFromQuery: { body: { query: 'what drives c?' } },
  listConnectors: {},
  createConnector: { body: { name: 'Matrix files', type: 'storage', credentials: null } },
  getConnector: {},
  updateConnector: { body: { name: 'Matrix files, renamed' } },
  deleteConnector: {},
  browseConnector: { query: 'level=files' },
  previewConnectorQuery: { body: { config: { path: 'matrix.csv' }, limit: 2 } },
  testConnector: {},
  importFromConnector: { body: (ids: Ids) => ({ workspaceId: ids.workspace, config: { path: 'matrix.csv' } }) },
  directQueryConnector: { body: (ids: Ids) => ({ workspaceId: ids.workspace, config: { path: 'matrix.csv' } }) },
  mcpPost: { body: { jsonrpc: '2.0', id: 1, method: 'ping' } },
  mcpEvents: { stream: true },
};

// ---------------------------------------------------------------------------------------------------------------
// Operations, read from the served document.
// ---------------------------------------------------------------------------------------------------------------

interface Operation {
  id: string;
  method: string;
  template: string;
  /** The scope the description names ("Required scope: `x`."), or null. */
  scope: Scope | null;
  /** The kind of resource each path parameter names, in path order. */
  params: Array<{ name: string; kind: IdKind }>;
  label: string;
}

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

interface OpenApiOperation {
  operationId?: string;
  description?: string;
  security?: unknown[];
}

/** Every operation of the document that needs a credential (public ones declare `security: []`). */
function authenticatedOperations(app: TestApp['app']): Operation[] {
  const doc = app.swagger() as unknown as { paths: Record<string, Record<string, OpenApiOperation>> };
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS.filter((m) => item[m] !== undefined)) {
      const operation = item[method]!;
      if (Array.isArray(operation.security) && operation.security.length === 0) continue;
      const label = `${method.toUpperCase()} ${template}`;
      assert.ok(operation.operationId, `${label} has no operationId`);
      operations.push({
        id: operation.operationId,
        method: method.toUpperCase(),
        template,
        scope: requiredScope(label, operation.description),
        params: [...template.matchAll(/\{(\w+)\}/g)].filter(([, name]) => !(name! in FIXED_PARAMS)).map(([, name]) => ({ name: name!, kind: idKind(template, name!) })),
        label,
      });
    }
  }
  return operations;
}

function requiredScope(label: string, description = ''): Scope | null {
  const named = [...description.matchAll(/Required scope: `([^`]+)`/g)].map(([, scope]) => scope!);
  if (named.length === 0) return null;
  assert.equal(new Set(named).size, 1, `${label} names more than one required scope: ${named.join(', ')}`);
  assert.ok(isScope(named[0]!), `${label} names an unknown scope ${named[0]}`);
  return named[0] as Scope;
}

// ---------------------------------------------------------------------------------------------------------------
// Ids: which resource a path parameter names, and sets of ids to put in paths.
// ---------------------------------------------------------------------------------------------------------------

type IdKind =
  | 'workspace' | 'user' | 'key' | 'source' | 'folder' | 'dataset' | 'twin' | 'version' | 'trainedVersion' | 'job' | 'run' | 'scoreRun' | 'batchRun' | 'connector'
  | 'panelTwin' | 'panelVersion' | 'group' | 'concept' | 'dataView';

/**
 * Path parameters that name no resource of a tenant: always sent with this value (a simulation exports json: csv is
 * for panels; an ontology library is the same for every organisation, its installs are reached through {wsId}).
 */
const FIXED_PARAMS: Record<string, string> = { format: 'csv', ontologyId: ONTOLOGY_ID };
const fixedParam = (template: string, name: string): string | undefined => (name === 'format' && template.includes('/simulations/') ? (template.includes('/rows/') ? 'csv' : 'json') : FIXED_PARAMS[name]);
type Ids = Record<IdKind, string>;

function idKind(template: string, name: string): IdKind {
  if (name === 'wsId') return 'workspace';
  if (name === 'userId') return 'user';
  if (name === 'id' && template.startsWith(`${API}/api-keys/`)) return 'key';
  if (name === 'id' && template.startsWith(`${API}/users/`)) return 'user';
  if (name === 'id' && template.startsWith(`${API}/connectors/`)) return 'connector';
  if (name === 'id' && template.includes('/datasets/{id}')) return 'dataset';
  if (name === 'groupId') return 'group';
  if (name === 'id' && template.includes('/ontology/concepts/{id}')) return 'concept';
  if (name === 'id' && template.includes('/data-views/{id}')) return 'dataView';
  if (name === 'id' && isPanelOperation(template)) return 'panelTwin';
  if (name === 'vId' && isPanelOperation(template)) return 'panelVersion';
  if (name === 'id' && template.includes('/digital-twins/{id}')) return 'twin';
  if (name === 'vId') return /\/(score|scenario-from-query)$/.test(template) ? 'trainedVersion' : 'version';
  if (name === 'id' && template.includes('/simulations/{id}/score')) return 'scoreRun';
  if (name === 'id' && template.includes('/simulations/{id}/rows')) return 'batchRun';
  if (name === 'id' && template.includes('/simulations/{id}')) return 'run';
  if (name === 'id' && template.includes('/jobs/{id}')) return 'job';
  if (name === 'id' && /\/sources\/\{id\}\/(files|extract)$/.test(template)) return 'folder';
  if (name === 'id' && (template.startsWith(`${API}/sources/`) || template.includes('/sources/{id}'))) return 'source';
  throw new Error(`The matrix does not know what {${name}} of ${template} names: teach idKind`);
}

/** Operations only a multi-environment twin answers: their {id} and {vId} name the panel twin and its version. */
const isPanelOperation = (template: string) => /\/digital-twins\/\{id\}\/(environments|environment-groups)|\/versions\/\{vId\}\/(environments|graph\/slice)$/.test(template);

const NONEXISTENT: Ids = {
  workspace: 'ws_00000000000000000000000000',
  user: 'usr_00000000000000000000000000',
  key: 'key_00000000000000000000000000',
  source: 'src_00000000000000000000000000',
  folder: 'src_00000000000000000000000001',
  dataset: 'ds_00000000000000000000000000',
  twin: 'dt_00000000000000000000000000',
  version: 'dtv_00000000000000000000000000',
  job: 'job_00000000000000000000000000',
  trainedVersion: 'dtv_00000000000000000000000001',
  run: 'job_00000000000000000000000001',
  scoreRun: 'job_00000000000000000000000002',
  batchRun: 'job_00000000000000000000000003',
  connector: 'con_00000000000000000000000000',
  panelTwin: 'dt_00000000000000000000000001',
  panelVersion: 'dtv_00000000000000000000000002',
  group: 'eg_00000000000000000000000000',
  concept: 'cpt_00000000000000000000000000',
  dataView: 'dv_00000000000000000000000000',
};

const urlOf = (operation: Operation, ids: Ids) =>
  operation.template.replace(/\{(\w+)\}/g, (_, name: string) => fixedParam(operation.template, name) ?? ids[idKind(operation.template, name)]);

// ---------------------------------------------------------------------------------------------------------------
// Requests and assertions.
// ---------------------------------------------------------------------------------------------------------------

type Credential = Pick<CallOptions, 'key' | 'headers' | 'remoteAddress'>;

/** The operation's sample request on `ids`, sent with `credential`. */
function send(world: TestApp, operation: Operation, ids: Ids, credential: Credential): Promise<Response> {
  const sample = SAMPLES[operation.id];
  assert.ok(sample, `${operation.label} (${operation.id}) has no sample request in SAMPLES`);
  const body = typeof sample.body === 'function' ? (sample.body as (ids: Ids) => unknown)(ids) : sample.body;
  const headers = { ...(sample.contentType !== undefined && { 'content-type': sample.contentType }), ...credential.headers };
  const url = urlOf(operation, ids) + (sample.query === undefined ? '' : `?${sample.query}`);
  if (sample.stream === true) return openStream(world, url, credential);
  return world.call({ method: operation.method as CallOptions['method'], url, body, ...credential, headers });
}

/** A GET answering an event stream that stays open: the status and headers, and the first event (or the problem document). */
async function openStream(world: TestApp, url: string, credential: Credential): Promise<Response> {
  const key = credential.key === undefined ? world.tenant.key : credential.key;
  const headers = { accept: 'text/event-stream', ...(key === null ? {} : { authorization: `Bearer ${key}` }), ...credential.headers };
  const raw = await world.app.inject({ method: 'GET', url, headers, payloadAsStream: true, ...(credential.remoteAddress === undefined ? {} : { remoteAddress: credential.remoteAddress }) });
  const stream = raw.stream();
  if (String(raw.headers['content-type']).startsWith('text/event-stream')) {
    const first = await new Promise<string>((resolve) => stream.once('data', (chunk: Buffer) => resolve(chunk.toString())));
    stream.destroy();
    return { status: raw.statusCode, headers: raw.headers, body: first, raw } as unknown as Response;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return { status: raw.statusCode, headers: raw.headers, body: JSON.parse(Buffer.concat(chunks).toString()), raw } as unknown as Response;
}

function assertProblem(response: Response, status: number, type: string | null, context: string): void {
  assert.equal(response.status, status, `${context}: expected ${status}, got ${response.status} ${JSON.stringify(response.body)}`);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, `${context}: not a problem document`);
  assert.equal(response.body.status, status, `${context}: problem status`);
  if (type !== null) assert.equal(response.body.type, `urn:causa:problem:${type}`, `${context}: problem type`);
}

/** 401 with a problem document and a Bearer challenge. */
function assertUnauthenticated(response: Response, context: string): void {
  assertProblem(response, 401, 'unauthenticated', context);
  assert.match(String(response.headers['www-authenticate']), /^Bearer realm="causa"$/, `${context}: WWW-Authenticate`);
}

function assertSuccess(response: Response, context: string): void {
  assert.ok(response.status >= 200 && response.status < 300, `${context}: expected success, got ${response.status} ${JSON.stringify(response.body)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Setup helpers.
// ---------------------------------------------------------------------------------------------------------------

interface KeyRequest {
  name?: string;
  scopes?: readonly string[];
  workspaceId?: string;
  expiresAt?: string;
  ipAllowlist?: string;
  forUserId?: string;
}

/** A key issued by the tenant's bootstrap admin key: admin, org-wide, every scope, high rate limit unless told. */
async function createKey(world: TestApp, request: KeyRequest = {}): Promise<{ id: string; key: string }> {
  const response = await world.call({
    method: 'POST',
    url: `${API}/api-keys`,
    body: { name: 'matrix', scopes: [...SCOPES], rateLimit: MANY, ...request },
  });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return { id: response.body.data.id, key: response.body.data.key };
}

let workspaceCounter = 0;
async function createWorkspace(world: TestApp, key: string, name = `Matrix workspace ${++workspaceCounter}`): Promise<string> {
  const response = await world.call({ method: 'POST', url: `${API}/workspaces`, key, body: { name } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function createSource(world: TestApp, key: string, workspaceId: string): Promise<string> {
  // With rows, so that operations on a source's data (re-typing) have some.
  // Forty rows with c = 1.5a + noise, so a twin on it can be trained and simulated.
  const rows = Array.from({ length: 40 }, (_, i) => ({ a: i % 7, b: i % 2 === 0 ? 'x' : 'y', c: 1.5 * (i % 7) + ((i * 37) % 11) / 10 }));
  const body = { name: 'Matrix source', rows };
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/sources/from-data`, key, body });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function createFolder(world: TestApp, key: string, workspaceId: string): Promise<string> {
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/sources`, key, body: { name: 'Matrix folder', dataFormat: 'Folder' } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

/** A storage connector over the organisation's directory of the matrix root, holding matrix.csv. */
async function createConnector(world: TestApp, key: string, organisationId: string): Promise<string> {
  const root = join(STORAGE_ROOT, organisationId);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, 'matrix.csv'), 'a,b\n1,x\n2,y\n3,z\n');
  const response = await world.call({ method: 'POST', url: `${API}/connectors`, key, body: { name: 'Matrix files', type: 'storage', credentials: { root } } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

/** A concept mapping two fields of the matrix source (so that one can be split off), with values to enrich them to. */
async function createConcept(world: TestApp, key: string, workspaceId: string, sourceId: string): Promise<string> {
  const body = { name: 'Matrix concept', fieldMappings: [{ sourceId, field: 'a' }, { sourceId, field: 'c' }], valueMappings: [{ canonicalValue: 'One', aliases: ['1'] }] };
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/ontology/concepts`, key, body });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

/** A saved query over a dataset of its own matrix source (numeric column a: the samples' source stays free to delete), for the data view samples. */
const VIEW_QUERY = 'SELECT sum(a) AS total FROM "Matrix view data"';
async function createDataView(world: TestApp, key: string, workspaceId: string): Promise<string> {
  const sourceId = await createSource(world, key, workspaceId);
  const dataset = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/datasets`, key, body: { name: 'Matrix view data', sources: [{ id: sourceId }] } });
  assert.equal(dataset.status, 201, JSON.stringify(dataset.body));
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/data-views`, key, body: { name: 'Matrix view', query: VIEW_QUERY } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function installOntology(world: TestApp, key: string, workspaceId: string): Promise<void> {
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/ontology/installs`, key, body: { ontologyId: ONTOLOGY_ID } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
}

async function createDataset(world: TestApp, key: string, workspaceId: string): Promise<string> {
  const response = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/datasets`, key, body: { name: 'Matrix dataset' } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

/**
 * A twin over a source of the workspace (the matrix source: numeric columns a and c), its first version with the edge
 * a -> c pinned (so it can be trained), and a job (a discovery of a second version).
 */
async function createTwinTargets(world: TestApp, key: string, workspaceId: string, sourceId: string, simulations = true): Promise<Pick<Ids, 'twin' | 'version' | 'job' | 'trainedVersion' | 'run' | 'scoreRun' | 'batchRun' | 'panelTwin' | 'panelVersion' | 'group'>> {
  const twin = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins`, key, body: { name: 'Matrix twin', sourceId } });
  assert.equal(twin.status, 201, JSON.stringify(twin.body));
  const base = `${API}/workspaces/${workspaceId}/digital-twins/${twin.body.data.id}/versions/${twin.body.data.versionId}`;
  const pinned = await world.call({ method: 'PATCH', url: `${base}/graph/fixed`, key, body: { addEdges: [{ source: 'a', target: 'c' }] } });
  assert.equal(pinned.status, 200, JSON.stringify(pinned.body));
  // The job learns another version, so that the sample jobs on the first one are not refused as concurrent (409).
  const other = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins/${twin.body.data.id}/versions`, key, body: { bump: 'minor' } });
  const job = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins/${twin.body.data.id}/versions/${other.body.data.id}/discover`, key, body: { bootstrapSamples: 0 } });
  assert.equal(job.status, 202, JSON.stringify(job.body));
  const ids = { twin: twin.body.data.id, version: twin.body.data.versionId, job: job.body.data.jobId, ...(await createPanelTargets(world, key, workspaceId)) };
  if (!simulations) return { ...ids, trainedVersion: NONEXISTENT.trainedVersion, run: NONEXISTENT.run, scoreRun: NONEXISTENT.scoreRun, batchRun: NONEXISTENT.batchRun };
  return { ...ids, ...(await createSimulationTargets(world, key, workspaceId, ids.twin)) };
}

/** A multi-environment twin learned on a small generated panel (environments: the values of site), its first version, and a group on it. */
async function createPanelTargets(world: TestApp, key: string, workspaceId: string): Promise<Pick<Ids, 'panelTwin' | 'panelVersion' | 'group'>> {
  const rows = panelRows(panelTruth(3, 1, { minRows: 40, maxRows: 41 }), 2);
  const source = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/sources/from-data`, key, body: { name: 'Matrix panel', rows } });
  assert.equal(source.status, 201, JSON.stringify(source.body));
  const body = { name: 'Matrix panel twin', type: 'multi-environment-static', sourceId: source.body.data.id, environmentColumns: ['site'] };
  const twin = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins`, key, body });
  assert.equal(twin.status, 201, JSON.stringify(twin.body));
  const pipeline = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins/${twin.body.data.id}/run-pipeline`, key, body: { bootstrapSamples: 0 } });
  assert.equal(pipeline.status, 202, JSON.stringify(pipeline.body));
  await until(world, key, `${API}/workspaces/${workspaceId}/jobs/${pipeline.body.data.jobId}`);
  const definition = { mode: 'columnValues', columnValues: { site: ['s000'] } };
  const group = await world.call({ method: 'POST', url: `${API}/workspaces/${workspaceId}/digital-twins/${twin.body.data.id}/environment-groups`, key, body: { name: 'Matrix group', definition } });
  assert.equal(group.status, 201, JSON.stringify(group.body));
  return { panelTwin: twin.body.data.id, panelVersion: twin.body.data.versionId, group: group.body.data.id };
}

/** A trained version of the twin (a third one), a completed range-intervention run on it, a completed scoring run and a batch prediction kept in the data store. */
async function createSimulationTargets(world: TestApp, key: string, workspaceId: string, twinId: string): Promise<Pick<Ids, 'trainedVersion' | 'run' | 'scoreRun' | 'batchRun'>> {
  const ws = `${API}/workspaces/${workspaceId}`;
  const version = await world.call({ method: 'POST', url: `${ws}/digital-twins/${twinId}/versions`, key, body: { bump: 'major' } });
  const base = `${ws}/digital-twins/${twinId}/versions/${version.body.data.id}`;
  await world.call({ method: 'PATCH', url: `${base}/graph/fixed`, key, body: { addEdges: [{ source: 'a', target: 'c' }] } });
  const pipeline = await world.call({ method: 'POST', url: `${ws}/digital-twins/${twinId}/run-pipeline`, key, body: { versionId: version.body.data.id, bootstrapSamples: 0 } });
  assert.equal(pipeline.status, 202, JSON.stringify(pipeline.body));
  await until(world, key, `${ws}/jobs/${pipeline.body.data.jobId}`);
  const scenario = { type: 'intervention', interventions: [{ variable: 'a', valueSpec: { type: 'range', from: 0, to: 6, steps: 3 } }], samples: 500 };
  const run = await world.call({ method: 'POST', url: `${ws}/simulations`, key, body: { digitalTwinId: twinId, digitalTwinVersionId: version.body.data.id, scenario } });
  assert.equal(run.status, 202, JSON.stringify(run.body));
  const score = await world.call({ method: 'POST', url: `${base}/score`, key, body: SAMPLES.scoreRows!.body });
  assert.equal(score.status, 202, JSON.stringify(score.body));
  const batchScenario = { type: 'prediction', sample: [{ a: 1 }, { a: 2 }], targetVars: ['c'], resultsStorage: 'datastore' };
  const batch = await world.call({ method: 'POST', url: `${ws}/simulations`, key, body: { digitalTwinId: twinId, digitalTwinVersionId: version.body.data.id, scenario: batchScenario } });
  assert.equal(batch.status, 202, JSON.stringify(batch.body));
  await until(world, key, `${ws}/simulations/${run.body.data.runId}`);
  await until(world, key, `${ws}/simulations/${score.body.data.runId}`);
  await until(world, key, `${ws}/simulations/${batch.body.data.runId}`);
  return { trainedVersion: version.body.data.id, run: run.body.data.runId, scoreRun: score.body.data.runId, batchRun: batch.body.data.runId };
}

/** Polls a job or run until it completed. */
async function until(world: TestApp, key: string, url: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    const status = (await world.call({ method: 'GET', url, key })).body.data.status;
    if (status === 'completed') return;
    assert.ok(!['failed', 'cancelled'].includes(status), `${url} ended ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`${url} did not complete`);
}

async function createMember(world: TestApp, key: string, name: string): Promise<string> {
  const response = await world.call({ method: 'POST', url: `${API}/users`, key, body: { name, role: 'member' } });
  assert.equal(response.status, 201, JSON.stringify(response.body));
  return response.body.data.id;
}

async function grant(world: TestApp, key: string, workspaceId: string, userId: string, level: 'read' | 'write' | 'full'): Promise<void> {
  const response = await world.call({ method: 'PUT', url: `${API}/workspaces/${workspaceId}/members/${userId}`, key, body: { level } });
  assert.equal(response.status, 200, JSON.stringify(response.body));
}

/** A new workspace, a member with read on it, and a spare key: targets an operation may change or delete. */
async function freshTargets(world: TestApp, admin: string, operation: Operation): Promise<Ids> {
  const workspace = await createWorkspace(world, admin);
  const user = await createMember(world, admin, `Member of ${workspace}`);
  await grant(world, admin, workspace, user, 'read');
  const { id: key } = await createKey(world, { name: 'spare', scopes: [UNRELATED_SCOPE] });
  const source = await createSource(world, admin, workspace);
  const connector = await createConnector(world, admin, world.tenant.organisationId);
  // Reading or removing an install needs one.
  if (operation.template.includes('/ontology/installs/{ontologyId}')) await installOntology(world, admin, workspace);
  return {
    workspace, user, key, source, connector,
    folder: await createFolder(world, admin, workspace),
    dataset: await createDataset(world, admin, workspace),
    concept: await createConcept(world, admin, workspace, source),
    dataView: await createDataView(world, admin, workspace),
    ...(await createTwinTargets(world, admin, workspace, source, needsRuns(operation))),
  };
}

/** Only simulation operations need a trained version and runs (training one per operation would be slow). */
const needsRuns = (operation: Operation) => operation.params.some((p) => ['trainedVersion', 'run', 'scoreRun', 'batchRun'].includes(p.kind)) || operation.id === 'submitSimulation';

/** Keys that differ in one property from a valid admin key, plus the ids the matrix points them at. */
interface Matrix {
  world: TestApp;
  operations: Operation[];
  /** Org-wide admin key with every scope and a high rate limit. */
  admin: string;
  /** The tenant's targets: workspace A, a member user with read on A, a spare key, a source and a dataset in A. */
  ids: Ids;
  /** Workspace B: same organisation, outside the pinned key. */
  workspaceB: string;
  /** The other organisation's workspace, user, key and source. */
  otherIds: Ids;
  keys: { pinnedToA: string; expired: string; revoked: string; onlyFromTenNet: string };
  keyWithout(scope: Scope): Promise<string>;
  keyWithOnly(scope: Scope): Promise<string>;
}

async function buildMatrix(t: TestContext): Promise<Matrix> {
  const world = await buildTestApp(t, {}, testConfig({ storageRoots: [STORAGE_ROOT] }));
  const { key: admin } = await createKey(world, { name: 'matrix admin' });
  const workspaceA = await createWorkspace(world, admin, 'Workspace A');
  const workspaceB = await createWorkspace(world, admin, 'Workspace B');
  const member = await createMember(world, admin, 'Mia Member');
  await grant(world, admin, workspaceA, member, 'read');
  const spare = await createKey(world, { name: 'spare', scopes: [UNRELATED_SCOPE] });

  const otherKeys = await world.call({ method: 'GET', url: `${API}/api-keys`, key: world.other.key });
  const otherKeyId: string = otherKeys.body.data[0].id;

  const expired = await createKey(world, { name: 'expired', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
  // The API refuses past expiry dates, so the clock is moved for this key in the store. It is not used before,
  // so no cached credential hides the change.
  await world.context.meta.db.updateTable('api_keys').set({ expires_at: '2020-01-01T00:00:00.000Z' }).where('id', '=', expired.id).execute();

  const revoked = await createKey(world, { name: 'revoked' });
  assert.equal((await world.call({ method: 'GET', url: `${API}/me`, key: revoked.key })).status, 200, 'the key works before it is revoked');
  const revocation = await world.call({ method: 'POST', url: `${API}/api-keys/${revoked.id}/revoke` });
  assert.equal(revocation.status, 200);

  const without = new Map<Scope, Promise<string>>();
  const only = new Map<Scope, Promise<string>>();
  const cached = (cache: Map<Scope, Promise<string>>, scope: Scope, scopes: Scope[]) => {
    if (!cache.has(scope)) cache.set(scope, createKey(world, { name: `scopes ${scopes.length}`, scopes }).then((k) => k.key));
    return cache.get(scope)!;
  };

  return {
    world,
    operations: authenticatedOperations(world.app),
    admin,
    ids: await (async () => {
      const source = await createSource(world, admin, workspaceA);
      const rest = { folder: await createFolder(world, admin, workspaceA), dataset: await createDataset(world, admin, workspaceA), connector: await createConnector(world, admin, world.tenant.organisationId), concept: await createConcept(world, admin, workspaceA, source), dataView: await createDataView(world, admin, workspaceA) };
      return { workspace: workspaceA, user: member, key: spare.id, source, ...rest, ...(await createTwinTargets(world, admin, workspaceA, source)) };
    })(),
    workspaceB,
    otherIds: await (async () => {
      const [key, workspace] = [world.other.key, world.other.libraryWorkspaceId];
      const source = await createSource(world, key, workspace);
      const rest = { folder: await createFolder(world, key, workspace), dataset: await createDataset(world, key, workspace), connector: await createConnector(world, key, world.other.organisationId), concept: await createConcept(world, key, workspace, source), dataView: await createDataView(world, key, workspace) };
      return { workspace, user: world.other.userId, key: otherKeyId, source, ...rest, ...(await createTwinTargets(world, key, workspace, source)) };
    })(),
    keys: {
      pinnedToA: (await createKey(world, { name: 'pinned to A', workspaceId: workspaceA })).key,
      expired: expired.key,
      revoked: revoked.key,
      onlyFromTenNet: (await createKey(world, { name: '10/8 only', ipAllowlist: '10.0.0.0/8' })).key,
    },
    keyWithout: (scope) => cached(without, scope, SCOPES.filter((s) => s !== scope)),
    keyWithOnly: (scope) => cached(only, scope, [scope]),
  };
}

/** Runs `check` as one subtest per operation, named after the operation. */
async function forEach(t: TestContext, operations: Operation[], check: (operation: Operation) => Promise<void>): Promise<void> {
  for (const operation of operations) await t.test(operation.label, () => check(operation));
}

// ---------------------------------------------------------------------------------------------------------------
// The matrix.
// ---------------------------------------------------------------------------------------------------------------

test('every authenticated operation of the OpenAPI document has a sample request in the matrix, and no sample is stale', async (t) => {
  const { app } = await buildTestApp(t);
  const operations = authenticatedOperations(app);
  assert.ok(operations.length > 0, 'the document serves no authenticated operation');
  const missing = operations.filter((op) => SAMPLES[op.id] === undefined).map((op) => `${op.id} (${op.label})`);
  assert.deepEqual(missing, [], 'add a sample request for these operations to SAMPLES');
  const served = new Set(operations.map((op) => op.id));
  assert.deepEqual(Object.keys(SAMPLES).filter((id) => !served.has(id)), [], 'these samples name no served operation');
});

test('the authorization matrix holds for every authenticated operation', async (t) => {
  const m = await buildMatrix(t);
  const { world } = m;

  await t.test('with a key holding only the scope the description names, the sample request succeeds', async (t) => {
    await forEach(t, m.operations, async (op) => {
      const key = await m.keyWithOnly(op.scope ?? UNRELATED_SCOPE);
      assertSuccess(await send(world, op, await freshTargets(world, m.admin, op), { key }), op.label);
    });
  });

  await t.test('a request without a credential answers 401 with a Bearer challenge', async (t) => {
    await forEach(t, m.operations, async (op) => assertUnauthenticated(await send(world, op, m.ids, { key: null }), op.label));
  });

  const badAuthorizations: Array<[string, string]> = [
    ['an unknown pk_ key', `Bearer pk_${'A'.repeat(43)}`],
    ['a valid key with its last character changed', `Bearer ${m.admin.slice(0, -1)}${m.admin.endsWith('x') ? 'y' : 'x'}`],
    ['a token without the pk_ prefix', 'Bearer not-an-api-key'],
    ['a Bearer header without a token', 'Bearer '],
    ['another authentication scheme', `Basic ${Buffer.from(`user:${m.admin}`).toString('base64')}`],
    ['a bare key without a scheme', m.admin],
  ];
  for (const [name, authorization] of badAuthorizations) {
    await t.test(`${name} answers 401 with a Bearer challenge`, async (t) => {
      await forEach(t, m.operations, async (op) =>
        assertUnauthenticated(await send(world, op, m.ids, { key: null, headers: { authorization } }), op.label));
    });
  }

  await t.test('a key with every scope but the one an operation names answers 403', async (t) => {
    await forEach(t, m.operations.filter((op) => op.scope !== null), async (op) => {
      const response = await send(world, op, m.ids, { key: await m.keyWithout(op.scope!) });
      assertProblem(response, 403, 'missing-scope', op.label);
      assert.ok(String(response.body.detail).includes(op.scope!), `${op.label}: the detail names the missing scope`);
    });
  });

  const withPathParameters = m.operations.filter((op) => op.params.length > 0);

  await t.test("resources of the other organisation answer 404 to the tenant's full key, never 403 or success", async (t) => {
    await forEach(t, withPathParameters, async (op) =>
      assertProblem(await send(world, op, m.otherIds, { key: world.tenant.key }), 404, 'not-found', op.label));

    await t.test('and the other organisation finds its resources untouched', async () => {
      const other = { key: world.other.key };
      assert.equal((await world.call({ method: 'GET', url: `${API}/workspaces/${m.otherIds.workspace}`, ...other })).status, 200);
      assert.equal((await world.call({ method: 'GET', url: `${API}/users/${m.otherIds.user}`, ...other })).status, 200);
      const key = await world.call({ method: 'GET', url: `${API}/api-keys/${m.otherIds.key}`, ...other });
      assert.equal(key.body.data.status, 'active');
    });
  });

  await t.test("an id of the other organisation in any one path parameter answers exactly like an id that does not exist", async (t) => {
    await forEach(t, withPathParameters, async (op) => {
      for (const { name, kind } of op.params) {
        const context = `${op.label} with a foreign {${name}}`;
        const foreign = await send(world, op, { ...m.ids, [kind]: m.otherIds[kind] }, { key: world.tenant.key });
        const absent = await send(world, op, { ...m.ids, [kind]: NONEXISTENT[kind] }, { key: world.tenant.key });
        assert.equal(foreign.status, absent.status, `${context}: ${foreign.status} differs from an absent id's ${absent.status}`);
        assert.equal(foreign.body.type, absent.body.type, `${context}: problem type`);
        assert.ok(foreign.status >= 400 && foreign.status !== 403, `${context}: answered ${foreign.status}`);
      }
    });
  });

  await t.test('a key pinned to workspace A answers 403 on workspace B of the same organisation', async (t) => {
    await forEach(t, m.operations.filter((op) => op.params.some((p) => p.name === 'wsId')), async (op) =>
      assertProblem(await send(world, op, { ...m.ids, workspace: m.workspaceB }, { key: m.keys.pinnedToA }), 403, 'workspace-out-of-scope', op.label));
  });

  await t.test('a key pinned to workspace A reads A, lists only A and cannot create workspaces', async () => {
    const key = m.keys.pinnedToA;
    assert.equal((await world.call({ method: 'GET', url: `${API}/workspaces/${m.ids.workspace}`, key })).status, 200);
    const listed = await world.call({ method: 'GET', url: `${API}/workspaces`, key });
    assert.deepEqual(listed.body.data.map((w: { id: string }) => w.id), [m.ids.workspace]);
    const created = await world.call({ method: 'POST', url: `${API}/workspaces`, key, body: { name: 'Pinned creation' } });
    assertProblem(created, 403, 'workspace-out-of-scope', 'POST /workspaces with a pinned key');
  });

  const refusedKeys: Array<{ name: string; key: string; check: (response: Response, context: string) => void }> = [
    { name: 'an expired key answers 401', key: m.keys.expired, check: assertUnauthenticated },
    { name: 'a revoked key answers 401', key: m.keys.revoked, check: assertUnauthenticated },
    {
      name: 'a key whose IP allowlist excludes the caller answers 403',
      key: m.keys.onlyFromTenNet,
      check: (response, context) => assertProblem(response, 403, 'ip-not-allowed', context),
    },
  ];
  for (const { name, key, check } of refusedKeys) {
    await t.test(name, async (t) => {
      await forEach(t, m.operations, async (op) => check(await send(world, op, m.ids, { key, remoteAddress: '127.0.0.1' }), op.label));
    });
  }

  await t.test('a key with an IP allowlist works from an address inside it and is refused from one outside', async () => {
    const me = (remoteAddress: string) => world.call({ method: 'GET', url: `${API}/me`, key: m.keys.onlyFromTenNet, remoteAddress });
    assertProblem(await me('127.0.0.1'), 403, 'ip-not-allowed', 'GET /me from 127.0.0.1');
    assertProblem(await me('11.1.2.3'), 403, 'ip-not-allowed', 'GET /me from 11.1.2.3');
    for (const inside of ['10.1.2.3', '::ffff:10.1.2.3']) {
      const response = await me(inside);
      assert.notEqual(response.status, 401, `GET /me from ${inside}`);
      assert.notEqual(response.status, 403, `GET /me from ${inside}`);
      assert.equal(response.status, 200, `GET /me from ${inside}`);
      assert.equal(response.body.data.userId, world.tenant.userId);
    }
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Membership levels: what a member user's key (every scope, org-wide) may do is decided by its membership.
// ---------------------------------------------------------------------------------------------------------------

test("membership levels decide what a member's key may do in a workspace", async (t) => {
  const world = await buildTestApp(t);
  const admin = world.tenant.key;
  const memberId = await createMember(world, admin, 'Max Member');
  const { key: member } = await createKey(world, { name: 'member key', forUserId: memberId });
  const workspace = await createWorkspace(world, admin, 'Shared');
  const url = `${API}/workspaces/${workspace}`;
  const as = (method: CallOptions['method'], path: string, body?: unknown) => world.call({ method, url: path, key: member, body });
  const level = (l: 'read' | 'write' | 'full') => grant(world, admin, workspace, memberId, l);

  await t.test('without a membership a member can neither get the workspace nor see it listed', async () => {
    assertProblem(await as('GET', url), 403, 'forbidden', 'GET without membership');
    const listed = await as('GET', `${API}/workspaces`);
    assert.equal(listed.status, 200);
    assert.deepEqual(listed.body.data, []);
  });

  await t.test('read lets a member get and list the workspace but not rename it, grant access or delete it', async () => {
    await level('read');
    assert.equal((await as('GET', url)).status, 200);
    assert.deepEqual((await as('GET', `${API}/workspaces`)).body.data.map((w: { id: string }) => w.id), [workspace]);
    assert.equal((await as('GET', `${url}/members`)).status, 200);
    assertProblem(await as('PATCH', url, { name: 'Renamed by a reader' }), 403, 'forbidden', 'PATCH with read');
    assertProblem(await as('PUT', `${url}/members/${memberId}`, { level: 'full' }), 403, 'forbidden', 'PUT member with read');
    assertProblem(await as('DELETE', url), 403, 'forbidden', 'DELETE with read');
  });

  await t.test('write lets a member rename the workspace but not grant access or delete it', async () => {
    await level('write');
    const renamed = await as('PATCH', url, { name: 'Renamed by a writer' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.data.name, 'Renamed by a writer');
    assertProblem(await as('PUT', `${url}/members/${memberId}`, { level: 'full' }), 403, 'forbidden', 'PUT member with write');
    assertProblem(await as('DELETE', url), 403, 'forbidden', 'DELETE with write');
  });

  await t.test('full lets a member delete the workspace', async () => {
    await level('full');
    const deleted = await as('DELETE', url);
    assert.equal(deleted.status, 204);
    assert.equal((await world.call({ method: 'GET', url, key: admin })).status, 404);
  });

  await t.test("a member's key is refused by the admin-only endpoints", async (t) => {
    const { id: someKey } = await createKey(world, { name: 'target', scopes: [UNRELATED_SCOPE] });
    const adminOnly: Array<[CallOptions['method'], string, unknown?]> = [
      ['POST', `${API}/api-keys`, { name: 'by a member', scopes: [UNRELATED_SCOPE] }],
      ['GET', `${API}/api-keys`],
      ['GET', `${API}/api-keys/${someKey}`],
      ['POST', `${API}/api-keys/${someKey}/revoke`],
      ['POST', `${API}/users`, { name: 'Added by a member' }],
      ['GET', `${API}/users`],
    ];
    for (const [method, path, body] of adminOnly) {
      await t.test(`${method} ${path.replace(someKey, '{id}')}`, async () => assertProblem(await as(method, path, body), 403, 'forbidden', `${method} ${path}`));
    }
    const target = await world.call({ method: 'GET', url: `${API}/api-keys/${someKey}`, key: admin });
    assert.equal(target.body.data.status, 'active', 'the refused revoke changed nothing');
  });

  await t.test('a member reads who it is, but not the directory of its organisation', async () => {
    const me = await as('GET', `${API}/me`);
    assert.equal(me.status, 200);
    assert.equal(me.body.data.userId, memberId);
    assert.equal((await as('GET', `${API}/users`)).status, 403);
    assert.equal((await as('GET', `${API}/users/${memberId}`)).status, 403);
  });
});

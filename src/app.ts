import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerAjvFormats } from '@fastify/type-provider-typebox';
import { ApiKeySchema, CreatedApiKeySchema, MeSchema, UserSchema } from '../schemas/identity.js';
import { PaginationSchema } from '../schemas/common.js';
import { WorkspaceMemberSchema, WorkspaceSchema } from '../schemas/workspaces.js';
import { ColumnMetadataSchema, OrgSourceSchema, SchemaEntrySchema, SourceFileSchema, SourceSchema } from '../schemas/sources.js';
import { CatalogTableSchema, CatalogViewSchema } from '../schemas/catalog.js';
import { DatasetSchema } from '../schemas/datasets.js';
import { JobAcceptedSchema, JobSchema } from '../schemas/jobs.js';
import { BrowseEntrySchema, ClickHouseCredentialsSchema, ConnectionStringCredentialsSchema, ConnectorSchema, DirectQueryRowsSchema, RowsSchema, SqlFieldCredentialsSchema, StorageCredentialsSchema } from '../schemas/connectors.js';
import { DigitalTwinSchema, TwinVersionSchema } from '../schemas/twins.js';
import { EnvironmentGroupDefinitionSchema, EnvironmentGroupSchema, EnvironmentResolutionSchema, EnvironmentSchema, GraphSliceSchema, StatFilterSchema } from '../schemas/environments.js';
import { registeredFamilies } from './families/registry.js';
import {
  ScenarioFromQuerySchema,
  ScoreSchema,
  SimulationAcceptedSchema,
  SimulationRunSchema,
  SimulationRunStatusSchema,
  SimulationRunSummarySchema,
  SweepSchema,
  EffectIdentificationSchema,
} from '../schemas/simulations.js';
import { apiKeyRoutes } from './api-keys/routes.js';
import type { Context } from './context.js';
import { credentialRecheck, installGate } from './http/auth.js';
import { installIdempotency } from './http/idempotency.js';
import { API_PREFIX, describeRoutes, installOpenApi } from './http/openapi.js';
import { installOperations } from './http/operations.js';
import { lazySerializers } from './http/serialization.js';
import { CatalogConceptSchema, CatalogGraphSchema, ConceptSchema, ConceptSplitSchema, DownstreamSchema, EnrichmentStatusSchema } from '../schemas/ontology.js';
import { ontologyRoutes } from './ontology/routes.js';
import { ontologyLibraryRoutes } from './ontology/libraries/routes.js';
import { LibraryConceptSchema, OntologyInstallDetailSchema, OntologyInstallResultSchema, OntologyInstallSchema, OntologyLibrarySchema, OntologyLibrarySummarySchema } from '../schemas/ontology-libraries.js';
import { queryRoutes } from './query/routes.js';
import { dataViewRoutes } from './query/views/routes.js';
import { DataViewSchema } from '../schemas/data-views.js';
import { QueryResultSchema } from '../schemas/query.js';
import { installProblemHandling } from './http/problems.js';
import { OneLinePerRequest } from './http/request-log.js';
import { validatorCompiler } from './http/validation.js';
import './http/types.js';
import { mcpRoutes } from './mcp/routes.js';
import { McpServer } from './mcp/server.js';
import { readResource } from './mcp/resources.js';
import { McpSessions } from './mcp/sessions.js';
import { McpStreams } from './mcp/streams.js';
import { meRoutes } from './me/routes.js';
import { catalogRoutes } from './catalog/routes.js';
import { datasetRoutes } from './datasets/routes.js';
import { jobRoutes } from './jobs/routes.js';
import { sourceRoutes } from './sources/routes.js';
import { twinRoutes } from './twins/routes.js';
import { environmentRoutes } from './twins/environments/routes.js';
import { connectorRoutes } from './connectors/routes.js';
import { simulationRoutes } from './simulations/routes.js';
import { userRoutes } from './users/routes.js';
import { workspaceRoutes } from './workspaces/routes.js';
import { keepTickShape } from './lib/tick-shape.js';

/** JSON bodies of the API are small; file uploads get their own limit on their own routes. */
export const JSON_BODY_LIMIT = 1024 * 1024;
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Request ids: a random per-process prefix and a counter: unique across processes, cheaper than a UUID. */
function requestIdGenerator(): () => string {
  const prefix = randomBytes(6).toString('hex');
  let counter = 0;
  return () => `${prefix}-${(counter++).toString(36)}`;
}

registerAjvFormats();
// Before building the app allocates enough to run full collections: see lib/tick-shape.ts (5-8 µs per request).
keepTickShape();

/**
 * Builds the HTTP application over a context (never listens; server.ts does). Closing the app closes the
 * context's stores, after in-flight requests have drained.
 */
export async function buildApp(context: Context, options: { logger?: boolean; logStream?: { write(line: string): void }; eagerSerializers?: boolean } = {}): Promise<FastifyInstance> {
  const nextRequestId = requestIdGenerator();
  const app = Fastify({
    logger: options.logger === false ? false : { level: context.config.logLevel, ...(options.logStream && { stream: options.logStream }) },
    logController: new OneLinePerRequest(),
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : nextRequestId();
    },
    bodyLimit: JSON_BODY_LIMIT,
    trustProxy: false,
    return503OnClosing: true,
    schemaController: { compilersFactory: { buildSerializer: lazySerializers({ eager: options.eagerSerializers === true }) } },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.addHook('onClose', async () => context.close());
  app.addHook('onReady', async () => context.jobRunner.start(app.log));

  installProblemHandling(app);
  describeRoutes(app, [PaginationSchema, MeSchema, UserSchema, ApiKeySchema, CreatedApiKeySchema, WorkspaceSchema, WorkspaceMemberSchema, SchemaEntrySchema, ColumnMetadataSchema, SourceSchema, OrgSourceSchema, SourceFileSchema, DatasetSchema, CatalogTableSchema, CatalogViewSchema, JobSchema, JobAcceptedSchema,
    // Environment groups before the twin, which references them.
    StatFilterSchema, EnvironmentGroupDefinitionSchema, EnvironmentGroupSchema, EnvironmentSchema, EnvironmentResolutionSchema, GraphSliceSchema, DigitalTwinSchema, TwinVersionSchema,
    ConnectorSchema, BrowseEntrySchema, RowsSchema, DirectQueryRowsSchema, SqlFieldCredentialsSchema, ConnectionStringCredentialsSchema, ClickHouseCredentialsSchema, StorageCredentialsSchema,
    ConceptSchema, ConceptSplitSchema, DownstreamSchema, EnrichmentStatusSchema, CatalogConceptSchema, CatalogGraphSchema, QueryResultSchema, DataViewSchema,
    LibraryConceptSchema, OntologyLibrarySummarySchema, OntologyLibrarySchema, OntologyInstallSchema, OntologyInstallResultSchema, OntologyInstallDetailSchema,
    SimulationAcceptedSchema, SimulationRunSchema, SimulationRunStatusSchema, SimulationRunSummarySchema, SweepSchema, EffectIdentificationSchema, ScoreSchema, ScenarioFromQuerySchema,
    // The scenario families: documented as components (the submit body's `scenario` names them; the service validates per family).
    ...registeredFamilies().map((family) => family.schema)]);
  installGate(app, context.apiKeys, context.limiter);
  installIdempotency(app, context.idempotency);
  await installOpenApi(app);
  installOperations(app, [
    { name: 'metadataStore', check: () => context.meta.ping() },
    { name: 'rateLimiter', check: () => context.limiter.ping() },
    { name: 'dataStore', check: () => context.data().ping() },
  ]);

  // Draining: a connection whose last request was in flight when the close began is closed as soon as it falls
  // idle. The server's close closes only the connections idle at that moment; the others were kept for the
  // keep-alive timeout (72 s), so a stopped server waited that long for a client that sent one last request.
  app.addHook('preClose', async () => {
    if (!app.server.listening) return;
    const idle = setInterval(() => app.server.closeIdleConnections(), 50).unref();
    app.server.once('close', () => clearInterval(idle));
  });

  // MCP event streams end before the server closes (they would hold it open).
  const mcpStreams = new McpStreams();
  app.addHook('preClose', async () => mcpStreams.closeAll());
  const mcpSessions = new McpSessions(mcpStreams, async (principal, uri) => (await readResource(context, principal, uri)).text);
  app.addHook('onClose', async () => mcpSessions.close());
  const mcp = new McpServer(context, mcpSessions);
  await app.register(
    async (api) => {
      meRoutes(api);
      mcpRoutes(api, mcp, mcpStreams, context.config.mcpAllowedOrigins, credentialRecheck(context.apiKeys));
      apiKeyRoutes(api, context.apiKeys);
      userRoutes(api, context.users);
      workspaceRoutes(api, context.workspaces);
      sourceRoutes(api, context.sources, context.sourceBatches);
      datasetRoutes(api, context.datasets);
      catalogRoutes(api, context.catalog);
      ontologyRoutes(api, context.ontology);
      ontologyLibraryRoutes(api, context.ontologyLibraries);
      queryRoutes(api, context.queries);
      dataViewRoutes(api, context.dataViews);
      jobRoutes(api, context.jobs);
      twinRoutes(api, context.twins);
      environmentRoutes(api, context.environments);
      simulationRoutes(api, context.simulations);
      connectorRoutes(api, context.connectors);
    },
    { prefix: API_PREFIX },
  );
  return app;
}

import { join } from 'node:path';
import type { Config } from './config.js';
import { ApiKeyRepo } from './api-keys/repo.js';
import { ApiKeyService } from './api-keys/service.js';
import { CursorCodec } from './lib/cursor.js';
import { IdempotencyRepo } from './http/idempotency-repo.js';
import { deriveKey, resolveSecretKey } from './lib/secret-key.js';
import { OrganisationRepo } from './organisations/repo.js';
import { OrganisationService } from './organisations/service.js';
import { createMemoryRateLimiter } from './store/limiter/memory.js';
import type { RateLimiter } from './store/limiter/port.js';
import { createRedisRateLimiter } from './store/limiter/redis.js';
import { openMetaStore } from './store/meta/open.js';
import { openDataStore } from './store/data/open.js';
import type { DataStore } from './store/data/port.js';
import { createMemoryBus } from './store/bus/memory.js';
import type { InvalidationBus } from './store/bus/port.js';
import { createRedisBus } from './store/bus/redis.js';
import type { MetaStore } from './store/meta/port.js';
import { CatalogService } from './catalog/service.js';
import { DatasetRepo } from './datasets/repo.js';
import { DatasetService, datasetConcepts } from './datasets/service.js';
import { SourceFileRepo } from './sources/files-repo.js';
import { FolderFiles } from './sources/folders.js';
import { SourceRepo } from './sources/repo.js';
import { SourceBatches } from './sources/batches.js';
import { SourceWriters } from './sources/lease.js';
import { SourceService } from './sources/service.js';
import { toSource } from './sources/records.js';
import { TableLoader } from './tables/loader.js';
import { ComputePool } from './compute/pool.js';
import { JobRepo } from './jobs/repo.js';
import { JobRunner } from './jobs/runner.js';
import { JobService } from './jobs/service.js';
import { TwinLearning } from './twins/learning.js';
import { SimulationExecution } from './simulations/execution.js';
import { BatchExecution } from './simulations/batch/run.js';
import { BatchRows } from './simulations/batch/rows-from.js';
import { ScenarioHandoff } from './simulations/handoff.js';
import { MetricSql } from './simulations/metric-sql.js';
import { SimulationRepo } from './simulations/repo.js';
import { PanelArtifacts } from './simulations/panel-artifacts.js';
import { SimulationService } from './simulations/service.js';
import { TwinRepo } from './twins/repo.js';
import { TwinService } from './twins/service.js';
import { TrainedVersions } from './twins/trained-versions.js';
import { EnvironmentService } from './twins/environments/service.js';
import { WebhookSender } from './webhooks/deliver.js';
import { UserRepo } from './users/repo.js';
import { UserService } from './users/service.js';
import { WorkspaceAccess } from './workspaces/access.js';
import { WorkspaceRepo } from './workspaces/repo.js';
import { WorkspaceService } from './workspaces/service.js';
import { CredentialCipher } from './connectors/credential-cipher.js';
import { hostGate } from './connectors/drivers/network.js';
import { ConnectorImport } from './connectors/import-job.js';
import { ConnectorRepo } from './connectors/repo.js';
import { ConnectorService } from './connectors/service.js';
import { ConceptEnrichment } from './ontology/enrichment.js';
import { OntologyExtraction } from './ontology/extraction.js';
import { BUNDLED_LIBRARIES } from './ontology/libraries/index.js';
import { LibraryRegistry } from './ontology/libraries/registry.js';
import { OntologyInstallRepo } from './ontology/libraries/repo.js';
import { OntologyLibraryService } from './ontology/libraries/service.js';
import type { OntologyLibrary } from '../schemas/ontology-libraries.js';
import { ConceptRepo } from './ontology/repo.js';
import { OntologyService } from './ontology/service.js';
import { QueryService } from './query/service.js';
import { DataViewRepo } from './query/views/repo.js';
import { DataViewService } from './query/views/service.js';

/** The stores and services of one process, wired once; the HTTP app and the CLI both use it. */
export interface Context {
  config: Config;
  meta: MetaStore;
  limiter: RateLimiter;
  bus: InvalidationBus;
  /** The data store, opened on first use (the CLI never needs it). */
  data(): DataStore;
  cursors: CursorCodec;
  organisations: OrganisationService;
  apiKeys: ApiKeyService;
  users: UserService;
  workspaces: WorkspaceService;
  workspaceAccess: WorkspaceAccess;
  sources: SourceService;
  /** Rows coming into sources: uploads, rows sent as JSON, folder extraction, re-typing. */
  sourceBatches: SourceBatches;
  datasets: DatasetService;
  catalog: CatalogService;
  ontology: OntologyService;
  ontologyLibraries: OntologyLibraryService;
  queries: QueryService;
  dataViews: DataViewService;
  idempotency: IdempotencyRepo;
  jobs: JobService;
  jobRunner: JobRunner;
  twins: TwinService;
  environments: EnvironmentService;
  simulations: SimulationService;
  connectors: ConnectorService;
  /** The compute pool, started on first use. */
  compute(): ComputePool;
  close(): Promise<void>;
}

export interface ContextOverrides {
  meta?: MetaStore;
  data?: DataStore;
  limiter?: RateLimiter;
  bus?: InvalidationBus;
  /** The ontology libraries offered (default: the bundled ones). */
  libraries?: readonly OntologyLibrary[];
}

export async function createContext(config: Config, overrides: ContextOverrides = {}): Promise<Context> {
  const secret = resolveSecretKey(config.secretKey, config.dataDir);
  const meta = overrides.meta ?? (await openMetaStore(config));
  const limiter = overrides.limiter ?? (config.redisUrl !== null ? await createRedisRateLimiter(config.redisUrl) : createMemoryRateLimiter());
  const bus = overrides.bus ?? (config.redisUrl !== null ? await createRedisBus(config.redisUrl) : createMemoryBus());
  const unique = meta.isUniqueViolation;
  const uploads = join(config.dataDir, 'uploads');
  let dataStore: DataStore | undefined = overrides.data;
  const data = () => (dataStore ??= openDataStore(config));
  const cursors = new CursorCodec(deriveKey(secret, 'cursor'));
  const apiKeyRepo = new ApiKeyRepo(meta.db);
  const userRepo = new UserRepo(meta.db);
  const workspaceRepo = new WorkspaceRepo(meta.db);
  const workspaceAccess = new WorkspaceAccess(workspaceRepo, bus);
  const apiKeys = new ApiKeyService(apiKeyRepo, userRepo, workspaceRepo, cursors, bus);
  const sourceRepo = new SourceRepo(meta.db);
  const datasetRepo = new DatasetRepo(meta.db);
  const twinRepo = new TwinRepo(meta.db);
  // The ontology asks for extractions through the job (constructed with the sources below, before any request).
  const conceptRepo = new ConceptRepo(meta.db);
  const ontology = new OntologyService(conceptRepo, workspaceAccess, cursors, {
    sourceFields: async (organisationId, workspaceId, sourceId) => {
      const row = await sourceRepo.find(organisationId, sourceId);
      if (row === undefined || !(await sourceRepo.linkedWorkspaceIds(sourceId)).includes(workspaceId)) return undefined;
      return toSource(row).schemaEntries.map((entry) => entry.field);
    },
    queueExtraction: (organisationId, workspaceId, sourceId, createdBy, webhookUrl) => extraction.queue(organisationId, workspaceId, sourceId, createdBy, webhookUrl),
    queueEnrichment: (organisationId, workspaceId, conceptId, createdBy, webhookUrl) => enrichment.queue(organisationId, workspaceId, conceptId, createdBy, webhookUrl),
    enrichmentsInFlight: (organisationId, conceptIds) => enrichment.inFlight(organisationId, conceptIds),
    consumers: async (organisationId, workspaceId) => ({
      datasets: (await datasetRepo.allIn(organisationId, workspaceId)).map(datasetConcepts),
      twins: (await twinRepo.allIn(organisationId, workspaceId)).map((twin) => ({ id: twin.id, name: twin.name, datasetId: (JSON.parse(twin.record) as { datasetId?: string | null }).datasetId ?? null })),
    }),
  }, unique);
  const ontologyLibraries = new OntologyLibraryService(
    new LibraryRegistry(overrides.libraries ?? BUNDLED_LIBRARIES),
    new OntologyInstallRepo(meta.db),
    conceptRepo,
    workspaceAccess,
    { datasets: async (organisationId, workspaceId) => (await datasetRepo.allIn(organisationId, workspaceId)).map(datasetConcepts) },
    unique,
  );
  const datasets = new DatasetService(datasetRepo, sourceRepo, workspaceAccess, cursors, data, ontology);
  let pool: ComputePool | undefined;
  const compute = () => (pool ??= new ComputePool(config.workers));
  const jobRepo = new JobRepo(meta.db);
  const webhooks = new WebhookSender({ allowHosts: config.webhookAllowHosts });
  const jobRunner = new JobRunner(jobRepo, webhooks, { concurrency: config.jobConcurrency, exclusive: meta.kind === 'sqlite' });
  const jobs = new JobService(jobRepo, jobRunner, workspaceAccess, cursors, config.webhookAllowHosts);
  new TwinLearning(twinRepo, datasets, compute).register(jobRunner);
  const trainedVersions = new TrainedVersions(twinRepo);
  const twins = new TwinService(twinRepo, datasets, jobs, workspaceAccess, cursors, unique, trainedVersions);
  const simulationRepo = new SimulationRepo(meta.db);
  // Lazy like the data store: a metric is only parsed or run when a scenario has one.
  const metricSql = new MetricSql({ query: (...args) => data().query(...args) });
  const artifacts = new PanelArtifacts(data);
  const batch = new BatchExecution(new BatchRows(datasets, data), data, compute);
  const handoff = new ScenarioHandoff();
  new SimulationExecution(simulationRepo, trainedVersions, compute, metricSql, artifacts, batch, handoff).register(jobRunner, config.simulationConcurrency);
  const tables = new TableLoader(data);
  const folderFiles = new FolderFiles(new SourceFileRepo(meta.db), join(config.dataDir, 'folders'));
  const sourceWriters = new SourceWriters(sourceRepo);
  const sources = new SourceService(sourceRepo, workspaceRepo, workspaceAccess, cursors, tables, (sourceId, workspaceId) => datasetRepo.usingSource(sourceId, workspaceId), folderFiles, sourceWriters);
  const sourceBatches = new SourceBatches(sourceRepo, workspaceAccess, tables, uploads, folderFiles, sourceWriters, (source, workspaceId, createdBy) => sources.rowsAdded(source, workspaceId, createdBy));
  const connectors = new ConnectorService(new ConnectorRepo(meta.db), new CredentialCipher(deriveKey(secret, 'connector-credentials')), jobs, workspaceAccess, cursors, {
    gate: hostGate(config.connectorAllowHosts),
    storageRoots: config.storageRoots,
    ranges: { connections: config.importReadConnections, minBytes: config.importRangeBytes },
  });
  new ConnectorImport(connectors, sources, sourceBatches, uploads, config.importPartBytes).register(jobRunner);
  const extraction = new OntologyExtraction(conceptRepo, sources, jobs, data, unique);
  extraction.register(jobRunner);
  const enrichment = new ConceptEnrichment(conceptRepo, jobs, data, async (organisationId, sourceId, workspaceId) => {
    const row = await sourceRepo.find(organisationId, sourceId);
    if (row === undefined || !(await sourceRepo.linkedWorkspaceIds(sourceId)).includes(workspaceId)) return undefined;
    const source = toSource(row);
    return { rows: source.documentCount, types: new Map(source.schemaEntries.map((entry) => [entry.field, entry.type])) };
  });
  enrichment.register(jobRunner);
  sources.onRemoved(async (organisationId, sourceId, workspaceId) => {
    // A deleted source's pending extractions go with it.
    if (workspaceId === undefined) await jobs.cancelFor(organisationId, [sourceId]);
    await ontology.forgetSource(organisationId, sourceId, workspaceId);
  });
  const simulations = new SimulationService(simulationRepo, jobs, twins, metricSql, workspaceAccess, cursors, artifacts, ontology, batch, handoff);
  // A deleted twin's runs stay as history; their panel result artifacts go with the twin.
  twins.onDeleted((organisationId, twinId) => simulations.dropArtifactsOf(organisationId, twinId));
  const dataViewRepo = new DataViewRepo(meta.db);
  const queries = new QueryService(datasets, ontology, data, dataViewRepo, workspaceAccess, unique);
  return {
    config,
    meta,
    limiter,
    bus,
    data,
    cursors,
    organisations: new OrganisationService(new OrganisationRepo(meta.db), apiKeyRepo, unique),
    apiKeys,
    users: new UserService(userRepo, cursors, unique),
    workspaces: new WorkspaceService(workspaceRepo, workspaceAccess, userRepo, apiKeys, cursors, unique),
    workspaceAccess,
    sources,
    sourceBatches,
    datasets,
    catalog: new CatalogService(sourceRepo, datasets, workspaceAccess, cursors, ontology),
    ontology,
    ontologyLibraries,
    queries,
    dataViews: new DataViewService(dataViewRepo, queries, workspaceAccess, cursors, unique),
    idempotency: new IdempotencyRepo(meta.db, unique),
    jobs,
    jobRunner,
    twins,
    environments: new EnvironmentService(twinRepo, workspaceAccess, cursors),
    simulations,
    connectors,
    compute,
    async close() {
      await jobRunner.stop();
      await pool?.close();
      await dataStore?.close();
      await bus.close();
      await limiter.close();
      await meta.close();
    },
  };
}

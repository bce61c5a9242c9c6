/**
 * Row types of the metadata store, shared by both adapters. Portable column types only: timestamps are ISO-8601
 * text, booleans are 0/1 integers and JSON is text, so one migration set serves SQLite and PostgreSQL alike.
 */
export interface OrganisationsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface UsersTable {
  id: string;
  organisation_id: string;
  name: string;
  email: string | null;
  role: 'admin' | 'member';
  created_at: string;
}

export interface WorkspacesTable {
  id: string;
  organisation_id: string;
  name: string;
  /** Lower-cased name: the uniqueness key within an organisation. */
  name_key: string;
  description: string | null;
  is_org_library: number;
  owner_user_id: string;
  created_at: string;
  updated_at: string;
  /** Optimistic concurrency counter: every update must name the version it read. */
  version: number;
}

export type MembershipLevel = 'read' | 'write' | 'full';

export interface WorkspaceMembersTable {
  workspace_id: string;
  user_id: string;
  level: MembershipLevel;
  created_at: string;
}

export interface ApiKeysTable {
  id: string;
  organisation_id: string;
  user_id: string;
  workspace_id: string | null;
  name: string;
  /** SHA-256 of the key value (hex); the value itself is never stored. */
  key_hash: string;
  /** First characters of the value, shown so people can tell keys apart. */
  key_prefix: string;
  scopes: string;
  expires_at: string | null;
  ip_allowlist: string;
  rate_limit: number;
  created_at: string;
  created_by_key_id: string | null;
  revoked_at: string | null;
}

export interface IdempotencyKeysTable {
  organisation_id: string;
  idempotency_key: string;
  fingerprint: string;
  state: 'pending' | 'done';
  response_status: number | null;
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
}

export interface SourcesTable {
  id: string;
  organisation_id: string;
  /** The workspace it was created in (it may be linked to others). */
  workspace_id: string | null;
  parent_source_id: string | null;
  name: string;
  /** Lower-cased name: search and name ordering. */
  name_key: string;
  data_source: string;
  data_format: 'Tabular' | 'Folder';
  virtual: number;
  document_count: number;
  total_size: number;
  created_at: string;
  last_saved: string;
  /** The rest of the spec's source record (schema entries, column metadata, batch ranges, ...) as JSON. */
  details: string;
  version: number;
  /** The write lease: the token of the writer changing the source's rows, and when it lapses if not renewed. */
  lease_token: string | null;
  lease_expires_at: string | null;
}

export interface SourceLinksTable {
  source_id: string;
  workspace_id: string;
  created_at: string;
}

export interface DatasetsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  /** description, tags, anchorConceptId, sources and operations as JSON. */
  definition: string;
  created_at: string;
  updated_at: string;
  version: number;
}

export interface DatasetSourcesTable {
  dataset_id: string;
  source_id: string;
}

export interface SourceFilesTable {
  id: string;
  source_id: string;
  organisation_id: string;
  file_name: string | null;
  format: string;
  bytes: number;
  hash: string;
  /** Double quotes in the file and whether it has empty lines (see receive.ts): whether the engine may read it. */
  quotes: number;
  blank_lines: number;
  uploaded_at: string;
  extracted_source_id: string | null;
}

export type JobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface JobsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  type: string;
  status: JobStatus;
  /** What the job works on, e.g. digital-twin-version and its id. */
  resource_type: string | null;
  resource_id: string | null;
  /** JSON: the job's inputs. */
  params: string;
  /** JSON: {percentage, state, eta}. */
  progress: string;
  /** JSON, set when completed. */
  result: string | null;
  error: string | null;
  webhook_url: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  /** The process running it, and when that process last said it still is (restart recovery). */
  owner: string | null;
  heartbeat_at: string | null;
  /** Simulation runs: the scenario type. */
  subtype: string | null;
  /** Simulation runs: the in-flight stage shown while running (configuring, configured, running). */
  phase: string | null;
}

/** A job's input as submitted (a simulation run's scenario, JSON text), apart from the job row: it may hold 100k rows. */
export interface JobInputsTable {
  job_id: string;
  input: string;
}

export interface DigitalTwinsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  normalized_name: string;
  type: string;
  status: string;
  /** JSON: the remaining twin members (tags, data binding, schema, suggestions, environment groups, autoUpdate). */
  record: string;
  /** Bumped on every write: concurrent writers compare it (optimistic locking). */
  revision: number;
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface SimulationOutputsTable {
  run_id: string;
  organisation_id: string;
  /** JSON: the run's outputs, keyed by version label. */
  outputs: string;
  /** JSON: a range intervention's sweep, else null. */
  sweep: string | null;
  /** JSON: a scoring run's digest and rows, else null. */
  score: string | null;
  created_at: string;
}

export interface TwinVersionsTable {
  id: string;
  twin_id: string;
  organisation_id: string;
  workspace_id: string;
  version_major: number;
  version_minor: number;
  version_patch: number;
  /** JSON: the public version members. */
  record: string;
  /** JSON: the fitted model, internal. */
  model: string | null;
  /** Bumped on every write: concurrent writers compare it (optimistic locking). */
  revision: number;
  created_at: string;
}

export interface ConnectorsTable {
  id: string;
  organisation_id: string;
  name: string;
  type: string;
  /** Encrypted credentials (see src/connectors/credential-cipher.ts), or null when none are stored. */
  credentials: string | null;
  status: 'unconfigured' | 'connected' | 'error';
  error_message: string | null;
  created_at: string;
  updated_at: string;
}

/** Saved anchor queries of a workspace (src/query/views). */
export interface DataViewsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  name_key: string;
  description: string | null;
  query: string;
  created_by: string;
  created_at: string;
  updated_at: string;
}

/** Ontology concepts of a workspace: `body` holds the concept's members as JSON (see schemas/ontology.ts). */
export interface ConceptsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  /** Lower-cased name: unique within the workspace. */
  name_key: string;
  body: string;
  /** Value sketches of the mapped fields (JSON, never served): what extraction compares a new column's values with. */
  sketch: string;
  edit_version: number;
  created_at: string;
  updated_at: string;
}

/** Which sources a concept has a field mapping for (the `sourceId` filter of the listings). */
export interface ConceptSourcesTable {
  concept_id: string;
  source_id: string;
}

/** The ontology libraries installed in a workspace (see src/ontology/libraries/). */
export interface OntologyInstallsTable {
  organisation_id: string;
  workspace_id: string;
  ontology_id: string;
  ontology_version: string;
  /** JSON: which concept stands for which library concept, and whether the install created or linked it. */
  concepts: string;
  installed_by: string;
  installed_at: string;
  updated_at: string;
}

export interface MetaDatabase {
  organisations: OrganisationsTable;
  users: UsersTable;
  workspaces: WorkspacesTable;
  workspace_members: WorkspaceMembersTable;
  api_keys: ApiKeysTable;
  idempotency_keys: IdempotencyKeysTable;
  sources: SourcesTable;
  source_links: SourceLinksTable;
  datasets: DatasetsTable;
  dataset_sources: DatasetSourcesTable;
  source_files: SourceFilesTable;
  jobs: JobsTable;
  job_inputs: JobInputsTable;
  digital_twins: DigitalTwinsTable;
  twin_versions: TwinVersionsTable;
  simulation_outputs: SimulationOutputsTable;
  connectors: ConnectorsTable;
  concepts: ConceptsTable;
  concept_sources: ConceptSourcesTable;
  ontology_installs: OntologyInstallsTable;
  data_views: DataViewsTable;
}

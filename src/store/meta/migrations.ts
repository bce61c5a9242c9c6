import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';

/** The one migration set of the metadata store; every adapter runs exactly these. */
const migrations: Record<string, Migration> = {
  '0001_identity': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('organisations')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('users_org_email_unique', ['organisation_id', 'email'])
        .execute();
      await db.schema
        .createTable('workspaces')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('is_org_library', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('owner_user_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .addUniqueConstraint('workspaces_org_name_unique', ['organisation_id', 'name_key'])
        .execute();
      await db.schema
        .createTable('workspace_members')
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('level', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('workspace_members_pk', ['workspace_id', 'user_id'])
        .execute();
      await db.schema
        .createTable('api_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
        .addColumn('workspace_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('key_hash', 'text', (c) => c.notNull().unique())
        .addColumn('key_prefix', 'text', (c) => c.notNull())
        .addColumn('scopes', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text')
        .addColumn('ip_allowlist', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('rate_limit', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('created_by_key_id', 'text')
        .addColumn('revoked_at', 'text')
        .execute();
      await db.schema.createIndex('api_keys_org_id').on('api_keys').columns(['organisation_id', 'id']).execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('fingerprint', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_headers', 'text')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['organisation_id', 'idempotency_key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();
    },
  },
  '0002_sources': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('sources')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text')
        .addColumn('parent_source_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('data_source', 'text', (c) => c.notNull())
        .addColumn('data_format', 'text', (c) => c.notNull())
        .addColumn('virtual', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('document_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('total_size', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_saved', 'text', (c) => c.notNull())
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('sources_org_created').on('sources').columns(['organisation_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('sources_org_parent').on('sources').columns(['organisation_id', 'parent_source_id']).execute();
      await db.schema
        .createTable('source_links')
        .addColumn('source_id', 'text', (c) => c.notNull().references('sources.id').onDelete('cascade'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('source_links_pk', ['source_id', 'workspace_id'])
        .execute();
      await db.schema.createIndex('source_links_workspace').on('source_links').columns(['workspace_id', 'source_id']).execute();
    },
  },
  '0003_datasets': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('datasets')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('definition', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
        .execute();
      await db.schema.createIndex('datasets_workspace_created').on('datasets').columns(['workspace_id', 'created_at', 'id']).execute();
      // Which sources each dataset reads: a source in use cannot be deleted or unlinked from under it.
      await db.schema
        .createTable('dataset_sources')
        .addColumn('dataset_id', 'text', (c) => c.notNull().references('datasets.id').onDelete('cascade'))
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('dataset_sources_pk', ['dataset_id', 'source_id'])
        .execute();
      await db.schema.createIndex('dataset_sources_source').on('dataset_sources').columns(['source_id', 'dataset_id']).execute();
    },
  },
  '0004_source_leases': {
    async up(db: Kysely<any>) {
      // One writer at a time per source, across processes: who holds the write lease, and until when.
      await db.schema.alterTable('sources').addColumn('lease_token', 'text').execute();
      await db.schema.alterTable('sources').addColumn('lease_expires_at', 'text').execute();
    },
  },
  '0005_source_files': {
    async up(db: Kysely<any>) {
      // The files a folder source holds (the bytes live under the data directory), and what each became.
      await db.schema
        .createTable('source_files')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('source_id', 'text', (c) => c.notNull().references('sources.id').onDelete('cascade'))
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('file_name', 'text')
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('bytes', 'bigint', (c) => c.notNull())
        .addColumn('hash', 'text', (c) => c.notNull())
        .addColumn('quotes', 'bigint', (c) => c.notNull())
        .addColumn('blank_lines', 'integer', (c) => c.notNull())
        .addColumn('uploaded_at', 'text', (c) => c.notNull())
        .addColumn('extracted_source_id', 'text')
        .addUniqueConstraint('source_files_hash_unique', ['source_id', 'hash'])
        .execute();
    },
  },
  '0006_jobs': {
    async up(db: Kysely<any>) {
      // Durable job records; the queue is this table: a process claims a queued row by a conditional update.
      await db.schema
        .createTable('jobs')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('resource_type', 'text')
        .addColumn('resource_id', 'text')
        .addColumn('params', 'text', (c) => c.notNull())
        .addColumn('progress', 'text', (c) => c.notNull())
        .addColumn('result', 'text')
        .addColumn('error', 'text')
        .addColumn('webhook_url', 'text')
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text')
        .addColumn('completed_at', 'text')
        .addColumn('owner', 'text')
        .addColumn('heartbeat_at', 'text')
        .execute();
      await db.schema.createIndex('jobs_workspace_created').on('jobs').columns(['workspace_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('jobs_status_created').on('jobs').columns(['status', 'created_at']).execute();
    },
  },
  '0007_digital_twins': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('digital_twins')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('normalized_name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('record', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('digital_twins_workspace_created').on('digital_twins').columns(['workspace_id', 'created_at', 'id']).execute();
      // One row per version; `record` holds the public version members, `model` the fitted CBN (never served).
      await db.schema
        .createTable('twin_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('twin_id', 'text', (c) => c.notNull().references('digital_twins.id').onDelete('cascade'))
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('workspace_id', 'text', (c) => c.notNull())
        .addColumn('version_major', 'integer', (c) => c.notNull())
        .addColumn('version_minor', 'integer', (c) => c.notNull())
        .addColumn('version_patch', 'integer', (c) => c.notNull())
        .addColumn('record', 'text', (c) => c.notNull())
        .addColumn('model', 'text')
        .addColumn('revision', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('twin_versions_number_unique', ['twin_id', 'version_major', 'version_minor', 'version_patch'])
        .execute();
    },
  },
  '0008_simulation_runs': {
    async up(db: Kysely<any>) {
      // Simulation runs are jobs of type `simulation` (the same queue, heartbeats and recovery): `subtype` holds the
      // scenario type and `phase` the in-flight stage a run shows (configuring, configured, running).
      await db.schema.alterTable('jobs').addColumn('subtype', 'text').execute();
      await db.schema.alterTable('jobs').addColumn('phase', 'text').execute();
      // A run's scenario as submitted (JSON text): apart from params so a status read never parses 100k sample rows.
      await db.schema.alterTable('jobs').addColumn('input', 'text').execute();
      await db.schema.createIndex('jobs_workspace_type_created').on('jobs').columns(['workspace_id', 'type', 'created_at', 'id']).execute();
      // A completed run's outputs (and sweep or score detail), apart from the run so listings never read them.
      await db.schema
        .createTable('simulation_outputs')
        .addColumn('run_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
        .addColumn('organisation_id', 'text', (c) => c.notNull())
        .addColumn('outputs', 'text', (c) => c.notNull())
        .addColumn('sweep', 'text')
        .addColumn('score', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0009_connectors': {
    async up(db: Kysely<any>) {
      // Connectors belong to the organisation. `credentials` is AES-256-GCM ciphertext bound to the row's id (never
      // served); `status` is unconfigured | connected | error, moved by test, browse and import.
      await db.schema
        .createTable('connectors')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('credentials', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('error_message', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('connectors_organisation_created').on('connectors').columns(['organisation_id', 'created_at', 'id']).execute();
    },
  },
  '0010_ontology_concepts': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('concepts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addColumn('sketch', 'text', (c) => c.notNull())
        .addColumn('edit_version', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('concepts_name_unique', ['workspace_id', 'name_key'])
        .execute();
      await db.schema.createIndex('concepts_workspace_created').on('concepts').columns(['workspace_id', 'created_at', 'id']).execute();
      await db.schema
        .createTable('concept_sources')
        .addColumn('concept_id', 'text', (c) => c.notNull().references('concepts.id').onDelete('cascade'))
        .addColumn('source_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('concept_sources_pk', ['concept_id', 'source_id'])
        .execute();
      await db.schema.createIndex('concept_sources_source').on('concept_sources').columns(['source_id', 'concept_id']).execute();
    },
  },
  '0011_job_inputs': {
    async up(db: Kysely<any>) {
      // A run's scenario (up to 100k inline rows) moves off the job row: every heartbeat, phase and progress write
      // rewrites the row it is on (SQLite rewrites a whole record), and every claim and status read would carry it.
      await db.schema
        .createTable('job_inputs')
        .addColumn('job_id', 'text', (c) => c.primaryKey().references('jobs.id').onDelete('cascade'))
        .addColumn('input', 'text', (c) => c.notNull())
        .execute();
      await sql`INSERT INTO job_inputs (job_id, input) SELECT id, input FROM jobs WHERE input IS NOT NULL`.execute(db);
      await db.schema.alterTable('jobs').dropColumn('input').execute();
    },
  },
  '0012_ontology_installs': {
    async up(db: Kysely<any>) {
      // One row per library installed in a workspace: its version, and which concept stands for which library concept.
      await db.schema
        .createTable('ontology_installs')
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('ontology_id', 'text', (c) => c.notNull())
        .addColumn('ontology_version', 'text', (c) => c.notNull())
        .addColumn('concepts', 'text', (c) => c.notNull())
        .addColumn('installed_by', 'text', (c) => c.notNull())
        .addColumn('installed_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('ontology_installs_pk', ['workspace_id', 'ontology_id'])
        .execute();
    },
  },
  '0013_data_views': {
    async up(db: Kysely<any>) {
      // Saved anchor queries of a workspace (the query answer's `dataViewId`): read again, they run again.
      await db.schema
        .createTable('data_views')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('organisation_id', 'text', (c) => c.notNull().references('organisations.id'))
        .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('name_key', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('query', 'text', (c) => c.notNull())
        .addColumn('created_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('data_views_name_unique', ['workspace_id', 'name_key'])
        .execute();
      await db.schema.createIndex('data_views_workspace_created').on('data_views').columns(['workspace_id', 'created_at', 'id']).execute();
    },
  },
  '0014_jobs_queue_index': {
    async up(db: Kysely<any>) {
      // The claim's candidates, read per type in queue order: with (status, created_at) alone, a process whose lane for
      // one type is full scanned every queued job of that type to find the others (O(backlog) per claim). Partial:
      // only queued jobs are in it, so it stays small however long the history of finished jobs grows.
      await db.schema.createIndex('jobs_queued_type_created').on('jobs').columns(['type', 'created_at', 'id']).where(sql.ref('status'), '=', sql.lit('queued')).execute();
    },
  },
};

/** Names of the migration set, in order. */
export const MIGRATION_NAMES = Object.keys(migrations).sort();

const provider: MigrationProvider = { getMigrations: async () => migrations };

export async function migrateToLatest(db: Kysely<any>, options: { disableTransactions?: boolean } = {}): Promise<void> {
  const { error, results } = await new Migrator({ db, provider, ...options }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error !== undefined || failed !== undefined) {
    throw new Error(`metadata migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
}

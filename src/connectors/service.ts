import type { Static } from 'typebox';
import type { Connector, ConnectorCredentials, ConnectorType, DirectQueryBody, ImportBody, PreviewBody, ReadConfigSchema } from '../../schemas/connectors.js';
import type { JobAccepted } from '../../schemas/jobs.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import type { JobService } from '../jobs/service.js';
import type { CursorCodec } from '../lib/cursor.js';
import { newId, nowIso } from '../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../lib/page.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { CredentialCipher } from './credential-cipher.js';
import { connectorType, organisationRoots, validateCredentials } from './credentials.js';
import type { DriverOptions } from './drivers/network.js';
import { openDriver } from './drivers/open.js';
import { type BrowseEntry, type ConnectorDriver, type ReadTarget, SourceError } from './drivers/port.js';
import type { ConnectorRepo, ConnectorRow } from './repo.js';
import { secretsOf, withoutSecrets } from './secrets.js';
import { qualifiedTable } from './table-name.js';

export const CONNECTOR_IMPORT_JOB = 'connector_import';

type ReadConfig = Static<typeof ReadConfigSchema>;

/** Browse answers at most this many entries. */
const BROWSE_LIMIT = 1000;

export interface RowsAnswer {
  columns: Array<{ name: string; type: string }>;
  rows: Array<Record<string, unknown>>;
  rowCount: number;
  truncated: boolean;
  elapsedMs: number;
}

/** A connector opened for one use: its driver, and what to record about how the use went. */
export interface OpenedConnector {
  row: ConnectorRow;
  type: ConnectorType;
  driver: ConnectorDriver;
  secrets: string[];
}

/**
 * Connectors belong to the organisation. Anyone of the organisation holding connectors:read may list, read and
 * use them (browse, preview, test); creating, changing and deleting them needs an organisation admin on an
 * org-wide credential, since a connector's credentials reach outside the service. Imports and direct queries
 * work for one workspace (convention 6).
 */
export class ConnectorService {
  constructor(
    private readonly repo: ConnectorRepo,
    private readonly cipher: CredentialCipher,
    private readonly jobs: JobService,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly driverOptions: DriverOptions,
  ) {}

  async list(principal: Principal, query: { limit?: number; cursor?: string }): Promise<Page<Connector>> {
    const scope = filterScope({ list: 'connectors' });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], present);
  }

  async get(principal: Principal, id: string): Promise<Connector> {
    return present(await this.find(principal, id));
  }

  async create(principal: Principal, input: { name: string; type: string; credentials?: Record<string, unknown> | null }): Promise<Connector> {
    requireAdmin(principal, 'create');
    const type = connectorType(input.type);
    const id = newId('con');
    const credentials = this.sealed(principal.organisationId, id, type, input.credentials ?? null);
    const now = nowIso();
    const row: ConnectorRow = { id, organisation_id: principal.organisationId, name: input.name.trim(), type, credentials, status: 'unconfigured', error_message: null, created_at: now, updated_at: now };
    await this.repo.insert(row);
    return present(row);
  }

  async update(principal: Principal, id: string, input: { name?: string; credentials?: Record<string, unknown> | null }): Promise<Connector> {
    requireAdmin(principal, 'change');
    const row = await this.find(principal, id);
    const changes: Parameters<ConnectorRepo['update']>[2] = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.credentials !== undefined) {
      changes.credentials = this.sealed(principal.organisationId, id, row.type as ConnectorType, input.credentials);
      // New credentials have not been tried: the connector is unconfigured until its next use.
      changes.status = 'unconfigured';
      changes.error_message = null;
    }
    await this.repo.update(principal.organisationId, id, changes, nowIso());
    return present((await this.repo.find(principal.organisationId, id)) ?? { ...row, ...changes });
  }

  /** Sources and jobs of earlier imports stay: they belong to their workspaces, not to the connector. */
  async delete(principal: Principal, id: string): Promise<void> {
    requireAdmin(principal, 'delete');
    if (!(await this.repo.delete(principal.organisationId, id))) throw notFound('Connector', id);
  }

  /** Reaches the source and reads its version; answers how it went (a failure to reach is an answer, not an error). */
  async test(principal: Principal, id: string, signal: AbortSignal): Promise<{ ok: boolean; status: 'connected' | 'error'; message: string; serverVersion: string | null; latencyMs: number }> {
    const started = performance.now();
    const connector = await this.open(await this.find(principal, id));
    try {
      const { serverVersion } = await connector.driver.test(signal);
      await this.record(connector, null);
      return { ok: true, status: 'connected', message: `Reached the ${connector.type} source`, serverVersion, latencyMs: elapsed(started) };
    } catch (error) {
      if (!(error instanceof SourceError) || signal.aborted) throw error;
      const message = withoutSecrets(error.message, connector.secrets);
      // Only a source that could not be reached is an error of the connector; a refusal is an answer of the source.
      await this.record(connector, error.kind === 'unreachable' ? message : null);
      return { ok: false, status: error.kind === 'unreachable' ? 'error' : 'connected', message, serverVersion: null, latencyMs: elapsed(started) };
    } finally {
      await connector.driver.close();
    }
  }

  async browse(principal: Principal, id: string, query: Record<string, string>, signal: AbortSignal): Promise<BrowseEntry[]> {
    const { level, search, ...context } = query;
    if (level === undefined) throw new AppError('validation_failed', 'The query parameter `level` is required', { errors: [{ location: 'query/level', message: 'required' }] });
    return this.use(await this.find(principal, id), { recordStatus: true, signal }, (driver) =>
      driver.browse({ level, ...(search === undefined ? {} : { search }), context, limit: BROWSE_LIMIT }, signal),
    );
  }

  async preview(principal: Principal, id: string, input: Static<typeof PreviewBody>, signal: AbortSignal): Promise<RowsAnswer> {
    const row = await this.find(principal, id);
    return this.rows(row, targetOf(row.type as ConnectorType, input.config), input.limit ?? 50, signal);
  }

  /**
   * A read-only query answered as rows for a workspace's use (an assistant or application reading live data without
   * importing it): up to 10,000 rows within a statement timeout; nothing is stored.
   */
  async directQuery(principal: Principal, id: string, input: Static<typeof DirectQueryBody>, signal: AbortSignal): Promise<RowsAnswer & { workspaceId: string }> {
    const workspaceId = targetWorkspace(principal, input.workspaceId);
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, id);
    const target = targetOf(row.type as ConnectorType, input.config);
    const limited = AbortSignal.any([signal, AbortSignal.timeout(input.timeoutMs ?? 30_000)]);
    return { workspaceId, ...(await this.rows(row, target, input.limit ?? 1000, limited)) };
  }

  /** Starts an import job into a workspace (convention 6); the job streams the rows into a new source. */
  async import(principal: Principal, id: string, input: Static<typeof ImportBody>): Promise<JobAccepted> {
    const workspaceId = targetWorkspace(principal, input.workspaceId);
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, id);
    if (row.credentials === null) throw noCredentials(id);
    const target = targetOf(row.type as ConnectorType, input.config);
    // A source the host gate refuses is refused now, as a preview would be, not after a 202 by a failed job.
    await this.use(row, { recordStatus: false, signal: AbortSignal.timeout(30_000) }, (driver) => driver.admitted());
    return this.jobs.submit({
      organisationId: principal.organisationId,
      workspaceId,
      type: CONNECTOR_IMPORT_JOB,
      resource: { type: 'connector', id },
      params: {
        connectorId: id,
        connectorType: row.type,
        config: input.config,
        datasetName: input.datasetName ?? defaultName(target),
        ontologyMode: input.ontologyMode ?? 'auto',
      },
      webhookUrl: input.webhookUrl ?? null,
      createdBy: principal.userId,
    });
  }

  /** Opens a connector's driver with its decrypted credentials (for a use, or for the import job). */
  async open(row: ConnectorRow): Promise<OpenedConnector> {
    if (row.credentials === null) throw noCredentials(row.id);
    const credentials = this.cipher.decrypt(row.id, row.credentials) as unknown as ConnectorCredentials;
    const type = row.type as ConnectorType;
    const options = { ...this.driverOptions, storageRoots: organisationRoots(this.driverOptions.storageRoots, row.organisation_id) };
    return { row, type, driver: openDriver(type, credentials, options), secrets: secretsOf(credentials) };
  }

  /** Records how a use went: `null` = reached (connected), else the reason it could not be reached (error). */
  async record(connector: OpenedConnector, unreachable: string | null): Promise<void> {
    const { row } = connector;
    await this.repo.setStatus(row.organisation_id, row.id, row.credentials, unreachable === null ? 'connected' : 'error', unreachable, nowIso());
  }

  findForJob(organisationId: string, id: string): Promise<ConnectorRow | undefined> {
    return this.repo.find(organisationId, id);
  }

  private async rows(row: ConnectorRow, target: ReadTarget, limit: number, signal: AbortSignal): Promise<RowsAnswer> {
    const started = performance.now();
    const result = await this.use(row, { recordStatus: false, signal }, (driver) => driver.preview(target, limit, signal));
    const truncated = result.rows.length > limit;
    const rows = truncated ? result.rows.slice(0, limit) : result.rows;
    return { columns: result.columns, rows, rowCount: rows.length, truncated, elapsedMs: elapsed(started) };
  }

  /**
   * Runs one use of a connector: its driver opened and closed around `work`, source errors answered as problems
   * without secrets (a refused statement 400, an unreachable source 502), the status moved when asked.
   */
  private async use<T>(row: ConnectorRow, options: { recordStatus: boolean; signal: AbortSignal }, work: (driver: ConnectorDriver) => Promise<T>): Promise<T> {
    const connector = await this.open(row);
    try {
      const result = await work(connector.driver);
      if (options.recordStatus) await this.record(connector, null);
      return result;
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      const message = withoutSecrets(error.message, connector.secrets);
      const unreachable = error.kind === 'unreachable';
      // A use the caller abandoned says nothing about the source; a refused statement means it was reached.
      if (options.recordStatus && !options.signal.aborted) await this.record(connector, unreachable ? message : null);
      throw new AppError(unreachable ? 'source_unreachable' : 'source_query_failed', message);
    } finally {
      await connector.driver.close();
    }
  }

  private sealed(organisationId: string, id: string, type: ConnectorType, credentials: Record<string, unknown> | null): string | null {
    if (credentials === null) return null;
    const roots = organisationRoots(this.driverOptions.storageRoots, organisationId);
    return this.cipher.encrypt(id, validateCredentials(type, credentials, roots) as unknown as Record<string, unknown>);
  }

  private async find(principal: Principal, id: string): Promise<ConnectorRow> {
    const row = await this.repo.find(principal.organisationId, id);
    if (row === undefined) throw notFound('Connector', id);
    return row;
  }
}

function present(row: ConnectorRow): Connector {
  return {
    id: row.id,
    organisationId: row.organisation_id,
    name: row.name,
    type: row.type as ConnectorType,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status,
    errorMessage: row.error_message,
    hasCredentials: row.credentials !== null,
  };
}

function requireAdmin(principal: Principal, action: string): void {
  if (!principal.isOrgAdmin || principal.workspaceId !== null) {
    throw new AppError('forbidden', `Connectors belong to the organisation: to ${action} one needs an organisation admin with an org-wide credential`);
  }
}

const noCredentials = (id: string) => new AppError('conflict', `Connector ${id} has no credentials yet; set them with PATCH /connectors/${id}`);

/** Convention 6: a workspace credential supplies its workspace; an org-wide one must name it. */
function targetWorkspace(principal: Principal, workspaceId: string | undefined): string {
  if (principal.workspaceId !== null) {
    if (workspaceId !== undefined && workspaceId !== principal.workspaceId) {
      throw new AppError('workspace_out_of_scope', `This credential is pinned to workspace ${principal.workspaceId}`);
    }
    return principal.workspaceId;
  }
  if (workspaceId === undefined) {
    throw new AppError('validation_failed', 'An organisation-wide credential must name the target workspace in `workspaceId`', {
      errors: [{ location: 'body/workspaceId', message: 'required with an organisation-wide credential' }],
    });
  }
  return workspaceId;
}

/** The read a config names: exactly one of table (with its context), query (SQL types) or path (storage). */
export function targetOf(type: ConnectorType, config: ReadConfig): ReadTarget {
  const given = (['table', 'query', 'path'] as const).filter((key) => config[key] !== undefined);
  const allowed = type === 'storage' ? ['path'] : ['table', 'query'];
  const refuse = (message: string) => new AppError('validation_failed', `config: ${message}`, { errors: [{ location: 'body/config', message }] });
  if (given.length !== 1) throw refuse(`give exactly one of ${allowed.map((k) => `\`${k}\``).join(' or ')}`);
  const [key] = given as [(typeof given)[number]];
  if (!allowed.includes(key)) throw refuse(`a ${type} connector reads ${allowed.map((k) => `\`${k}\``).join(' or ')}, not \`${key}\``);
  if (key === 'path') return { kind: 'path', path: config.path! };
  if (key === 'query') return { kind: 'query', query: config.query! };
  return {
    kind: 'table',
    ...qualifiedTable(type as Exclude<ConnectorType, 'storage'>, { ...config, table: config.table! }),
    ...(config.warehouse === undefined ? {} : { warehouse: config.warehouse }),
  };
}

/** The source name of an import when none is given: the table, the file's name, or `query`. */
function defaultName(target: ReadTarget): string {
  if (target.kind === 'table') return target.table;
  if (target.kind === 'path') return target.path.split('/').filter((part) => part !== '').at(-1)?.replace(/\.[^.]+$/, '') || target.path;
  return 'query';
}

const elapsed = (started: number) => Math.round((performance.now() - started) * 10) / 10;


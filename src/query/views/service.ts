import type { CreateDataView, DataView, PatchDataView } from '../../../schemas/data-views.js';
import type { QueryResult } from '../../../schemas/query.js';
import type { Principal } from '../../auth/principal.js';
import { AppError, notFound } from '../../errors.js';
import type { CursorCodec } from '../../lib/cursor.js';
import { nowIso } from '../../lib/ids.js';
import { type Page, filterScope, pageRequest, toPage } from '../../lib/page.js';
import type { WorkspaceAccess } from '../../workspaces/access.js';
import type { QueryService } from '../service.js';
import { newViewRow, toView, viewNameTaken } from './model.js';
import type { DataViewRepo, DataViewRow } from './repo.js';

/**
 * Data views: anchor queries saved under a name (the query answer's `dataViewId`). A view stores the query, not its
 * rows: reading it runs the query again on the current data, so a dashboard or an assistant sees what the query
 * would answer now. A query is saved only if it compiles (a SELECT), checked again on every change.
 */
export class DataViewService {
  constructor(
    private readonly repo: DataViewRepo,
    private readonly queries: QueryService,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
    private readonly isUniqueViolation: (error: unknown) => boolean,
  ) {}

  async list(principal: Principal, workspaceId: string, query: { limit?: number; cursor?: string }): Promise<Page<DataView>> {
    await this.access.require(principal, workspaceId, 'read');
    const scope = filterScope({ list: 'data-views', workspaceId });
    const page = pageRequest(this.cursors, query, scope);
    const { rows, total } = await this.repo.list(principal.organisationId, workspaceId, page);
    return toPage(this.cursors, rows, page, total, scope, (row) => [row.created_at, row.id], toView);
  }

  async get(principal: Principal, workspaceId: string, id: string): Promise<DataView> {
    await this.access.require(principal, workspaceId, 'read');
    return toView(await this.find(principal, workspaceId, id));
  }

  async create(principal: Principal, workspaceId: string, input: CreateDataView): Promise<DataView> {
    await this.access.require(principal, workspaceId, 'write');
    await this.check(principal, workspaceId, input.query);
    const row = newViewRow(principal, workspaceId, input.name, input.description ?? null, input.query);
    await this.write(row.name, this.repo.insert(row));
    return toView(row);
  }

  async update(principal: Principal, workspaceId: string, id: string, input: PatchDataView): Promise<DataView> {
    await this.access.require(principal, workspaceId, 'write');
    const row = await this.find(principal, workspaceId, id);
    if (input.query !== undefined) await this.check(principal, workspaceId, input.query);
    const name = input.name?.trim() ?? row.name;
    const changes = { name, name_key: name.toLowerCase(), description: input.description === undefined ? row.description : input.description, query: input.query ?? row.query, updated_at: nowIso() };
    if (!(await this.write(name, this.repo.update(principal.organisationId, workspaceId, id, changes)))) throw notFound('Data view', id);
    return toView({ ...row, ...changes });
  }

  async delete(principal: Principal, workspaceId: string, id: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'full');
    if (!(await this.repo.delete(principal.organisationId, workspaceId, id))) throw notFound('Data view', id);
  }

  /** The view's query run now, a page at a time; a query the workspace no longer answers (a dataset renamed) is the error variant. */
  async rows(principal: Principal, workspaceId: string, id: string, page: { limit?: number; startKey?: number }): Promise<QueryResult> {
    await this.access.require(principal, workspaceId, 'read');
    const row = await this.find(principal, workspaceId, id);
    return this.queries.run(principal, workspaceId, { query: row.query, mode: 'execute', ...page }, row.id);
  }

  /** A view's query must compile as a SELECT now (422 at body/query with the query error's code and message). */
  private async check(principal: Principal, workspaceId: string, query: string): Promise<void> {
    const answer = await this.queries.run(principal, workspaceId, { query, mode: 'validate' });
    const problem = !answer.ok ? `${answer.error.code}: ${answer.error.message}${answer.error.suggestedQuery === null ? '' : ` (did you mean: ${answer.error.suggestedQuery})`}` : answer.kind !== 'validated' ? 'a data view saves a SELECT, not a SHOW or DESCRIBE' : null;
    if (problem !== null) throw new AppError('validation_failed', `The query cannot be saved: ${problem}`, { errors: [{ location: 'body/query', message: problem }] });
  }

  private async write<T>(name: string, operation: Promise<T>): Promise<T> {
    return operation.catch((error: unknown) => {
      throw this.isUniqueViolation(error) ? viewNameTaken(name) : error;
    });
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<DataViewRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Data view', id);
    return row;
  }
}

/**
 * The environments of multi-environment twins (as a version's learning read them) and the environment groups
 * saved on a twin: list, create, read, update, delete, and resolve (which environments a definition selects).
 * Groups live in the twin's record; every write goes through TwinRepo.mutate so concurrent edits are never lost.
 */
import {
  DEFAULT_AGREEMENT_THRESHOLD,
  type CreateEnvironmentGroup,
  type EnvironmentGroup,
  type EnvironmentGroupDefinition,
  type EnvironmentList,
  type EnvironmentListQuery,
  type EnvironmentResolution,
  type GraphSlice,
  type GraphSliceResult,
  type PatchEnvironmentGroup,
  type ResolveEnvironmentGroup,
} from '../../../schemas/environments.js';
import type { Principal } from '../../auth/principal.js';
import { AppError, type FieldError, notFound } from '../../errors.js';
import type { CursorCodec } from '../../lib/cursor.js';
import { newId, nowIso } from '../../lib/ids.js';
import { type Page, DEFAULT_PAGE_SIZE, filterScope } from '../../lib/page.js';
import type { WorkspaceAccess } from '../../workspaces/access.js';
import { type TwinRecord, presentVersion } from '../records.js';
import type { TwinRepo, TwinRow, VersionRow } from '../repo.js';
import { type DefinitionContext, definitionErrors, matchEnvironments } from './match.js';
import { type EnvironmentEntry, environmentProfile } from './profile.js';
import { sliceGraph } from './slice.js';

/** Twin types that have environments (spec "Digital twin": `type`). */
const PANEL_TYPES = new Set(['multi-environment-static', 'multi-environment-temporal']);
/** Versions read per step while looking for the newest one with a profile. */
const VERSION_SCAN_PAGE = 20;

export class EnvironmentService {
  constructor(
    private readonly repo: TwinRepo,
    private readonly access: WorkspaceAccess,
    private readonly cursors: CursorCodec,
  ) {}

  /**
   * The environments of a version, sorted by key, filtered by `q`, one page. Without `versionId`: of the newest
   * version that has read its data (none yet: an empty page with `versionId` null). A cursor keeps paging the
   * version its first page read. Single-environment twins have none.
   */
  async listEnvironments(principal: Principal, workspaceId: string, twinId: string, query: EnvironmentListQuery, versionId?: string): Promise<EnvironmentList> {
    await this.access.require(principal, workspaceId, 'read');
    const twin = await this.find(principal, workspaceId, twinId);
    const record = recordOf(twin);
    const scope = filterScope({ list: 'twin-environments', twinId, versionId: versionId ?? null, q: query.q ?? null });
    const after = query.cursor === undefined ? null : (this.cursors.decode(query.cursor, scope).after as [string, string]);
    // A twin-level cursor names the version its first page read, so a newer version does not shift the pages.
    const version = after !== null ? await this.version(principal, twinId, after[0]) : versionId !== undefined ? await this.version(principal, twinId, versionId) : await this.newestProfiled(principal, twin);
    const profile = version === null ? null : environmentProfile(version);
    const needle = query.q?.toLowerCase();
    const entries = (profile?.environments ?? [])
      .filter((entry) => needle === undefined || searchText(entry, profile!.columns).includes(needle))
      .sort((a, b) => compare(a.key, b.key));
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const rest = after === null ? entries : entries.filter((entry) => compare(entry.key, after[1]) > 0);
    const served = rest.slice(0, limit);
    const hasMore = rest.length > limit;
    const last = served.at(-1);
    return {
      data: served,
      pagination: { cursor: hasMore && last !== undefined && version !== null ? this.cursors.encode({ after: [version.id, last.key], scope }) : null, hasMore, total: entries.length },
      versionId: version?.id ?? null,
      version: version === null ? null : versionLabel(version),
      environmentColumns: profile?.columns ?? record.environmentColumns,
      profiled: profile !== null,
      rowsWithoutEnvironment: profile?.rowsWithoutEnvironment ?? null,
    };
  }

  /** The twin's groups in creation order, one page. */
  async listGroups(principal: Principal, workspaceId: string, twinId: string, query: { limit?: number; cursor?: string }): Promise<Page<EnvironmentGroup>> {
    await this.access.require(principal, workspaceId, 'read');
    const groups = recordOf(await this.find(principal, workspaceId, twinId)).environmentGroups;
    const scope = filterScope({ list: 'environment-groups', twinId });
    const after = query.cursor === undefined ? null : String(this.cursors.decode(query.cursor, scope).after[0]);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    // Ids are time-ordered (lib/ids.ts): sorting by id is creation order.
    const rest = [...groups].sort((a, b) => compare(a.id, b.id)).filter((group) => after === null || compare(group.id, after) > 0);
    const items = rest.slice(0, limit);
    const hasMore = rest.length > limit;
    return { items, pagination: { cursor: hasMore ? this.cursors.encode({ after: [items.at(-1)!.id], scope }) : null, hasMore, total: groups.length } };
  }

  async getGroup(principal: Principal, workspaceId: string, twinId: string, groupId: string): Promise<EnvironmentGroup> {
    await this.access.require(principal, workspaceId, 'read');
    return groupOf(recordOf(await this.find(principal, workspaceId, twinId)), groupId);
  }

  /**
   * Saves a group on a multi-environment twin (422 on other twins, or when the definition does not fit the twin;
   * 409 when the twin has a group of that name). The threshold: the body's top-level value, else the definition's,
   * else 0.5.
   */
  async createGroup(principal: Principal, workspaceId: string, twinId: string, input: CreateEnvironmentGroup): Promise<EnvironmentGroup> {
    await this.access.require(principal, workspaceId, 'write');
    const now = nowIso();
    const threshold = input.agreementThreshold ?? input.definition.agreementThreshold ?? DEFAULT_AGREEMENT_THRESHOLD;
    const group: EnvironmentGroup = {
      id: newId('eg'),
      name: input.name.trim(),
      definition: { ...input.definition, agreementThreshold: threshold },
      agreementThreshold: threshold,
      createdAt: now,
      createdBy: principal.userId,
      updatedAt: now,
      splitColumn: input.splitColumn ?? null,
      splitValue: input.splitValue ?? null,
    };
    await this.mutateGroups(principal, workspaceId, twinId, (twin, groups) => {
      checkGroup(twin, group, 'body');
      uniqueName(groups, group);
      return [...groups, group];
    });
    return group;
  }

  /**
   * Changes the members given; a new `definition` replaces the old one whole. The threshold: the body's top-level
   * value, else the new definition's, else unchanged.
   */
  async updateGroup(principal: Principal, workspaceId: string, twinId: string, groupId: string, input: PatchEnvironmentGroup): Promise<EnvironmentGroup> {
    await this.access.require(principal, workspaceId, 'write');
    let updated: EnvironmentGroup | undefined;
    await this.mutateGroups(principal, workspaceId, twinId, (twin, groups) => {
      const current = groupOf({ environmentGroups: groups }, groupId);
      const threshold = input.agreementThreshold ?? input.definition?.agreementThreshold ?? current.agreementThreshold;
      const next: EnvironmentGroup = {
        ...current,
        name: input.name?.trim() ?? current.name,
        definition: { ...(input.definition ?? current.definition), agreementThreshold: threshold },
        agreementThreshold: threshold,
        splitColumn: input.splitColumn === undefined ? current.splitColumn : input.splitColumn,
        splitValue: input.splitValue === undefined ? current.splitValue : input.splitValue,
        updatedAt: nowIso(),
      };
      checkGroup(twin, next, 'body', input.definition !== undefined);
      uniqueName(groups, next);
      updated = next;
      return groups.map((group) => (group.id === groupId ? next : group));
    });
    return updated!;
  }

  /** Runs already submitted keep their frozen snapshot of the group. */
  async deleteGroup(principal: Principal, workspaceId: string, twinId: string, groupId: string): Promise<void> {
    await this.access.require(principal, workspaceId, 'write');
    await this.mutateGroups(principal, workspaceId, twinId, (_twin, groups) => {
      groupOf({ environmentGroups: groups }, groupId);
      return groups.filter((group) => group.id !== groupId);
    });
  }

  /**
   * Which environments of a version (default the newest that has read its data) an inline definition or a saved
   * group selects. Read-only; answers 200 when nothing matches, or when no version has read its data yet.
   */
  async resolve(principal: Principal, workspaceId: string, twinId: string, input: ResolveEnvironmentGroup): Promise<EnvironmentResolution> {
    await this.access.require(principal, workspaceId, 'read');
    const twin = await this.find(principal, workspaceId, twinId);
    const record = recordOf(twin);
    requirePanel(twin, 'resolve environment groups');
    if ((input.definition === undefined) === (input.groupId === undefined)) {
      const location = input.definition === undefined ? 'body/definition' : 'body/groupId';
      throw new AppError('validation_failed', 'Give definition or groupId, not both and not neither', { errors: [{ location, message: 'exactly one of definition and groupId' }] });
    }
    let version: VersionRow | null;
    if (input.versionId !== undefined) {
      version = (await this.repo.findVersion(principal.organisationId, twinId, input.versionId)) ?? null;
      if (version === null) throw invalid([{ location: 'body/versionId', message: `${input.versionId} is not a version of this twin` }]);
    } else {
      version = await this.newestProfiled(principal, twin);
    }
    const { definition, threshold } = selection(record, version, input, 'body/definition');
    const profile = version === null ? null : environmentProfile(version);
    const { matched, unknown } = profile === null ? { matched: [], unknown: [] } : matchEnvironments(definition, profile);
    const sorted = [...matched].sort((a, b) => compare(a.key, b.key));
    return {
      versionId: version?.id ?? null,
      version: version === null ? null : versionLabel(version),
      profiled: profile !== null,
      groupId: input.groupId ?? null,
      envKeys: sorted.map((entry) => entry.key),
      environments: sorted.map(({ key, values, nRows, hasEvidence }) => ({ key, values, nRows, hasEvidence })),
      matchedCount: sorted.length,
      evidenceCount: sorted.filter((entry) => entry.hasEvidence).length,
      totalEnvCount: profile?.environments.length ?? 0,
      unknown,
      agreementThreshold: input.agreementThreshold ?? threshold,
    };
  }

  /**
   * The graph of a selection of environments (slice.ts): read-only; 422 on a single-environment twin, a version
   * not discovered yet, or a selection with no environment with evidence.
   */
  async slice(principal: Principal, workspaceId: string, twinId: string, versionId: string, input: GraphSlice): Promise<GraphSliceResult> {
    await this.access.require(principal, workspaceId, 'read');
    const twin = await this.find(principal, workspaceId, twinId);
    requirePanel(twin, 'slice a graph by');
    const version = await this.repo.findVersion(principal.organisationId, twinId, versionId);
    if (version === undefined) throw notFound('Twin version', versionId);
    const { groupId, agreementThreshold, ...inline } = input;
    if ((groupId === undefined) === (inline.mode === undefined)) {
      throw invalid([{ location: groupId === undefined ? 'body/mode' : 'body/groupId', message: 'give an inline definition (mode and its member) or groupId, not both' }]);
    }
    const { definition, threshold } = selection(recordOf(twin), version, groupId === undefined ? { definition: inline as EnvironmentGroupDefinition } : { groupId }, 'body');
    const profile = environmentProfile(version);
    const record = presentVersion(version);
    if (profile === null || record.discoveredAt === null) throw invalid([{ location: 'path/vId', message: `version ${record.version} has not learned its graph yet: run discover or run-pipeline first` }]);
    const sliced = sliceGraph(record, profile, matchEnvironments(definition, profile).matched, agreementThreshold ?? threshold);
    if (sliced.envCount === 0) throw new AppError('validation_failed', 'No environment with evidence matches the selection: every matching environment (if any) has too few rows to judge its edges', { errors: [{ location: groupId === undefined ? 'body/mode' : 'body/groupId', message: 'matches no environment with evidence' }] });
    return sliced;
  }

  private async mutateGroups(principal: Principal, workspaceId: string, twinId: string, change: (twin: TwinRow, groups: EnvironmentGroup[]) => EnvironmentGroup[]): Promise<void> {
    const written = await this.repo.mutate(principal.organisationId, workspaceId, twinId, (row) => {
      const record = recordOf(row);
      return { ...row, record: JSON.stringify({ ...record, environmentGroups: change(row, record.environmentGroups) }), updated_at: nowIso() };
    });
    if (written === undefined) throw notFound('Digital twin', twinId);
  }

  /** The newest version (by number) whose data has been read as a panel, or null. */
  private async newestProfiled(principal: Principal, twin: TwinRow): Promise<VersionRow | null> {
    if (!PANEL_TYPES.has(twin.type)) return null;
    let after: PageAfter = null;
    for (;;) {
      const { rows } = await this.repo.listVersions(principal.organisationId, twin.id, { limit: VERSION_SCAN_PAGE, after });
      const found = rows.slice(0, VERSION_SCAN_PAGE).find((row) => environmentProfile(row) !== null);
      if (found !== undefined) return found;
      if (rows.length <= VERSION_SCAN_PAGE) return null;
      const last = rows[VERSION_SCAN_PAGE - 1]!;
      after = [last.version_major, last.version_minor, last.version_patch];
    }
  }

  private async version(principal: Principal, twinId: string, versionId: string): Promise<VersionRow> {
    const row = await this.repo.findVersion(principal.organisationId, twinId, versionId);
    if (row === undefined) throw notFound('Twin version', versionId);
    return row;
  }

  private async find(principal: Principal, workspaceId: string, id: string): Promise<TwinRow> {
    const row = await this.repo.find(principal.organisationId, workspaceId, id);
    if (row === undefined) throw notFound('Digital twin', id);
    return row;
  }
}

type PageAfter = Array<string | number | boolean | null> | null;

/** The twin's record; twins stored before groups existed may lack the member. */
function recordOf(row: TwinRow): TwinRecord {
  const record = JSON.parse(row.record) as TwinRecord;
  return { ...record, environmentGroups: record.environmentGroups ?? [] };
}

function groupOf(record: Pick<TwinRecord, 'environmentGroups'>, groupId: string): EnvironmentGroup {
  const group = record.environmentGroups.find((g) => g.id === groupId);
  if (group === undefined) throw notFound('Environment group', groupId);
  return group;
}

function requirePanel(twin: TwinRow, what: string): void {
  if (!PANEL_TYPES.has(twin.type)) {
    throw new AppError('validation_failed', `Only multi-environment twins have environments to ${what}; twin ${twin.id} is ${twin.type}`);
  }
}

/** The group fits the twin: a panel twin, a definition over its columns and variables, a split on an environment column. */
function checkGroup(twin: TwinRow, group: EnvironmentGroup, at: string, checkDefinition = true): void {
  requirePanel(twin, 'group');
  const record = recordOf(twin);
  const context: DefinitionContext = { environmentColumns: record.environmentColumns, variables: record.canonicalInputSchema };
  const errors = checkDefinition ? definitionErrors(group.definition, context, `${at}/definition`) : [];
  if (group.splitColumn !== null && !record.environmentColumns.includes(group.splitColumn)) {
    errors.push({ location: `${at}/splitColumn`, message: `${group.splitColumn} is not an environment column; the twin's are ${record.environmentColumns.join(', ')}` });
  }
  if (group.splitValue !== null && group.splitColumn === null) errors.push({ location: `${at}/splitValue`, message: 'needs splitColumn' });
  if (errors.length > 0) throw invalid(errors);
}

/** The definition and threshold of an inline definition (checked against the twin) or a saved group. */
function selection(record: TwinRecord, version: VersionRow | null, input: { definition?: EnvironmentGroupDefinition; groupId?: string }, at: string): { definition: EnvironmentGroupDefinition; threshold: number } {
  if (input.groupId !== undefined) {
    const group = record.environmentGroups.find((g) => g.id === input.groupId);
    if (group === undefined) throw invalid([{ location: 'body/groupId', message: `${input.groupId} is not an environment group of this twin` }]);
    return { definition: group.definition, threshold: group.agreementThreshold };
  }
  const definition = input.definition!;
  const variables = version === null ? record.canonicalInputSchema : presentVersion(version).canonicalInputSchema;
  const errors = definitionErrors(definition, { environmentColumns: record.environmentColumns, variables }, at);
  if (errors.length > 0) throw invalid(errors);
  return { definition, threshold: definition.agreementThreshold ?? DEFAULT_AGREEMENT_THRESHOLD };
}

function uniqueName(groups: EnvironmentGroup[], group: EnvironmentGroup): void {
  const name = normalise(group.name);
  if (groups.some((other) => other.id !== group.id && normalise(other.name) === name)) {
    throw new AppError('conflict', `The twin already has an environment group named ${group.name}`);
  }
}

function invalid(errors: FieldError[]): AppError {
  const [first] = errors;
  const detail = first === undefined ? 'Invalid environment group' : `${first.location.replace(/^body\//, '')}: ${first.message}${errors.length > 1 ? ` (and ${errors.length - 1} more)` : ''}`;
  return new AppError('validation_failed', detail, { errors });
}

/** What `q` is matched against: the key as written and with its values decoded. */
const searchText = (entry: EnvironmentEntry, columns: readonly string[]) =>
  `${entry.key}\n${columns.map((column) => `${column}=${entry.values[column] ?? ''}`).join(';')}`.toLowerCase();

const versionLabel = (row: VersionRow) => `${row.version_major}.${row.version_minor}.${row.version_patch}`;
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const normalise = (name: string) => name.trim().toLowerCase().replace(/\s+/g, ' ');

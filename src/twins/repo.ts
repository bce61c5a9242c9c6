import type { PageRequest } from '../lib/page.js';
import { listingTotal, newestFirstPage } from '../store/meta/keyset.js';
import type { MetaDb } from '../store/meta/port.js';
import type { DigitalTwinsTable, TwinVersionsTable } from '../store/meta/schema.js';

export type TwinRow = DigitalTwinsTable;
export type VersionRow = TwinVersionsTable;


class TwinGone extends Error {}

export class TwinRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(twin: TwinRow, version: VersionRow): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await tx.insertInto('digital_twins').values(twin).execute();
      await tx.insertInto('twin_versions').values(version).execute();
    });
  }

  find(organisationId: string, workspaceId: string, id: string): Promise<TwinRow | undefined> {
    return this.db
      .selectFrom('digital_twins')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  async list(organisationId: string, workspaceId: string, page: PageRequest): Promise<{ rows: TwinRow[]; total: number }> {
    return newestFirstPage<TwinRow>(this.db.selectFrom('digital_twins').where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId), page);
  }

  /** Writes the twin if it is still at `row.revision`; false when another writer came first. */
  /** Every twin of a workspace (which learn from a dataset whose concepts changed). */
  allIn(organisationId: string, workspaceId: string): Promise<TwinRow[]> {
    return this.db.selectFrom('digital_twins').selectAll().where('organisation_id', '=', organisationId).where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
  }

  async update(row: TwinRow): Promise<boolean> {
    const result = await this.db
      .updateTable('digital_twins')
      .set({ name: row.name, normalized_name: row.normalized_name, record: row.record, updated_at: row.updated_at, revision: row.revision + 1 })
      .where('organisation_id', '=', row.organisation_id)
      .where('id', '=', row.id)
      .where('revision', '=', row.revision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }

  /**
   * Read-modify-write of a twin that never loses a concurrent change: `change` is applied to the current row and
   * retried on a fresh read when another writer came first. Answers the row written, or undefined when the twin
   * is gone.
   */
  async mutate(organisationId: string, workspaceId: string, id: string, change: (row: TwinRow) => TwinRow | Promise<TwinRow>): Promise<TwinRow | undefined> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const row = await this.find(organisationId, workspaceId, id);
      if (row === undefined) return undefined;
      const next = await change(row);
      if (await this.update({ ...next, revision: row.revision })) return { ...next, revision: row.revision + 1 };
    }
    throw new Error(`Twin ${id} kept changing under concurrent writes`);
  }

  /** Deletes the twin and its versions, all or nothing; false when it was not there. */
  async delete(organisationId: string, workspaceId: string, id: string): Promise<boolean> {
    try {
      await this.db.transaction().execute(async (tx) => {
        const result = await tx
          .deleteFrom('digital_twins')
          .where('organisation_id', '=', organisationId)
          .where('workspace_id', '=', workspaceId)
          .where('id', '=', id)
          .executeTakeFirst();
        if (Number(result.numDeletedRows) !== 1) throw new TwinGone();
        await tx.deleteFrom('twin_versions').where('organisation_id', '=', organisationId).where('twin_id', '=', id).execute();
      });
      return true;
    } catch (error) {
      if (error instanceof TwinGone) return false;
      throw error;
    }
  }

  async versionIds(organisationId: string, twinId: string): Promise<string[]> {
    const rows = await this.db.selectFrom('twin_versions').select('id').where('organisation_id', '=', organisationId).where('twin_id', '=', twinId).execute();
    return rows.map((row) => row.id);
  }

  findVersion(organisationId: string, twinId: string, id: string): Promise<VersionRow | undefined> {
    return this.db
      .selectFrom('twin_versions')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('twin_id', '=', twinId)
      .where('id', '=', id)
      .executeTakeFirst();
  }

  /** Newest version number first. */
  latestVersion(organisationId: string, twinId: string): Promise<VersionRow | undefined> {
    return this.db
      .selectFrom('twin_versions')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('twin_id', '=', twinId)
      .orderBy('version_major', 'desc')
      .orderBy('version_minor', 'desc')
      .orderBy('version_patch', 'desc')
      .limit(1)
      .executeTakeFirst();
  }

  /** Keyset page of versions, newest version number first. */
  async listVersions(organisationId: string, twinId: string, page: PageRequest): Promise<{ rows: VersionRow[]; total: number }> {
    const base = this.db.selectFrom('twin_versions').where('organisation_id', '=', organisationId).where('twin_id', '=', twinId);
    let rows = base.selectAll();
    if (page.after !== null) {
      const [major, minor, patch] = page.after as [number, number, number];
      rows = rows.where((eb) => eb(eb.refTuple('version_major', 'version_minor', 'version_patch'), '<', eb.tuple(major, minor, patch)));
    }
    const result = await rows.orderBy('version_major', 'desc').orderBy('version_minor', 'desc').orderBy('version_patch', 'desc').limit(page.limit + 1).execute();
    return { rows: result, total: await listingTotal(base, page, result.length) };
  }

  /** The version's revision alone (bumped on every write): whether a parsed copy is still the version. */
  async versionRevision(organisationId: string, twinId: string, id: string): Promise<number | undefined> {
    const row = await this.db.selectFrom('twin_versions').select('revision').where('organisation_id', '=', organisationId).where('twin_id', '=', twinId).where('id', '=', id).executeTakeFirst();
    return row?.revision;
  }

  async insertVersion(row: VersionRow): Promise<void> {
    await this.db.insertInto('twin_versions').values(row).execute();
  }

  /** Writes the version if it is still at `revision`; false when another writer came first. */
  async updateVersion(row: VersionRow, revision: number): Promise<boolean> {
    const result = await this.db
      .updateTable('twin_versions')
      .set({ record: row.record, model: row.model, revision: revision + 1 })
      .where('organisation_id', '=', row.organisation_id)
      .where('id', '=', row.id)
      .where('revision', '=', revision)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  }
}

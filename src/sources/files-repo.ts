import type { MetaDb } from '../store/meta/port.js';
import type { SourceFilesTable } from '../store/meta/schema.js';

export type SourceFileRow = SourceFilesTable;

/** The files of folder sources. */
export class SourceFileRepo {
  constructor(private readonly db: MetaDb) {}

  async insert(row: SourceFileRow): Promise<void> {
    await this.db.insertInto('source_files').values(row).execute();
  }

  list(organisationId: string, sourceId: string): Promise<SourceFileRow[]> {
    return this.db
      .selectFrom('source_files')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where('source_id', '=', sourceId)
      .orderBy('uploaded_at')
      .orderBy('id')
      .execute()
      .then((rows) => rows.map((row) => ({ ...row, bytes: Number(row.bytes), quotes: Number(row.quotes) })));
  }

  findByHash(organisationId: string, sourceId: string, hash: string): Promise<SourceFileRow | undefined> {
    return this.db.selectFrom('source_files').selectAll().where('organisation_id', '=', organisationId).where('source_id', '=', sourceId).where('hash', '=', hash).executeTakeFirst();
  }

  async markExtracted(id: string, sourceId: string): Promise<void> {
    await this.db.updateTable('source_files').set({ extracted_source_id: sourceId }).where('id', '=', id).execute();
  }
}

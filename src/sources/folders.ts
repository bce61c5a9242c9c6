import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceFile } from '../../schemas/sources.js';
import { newId, nowIso } from '../lib/ids.js';
import type { SourceFileRepo, SourceFileRow } from './files-repo.js';
import type { UploadFormat } from '../tables/readers.js';
import type { ReceivedFile } from '../tables/receive.js';

/**
 * The files of folder sources: bytes kept under `<data dir>/folders/<organisation>/<source>/<file>` (in the
 * scale-out profile the data directory must be a volume every process shares), records in the metadata store.
 */
export class FolderFiles {
  constructor(
    private readonly repo: SourceFileRepo,
    private readonly directory: string,
  ) {}

  path(file: Pick<SourceFileRow, 'organisation_id' | 'source_id' | 'id'>): string {
    return join(this.directory, file.organisation_id, file.source_id, file.id);
  }

  /** Keeps a received file in the folder; the same bytes again answer the file they made. */
  async add(organisationId: string, sourceId: string, received: ReceivedFile, format: UploadFormat, fileName: string | null): Promise<{ file: SourceFileRow; duplicate: boolean }> {
    const known = await this.repo.findByHash(organisationId, sourceId, received.hash);
    if (known !== undefined) return { file: known, duplicate: true };
    const row: SourceFileRow = {
      id: newId('file'),
      source_id: sourceId,
      organisation_id: organisationId,
      file_name: fileName,
      format,
      bytes: received.bytes,
      hash: received.hash,
      quotes: received.quotes,
      blank_lines: received.blankLines ? 1 : 0,
      uploaded_at: nowIso(),
      extracted_source_id: null,
    };
    const path = this.path(row);
    await mkdir(join(path, '..'), { recursive: true });
    await rename(received.path, path);
    try {
      await this.repo.insert(row);
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    return { file: row, duplicate: false };
  }

  list(organisationId: string, sourceId: string): Promise<SourceFileRow[]> {
    return this.repo.list(organisationId, sourceId);
  }

  markExtracted(file: SourceFileRow, sourceId: string): Promise<void> {
    return this.repo.markExtracted(file.id, sourceId);
  }

  /** Removes a deleted folder's bytes (its records go with the source row). */
  removeAll(organisationId: string, sourceId: string): Promise<void> {
    return rm(join(this.directory, organisationId, sourceId), { recursive: true, force: true });
  }
}

export const toSourceFile = (row: SourceFileRow): SourceFile => ({
  id: row.id,
  sourceId: row.source_id,
  fileName: row.file_name,
  format: row.format,
  bytes: Number(row.bytes),
  hash: row.hash,
  uploadedAt: row.uploaded_at,
  extractedSourceId: row.extracted_source_id,
});

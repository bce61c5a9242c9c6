/**
 * A source's rows as they come in, each batch under the source's write lease (lease.ts): rows sent as JSON, an
 * uploaded file (a folder keeps it as one more file), a connector's extract, a folder's files extracted into sources
 * of their own (and the list of a folder's files), and a column re-typed. The table-loading subsystem (tables/) reads, converts and loads the rows;
 * this records each batch on the source (schema, statistics, the batch range, a new version) and keeps data and
 * record in step when either fails. The resource itself (records, links, visibility, listings) is service.ts.
 */
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FromData, Source, SourceFile } from '../../schemas/sources.js';
import type { Principal } from '../auth/principal.js';
import { AppError, notFound } from '../errors.js';
import { canonicalJson } from '../lib/canonical-json.js';
import { newId, nowIso } from '../lib/ids.js';
import type { InferredColumn } from '../tables/inference/infer-schema.js';
import { type BatchRow, type IngestOptions, fieldsOf, toCell } from '../tables/ingest.js';
import type { FileOnDisk, TableLoader } from '../tables/loader.js';
import type { UploadFormat } from '../tables/readers.js';
import type { PartedFile } from '../tables/parts.js';
import type { ReceivedFile } from '../tables/receive.js';
import { checkUploadType, receiveUpload } from '../tables/upload.js';
import type { RetypeTarget } from '../tables/retype.js';
import type { WorkspaceAccess } from '../workspaces/access.js';
import type { SourceFileRow } from './files-repo.js';
import { type FolderFiles, toSourceFile } from './folders.js';
import type { SourceWriters } from './lease.js';
import { type SourceDetails, newSourceRow, toSource } from './records.js';
import { type SourceRepo, type SourceRow, StaleSourceError } from './repo.js';
import type { RowsAddedListener } from './service.js';

/** What an upload answers: the source after it, the batch it made (or a folder's file), and whether the bytes came before. */
export interface UploadResult {
  source: Source;
  batch: Source['batchRanges'][number] | null;
  file: SourceFile | null;
  duplicate: boolean;
}

/** What a batch records of the bytes it came from: the same bytes never land twice in a source. */
interface BatchIdentity {
  hash: string;
  bytes: number;
  fileName: string | null;
}

/** What a folder's extraction answers: the folder after it, and per file the source made, the failure or the skip. */
export interface ExtractionResult {
  folder: Source;
  extracted: Source[];
  failed: Array<{ fileId: string; fileName: string | null; error: string }>;
  skipped: Array<{ fileId: string; fileName: string | null; extractedSourceId: string }>;
}

export class SourceBatches {
  constructor(
    private readonly repo: SourceRepo,
    private readonly access: WorkspaceAccess,
    private readonly tables: TableLoader,
    private readonly uploadDirectory: string,
    private readonly folders: FolderFiles,
    /** The writers of every source, shared with the resource (its ontology changes queue behind uploads). */
    private readonly writers: SourceWriters,
    /** Tells the source's listeners of stored rows (SourceService.rowsAdded). */
    private readonly rowsAdded: RowsAddedListener,
  ) {}

  /** A tabular source from inline records: schema inferred, rows stored as its first batch and version. */
  async createFromData(principal: Principal, workspaceId: string, input: FromData): Promise<Source> {
    await this.access.require(principal, workspaceId, 'write');
    const row = newSourceRow(principal, workspaceId, { name: input.name, description: input.description ?? null, dataFormat: 'Tabular', parentId: null, dataSource: 'inline', ontologyMode: input.ontologyMode ?? 'auto' });
    const text = canonicalJson(input.rows);
    const fields = fieldsOf(input.rows);
    const records = (async function* records() {
      for (const [i, record] of input.rows.entries()) yield { line: i + 1, cells: fields.map((field) => toCell(record[field])) };
    })();
    const ingested = await this.ingest(row, { fields, rows: records, format: 'json' }, { hash: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text), fileName: null });
    await this.store(ingested, () => this.repo.insert(ingested, workspaceId));
    const created = toSource(ingested);
    await this.rowsAdded(created, workspaceId, principal.userId);
    return created;
  }

  /**
   * Appends a file to a tabular source as one batch and a new version. The same bytes again add nothing and
   * answer the batch they made. Uploads to one source run one at a time in this process.
   */
  async upload(principal: Principal, workspaceId: string, id: string, body: Readable, contentType: string, fileName: string | null): Promise<UploadResult> {
    await this.access.require(principal, workspaceId, 'write');
    checkUploadType(contentType);
    const source = await this.linkedSource(principal, workspaceId, id);
    const { file, format, fileName: partName } = await receiveUpload(body, contentType, this.uploadDirectory);
    fileName ??= partName;
    try {
      if (source.data_format === 'Folder') return await this.addToFolder(principal.organisationId, id, file, format, fileName);
      return await this.writers.run(principal.organisationId, id, async (current, lease) => {
        const known = toSource(current).batchRanges.find((batch) => batch.hash === file.hash);
        if (known !== undefined) return { source: toSource(current), batch: known, file: null, duplicate: true };
        await this.clearUncommittedRows(current);
        const updated = await this.ingest(current, { file, format }, { hash: file.hash, bytes: file.bytes, fileName }, { beforeCommit: lease.assertHeld });
        await this.store(updated, () => this.repo.updateLeased(updated, lease.token));
        const result = toSource(updated);
        return { source: result, batch: result.batchRanges.at(-1)!, file: null, duplicate: false };
      }).then(async (result) => {
        if (!result.duplicate) await this.rowsAdded(result.source, workspaceId, principal.userId);
        return result;
      });
    } finally {
      await file.discard();
    }
  }

  /** A file kept by a folder source: one more document; the same bytes again answer the file they made. */
  private addToFolder(organisationId: string, id: string, received: ReceivedFile, format: UploadFormat, fileName: string | null): Promise<UploadResult> {
    return this.writers.run(organisationId, id, async (current, lease) => {
      const { file, duplicate } = await this.folders.add(organisationId, id, received, format, fileName);
      if (duplicate) return { source: toSource(current), batch: null, file: toSourceFile(file), duplicate };
      const updated: SourceRow = { ...current, document_count: current.document_count + 1, total_size: current.total_size + file.bytes, last_saved: nowIso() };
      await this.repo.updateLeased(updated, lease.token);
      return { source: toSource({ ...updated, version: updated.version + 1 }), batch: null, file: toSourceFile(file), duplicate };
    });
  }

  async listFiles(principal: Principal, workspaceId: string, id: string): Promise<SourceFile[]> {
    await this.access.require(principal, workspaceId, 'read');
    const folder = await this.linkedSource(principal, workspaceId, id);
    return (await this.folders.list(principal.organisationId, folder.id)).map(toSourceFile);
  }

  /**
   * Extracts files of a folder into derived tabular sources (one per file, linked to the workspace, child of the
   * folder): each is read like an upload. A file that is not a readable table is reported as failed and leaves
   * nothing; files extracted before are skipped. The folder records how the last extraction went.
   */
  async extract(principal: Principal, workspaceId: string, id: string, fileIds: string[] | undefined): Promise<ExtractionResult> {
    await this.access.require(principal, workspaceId, 'write');
    const folder = await this.linkedSource(principal, workspaceId, id);
    if (folder.data_format !== 'Folder') throw new AppError('invalid_request', `Source ${id} is tabular; files are extracted from folder sources`);
    return this.writers.run(principal.organisationId, id, async (current, lease) => {
      const files = await this.folders.list(principal.organisationId, id);
      const unknown = (fileIds ?? []).filter((fileId) => !files.some((file) => file.id === fileId));
      if (unknown.length > 0) throw new AppError('validation_failed', `The folder has no file ${unknown.join(', ')}`, { errors: [{ location: 'body/fileIds', message: 'unknown file' }] });
      const result: ExtractionResult = { folder: toSource(current), extracted: [], failed: [], skipped: [] };
      for (const file of files.filter((f) => fileIds === undefined || fileIds.includes(f.id))) {
        if (file.extracted_source_id !== null && (await this.repo.find(principal.organisationId, file.extracted_source_id)) !== undefined) {
          result.skipped.push({ fileId: file.id, fileName: file.file_name, extractedSourceId: file.extracted_source_id });
          continue;
        }
        try {
          const source = await this.createFromFile(principal, workspaceId, current, file);
          await this.folders.markExtracted(file, source.id);
          result.extracted.push(source);
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          result.failed.push({ fileId: file.id, fileName: file.file_name, error: error.message });
        }
      }
      const details = JSON.parse(current.details) as SourceDetails;
      const status = result.failed.length === 0 ? 'completed' : result.extracted.length === 0 ? 'failed' : 'partial';
      const error = result.failed.length === 0 ? null : result.failed.map((f) => `${f.fileName ?? f.fileId}: ${f.error}`).join('; ');
      const updated: SourceRow = { ...current, last_saved: nowIso(), details: JSON.stringify({ ...details, extractionStatus: status, extractionError: error }) };
      await this.repo.updateLeased(updated, lease.token);
      return { ...result, folder: toSource({ ...updated, version: updated.version + 1 }) };
    });
  }

  /** A tabular source made from a folder's file: a child of the folder, the file as its first batch. */
  private async createFromFile(principal: Principal, workspaceId: string, folder: SourceRow, file: SourceFileRow): Promise<Source> {
    const name = (file.file_name ?? file.id).replace(/\.[^.]+$/, '') || file.id;
    const row = newSourceRow(principal, workspaceId, { name, description: `Extracted from ${folder.name}/${file.file_name ?? file.id}`, dataFormat: 'Tabular', parentId: folder.id, dataSource: 'extraction' });
    const details = JSON.parse(row.details) as SourceDetails;
    const derived: SourceRow = {
      ...row,
      details: JSON.stringify({ ...details, derivedVia: 'folder_extraction', extractionStatus: 'completed', extractionRecipe: { folderId: folder.id, fileId: file.id, fileName: file.file_name, format: file.format } }),
    };
    const stored = { path: this.folders.path(file), hash: file.hash, bytes: Number(file.bytes), quotes: Number(file.quotes), blankLines: file.blank_lines === 1 };
    const created = await this.createWithFile(derived, workspaceId, { file: stored, fileName: file.file_name }, file.format as UploadFormat);
    await this.rowsAdded(created, workspaceId, principal.userId);
    return created;
  }

  /**
   * A new tabular source whose first batch is a file on disk, linked to the workspace. The table is the new
   * source's alone, so whatever fails after rows were written (statistics, the metadata write) drops it.
   */
  private async createWithFile(
    row: SourceRow,
    workspaceId: string,
    file: ({ parts: PartedFile } | { file: FileOnDisk & { hash: string; bytes: number } }) & { fileName: string | null },
    format: UploadFormat,
    options: IngestOptions = {},
  ): Promise<Source> {
    try {
      const identity = 'parts' in file ? async () => ({ ...(await file.parts.finished), fileName: file.fileName }) : { hash: file.file.hash, bytes: file.file.bytes, fileName: file.fileName };
      const ingested = await this.ingest(row, 'parts' in file ? { parts: file.parts, format: 'csv' } : { file: file.file, format }, identity, options);
      await this.store(ingested, () => this.repo.insert(ingested, workspaceId));
      return toSource(ingested);
    } catch (error) {
      await this.tables.drop({ organisationId: row.organisation_id, tableId: row.id }).catch(() => undefined);
      throw error;
    }
  }

  /**
   * A tabular source from a file a connector extracted (streamed to disk whole, or CSV in parts loaded as they
   * arrive): linked to the workspace, the file as its first batch. `decide` types the columns (from the source's
   * declared types); `beforeCommit` lets the caller stop before any row is kept. A failure leaves no source and no
   * rows.
   */
  async createFromExtract(
    owner: { organisationId: string; workspaceId: string },
    input: { name: string; description: string; ontologyMode: 'auto' | 'manual'; recipe: Record<string, unknown> },
    file: { file: ReceivedFile } | { parts: PartedFile },
    format: UploadFormat,
    options: Pick<IngestOptions, 'decide' | 'beforeCommit' | 'canonical'>,
  ): Promise<Source> {
    const row = newSourceRow({ organisationId: owner.organisationId }, owner.workspaceId, { name: input.name, description: input.description, dataFormat: 'Tabular', parentId: null, dataSource: 'connector' });
    const details = JSON.parse(row.details) as SourceDetails;
    const imported: SourceRow = { ...row, details: JSON.stringify({ ...details, ontologyMode: input.ontologyMode, extractionStatus: 'completed', extractionRecipe: input.recipe }) };
    return this.createWithFile(imported, owner.workspaceId, { ...file, fileName: null }, format, options);
  }

  /** Takes back a source an import created (the import was cancelled right after storing it). */
  async discardImported(organisationId: string, id: string): Promise<void> {
    await this.repo.delete(organisationId, id);
    await this.tables.drop({ organisationId, tableId: id }).catch(() => undefined);
  }

  /**
   * Re-types a column of a tabular source: every stored row is converted and checked first (422 naming the row
   * that does not fit, nothing changed); later uploads are read with the new type. A new version id, no new batch.
   */
  async retype(principal: Principal, workspaceId: string, id: string, input: { field: string; type: RetypeTarget }): Promise<Source> {
    await this.access.require(principal, workspaceId, 'write');
    const source = await this.linkedSource(principal, workspaceId, id);
    if (source.data_format !== 'Tabular') throw new AppError('invalid_request', 'Only the columns of tabular sources have types');
    return this.writers.run(principal.organisationId, id, async (current, lease) => {
      const details = JSON.parse(current.details) as SourceDetails;
      const columns = details.schemaEntries as InferredColumn[];
      if (current.document_count === 0 || columns.length === 0) throw new AppError('validation_failed', 'The source has no rows yet: its columns get their types from the first batch');
      if (columns.find((c) => c.field === input.field)?.type === input.type) return toSource(current);
      await this.clearUncommittedRows(current);
      const table = { organisationId: current.organisation_id, tableId: current.id };
      const retyped = await this.tables.retype(table, columns, input.field, input.type, lease.assertHeld);
      // Until the new schema is recorded, any failure puts the old rows back; they are dropped once no longer needed.
      let recorded: SourceRow;
      try {
        const next: SourceDetails = { ...details, schemaEntries: retyped.schema, columnMetadata: { ...details.columnMetadata, ...retyped.columnMetadata }, currentVersionId: newId('ver') };
        recorded = { ...current, last_saved: nowIso(), details: JSON.stringify(next) };
        await this.repo.updateLeased(recorded, lease.token);
      } catch (error) {
        await retyped.restore();
        throw error instanceof StaleSourceError ? new AppError('conflict', `Source ${id} lost its write lease during the change; retry`) : error;
      }
      await retyped.keep();
      return toSource({ ...recorded, version: recorded.version + 1 });
    });
  }

  /**
   * Appends one batch (a file, or rows read already) to the source's table and answers the source row as it must be
   * stored after it: schema (first batch), statistics over all rows, the batch range, a new version.
   */
  private async ingest(
    row: SourceRow,
    input: { file: FileOnDisk; format: UploadFormat } | { parts: PartedFile; format: 'csv' } | { fields: string[]; rows: AsyncIterable<BatchRow>; format: 'json' },
    identity: BatchIdentity | (() => Promise<BatchIdentity>),
    options: Omit<IngestOptions, 'file'> = {},
  ): Promise<SourceRow> {
    const details = JSON.parse(row.details) as SourceDetails;
    const table = { organisationId: row.organisation_id, tableId: row.id };
    const existing = details.schemaEntries.length === 0 ? null : (details.schemaEntries as InferredColumn[]);
    const batch = 'file' in input
      ? await this.tables.appendFile(table, existing, input.file, input.format, row.document_count, options)
      : 'parts' in input
        ? await this.tables.appendParts(table, existing, input.parts, row.document_count, options)
        : await this.tables.append(table, existing, input.fields, input.rows, row.document_count, options);
    // Parts: the file's identity is known once the whole stream has arrived, which the last part's load waited for.
    const file = typeof identity === 'function' ? await identity() : identity;
    const now = nowIso();
    const next: SourceDetails = {
      ...details,
      schemaEntries: batch.columns,
      columnMetadata: batch.columnMetadata,
      extension: details.extension ?? input.format,
      batchRanges: [...details.batchRanges, { hash: file.hash, fileName: file.fileName, uploadedAt: now, rowStart: row.document_count, rowEnd: row.document_count + batch.rowCount - 1 }],
      currentVersionId: newId('ver'),
      latestVersionOrdinal: details.latestVersionOrdinal + 1,
      // The new rows are described again (rowsAdded queues the extraction once they are stored).
      ...(details.ontologyMode === 'auto' && { ontologyStatus: 'queued', ontologyError: null }),
    };
    return {
      ...row,
      document_count: row.document_count + batch.rowCount,
      total_size: row.total_size + file.bytes,
      last_saved: now,
      details: JSON.stringify(next),
    };
  }

  /**
   * Stores the metadata of an ingested batch; if that fails, the batch's rows are taken out again so data and
   * metadata never disagree (a first batch drops the table, a later one deletes its row range).
   */
  private async store(row: SourceRow, write: () => Promise<void>): Promise<void> {
    try {
      await write();
    } catch (error) {
      // A lost lease means another writer owns the source now: its rows may sit where this batch's were, so
      // nothing is deleted; the rows of this batch are never recorded, so no read shows them.
      if (error instanceof StaleSourceError) throw new AppError('conflict', `Source ${row.id} lost its write lease during the upload (it lapsed and another writer took it); retry`);
      const batch = (JSON.parse(row.details) as SourceDetails).batchRanges.at(-1)!;
      await this.tables.cut({ organisationId: row.organisation_id, tableId: row.id }, batch.rowStart).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Rows a crashed upload committed to the data engine but never recorded: beyond the recorded row count (or the
   * whole table of a source without a schema). Only called by the writer holding the lease.
   */
  private async clearUncommittedRows(row: SourceRow): Promise<void> {
    const hasSchema = (JSON.parse(row.details) as SourceDetails).schemaEntries.length > 0;
    await this.tables.cut({ organisationId: row.organisation_id, tableId: row.id }, hasSchema ? row.document_count : 0);
  }

  private async linkedSource(principal: Principal, workspaceId: string, id: string): Promise<SourceRow> {
    const row = await this.repo.find(principal.organisationId, id);
    if (row === undefined || !(await this.repo.linkedWorkspaceIds(id)).includes(workspaceId)) throw notFound('Source', id);
    return row;
  }
}

import { constants, existsSync } from 'node:fs';
import { type FileHandle, open, readdir, realpath, stat } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import type { StorageCredentials } from '../../../schemas/connectors.js';
import { AppError } from '../../errors.js';
import { inferSchema } from '../../tables/inference/infer-schema.js';
import { type UploadFormat, openTable } from '../../tables/readers.js';
import { allowedRoot } from '../credentials.js';
import type { DriverOptions } from './network.js';
import { type BrowseEntry, type ConnectorDriver, type ReadTarget, SourceError } from './port.js';

/** File formats a storage connector reads, by extension. */
const FORMATS: Record<string, UploadFormat> = {
  '.csv': 'csv',
  '.tsv': 'tsv',
  '.tab': 'tsv',
  '.ndjson': 'ndjson',
  '.jsonl': 'ndjson',
  '.json': 'json',
  '.parquet': 'parquet',
};

/**
 * Files under a directory the operator allows (CAUSA_STORAGE_ROOTS). Every path is resolved to its real path
 * and must stay inside the connector's root, so neither `..` nor a symbolic link leads out of it. Reading a
 * file never changes it.
 */
export function openStorageDriver(credentials: StorageCredentials, options: DriverOptions): ConnectorDriver {
  /** The root as it is now (it is checked again on every use: a root can be moved or replaced by a link). */
  const root = () => {
    try {
      return allowedRoot(credentials.root, options.storageRoots);
    } catch (error) {
      throw new SourceError('unreachable', `The storage root cannot be read: ${error instanceof AppError ? (error.extras.errors?.[0]?.message ?? error.message) : String(error)}`);
    }
  };

  /** The real path of `path` (relative to the root), refused unless it stays inside the root. */
  const resolve = async (path: string): Promise<{ real: string; top: string }> => {
    const top = root();
    let real: string;
    try {
      real = await realpath(join(top, path));
    } catch {
      throw new SourceError('query', `No such file or directory: ${path}`);
    }
    if (real !== top && !real.startsWith(top + sep)) throw new SourceError('query', `${path} is outside the connector's root`);
    return { real, top };
  };

  /**
   * Opens the file a target names and checks the file actually opened: its real path (read back from the open
   * descriptor) must be inside the root, so a directory swapped for a link between check and open cannot lead
   * out. Reads go through the descriptor (its /proc path for readers that open by path).
   */
  const fileOf = async (target: ReadTarget): Promise<{ handle: FileHandle; path: string; format: UploadFormat }> => {
    if (target.kind !== 'path') throw new SourceError('query', 'A storage connector reads files: send config.path');
    const { real, top } = await resolve(target.path);
    const format = FORMATS[extname(real).toLowerCase()];
    if (format === undefined) throw new SourceError('query', `${target.path} is not a file type this connector reads (${Object.keys(FORMATS).join(', ')})`);
    const handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW).catch(() => {
      throw new SourceError('query', `${target.path} cannot be opened`);
    });
    try {
      // Without /proc (not Linux) the check of the path before opening is all there is.
      const byDescriptor = `/proc/self/fd/${handle.fd}`;
      const hasProc = existsSync(byDescriptor);
      const opened = hasProc ? await realpath(byDescriptor) : real;
      if (!opened.startsWith(top + sep)) throw new SourceError('query', `${target.path} is outside the connector's root`);
      if (!(await handle.stat()).isFile()) throw new SourceError('query', `${target.path} is not a file`);
      return { handle, path: hasProc ? byDescriptor : real, format };
    } catch (error) {
      await handle.close();
      throw error;
    }
  };

  return {
    /** Files are read under the operator's roots (checked at every open); there is no host to gate. */
    async admitted() {},

    async test() {
      root();
      return { serverVersion: null };
    },

    async browse(request) {
      if (request.level !== 'files') throw new SourceError('query', `Unknown level "${request.level}"; this connector browses: files (context: path, a directory)`);
      const { real, top } = await resolve(request.context.path ?? '.');
      if (!(await stat(real)).isDirectory()) throw new SourceError('query', `${request.context.path} is not a directory`);
      const search = request.search?.toLowerCase();
      const entries: BrowseEntry[] = [];
      for (const entry of (await readdir(real, { withFileTypes: true })).sort((a, b) => a.name.localeCompare(b.name))) {
        if (entries.length >= request.limit) break;
        if (search !== undefined && !entry.name.toLowerCase().includes(search)) continue;
        const path = relative(top, join(real, entry.name));
        if (entry.isDirectory()) entries.push({ name: entry.name, kind: 'directory', path });
        else if (entry.isFile() && FORMATS[extname(entry.name).toLowerCase()] !== undefined) {
          const info = await stat(join(real, entry.name));
          entries.push({ name: entry.name, kind: 'file', path, size: info.size, modifiedAt: info.mtime.toISOString() });
        }
      }
      return entries;
    },

    async preview(target, limit) {
      const { handle, path, format } = await fileOf(target);
      try {
        const reader = await openTable(path, format).catch(asQueryError);
        const cells: Array<Array<string | null>> = [];
        try {
          for await (const row of reader.rows) {
            cells.push(row.cells);
            if (cells.length > limit) break;
          }
        } catch (error) {
          asQueryError(error);
        } finally {
          reader.close();
        }
        const columns = inferSchema(reader.fields, cells).map((column) => ({ name: column.field, type: column.type }));
        return { columns, rows: cells.map((row) => Object.fromEntries(reader.fields.map((field, i) => [field, row[i] ?? null]))) };
      } finally {
        await handle.close();
      }
    },

    async extract(target) {
      const { handle, format } = await fileOf(target);
      return { stream: handle.createReadStream(), format, declared: null };
    },

    async close() {},
  };
}

/** A file that does not read as a table: the reader's own words. */
function asQueryError(error: unknown): never {
  throw new SourceError('query', error instanceof Error ? error.message : String(error));
}

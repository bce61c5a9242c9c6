/**
 * A small client of the public REST API (the pipeline commands of `causa`): Bearer key, JSON in and out, RFC 7807
 * problems thrown as ApiError, files streamed both ways. It uses nothing of the service but its HTTP contract.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Readable } from 'node:stream';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: Array<{ location: string; message: string }> },
  ) {
    super(`${status} ${problem.title ?? 'error'}: ${problem.detail ?? ''}${problem.errors?.length ? ` (${problem.errors.map((e) => `${e.location}: ${e.message}`).join('; ')})` : ''}`);
    this.name = 'ApiError';
  }
}

/** Media types of the files the service takes and gives, by extension. */
export const FILE_TYPES: Record<string, { upload: string; export: string }> = {
  csv: { upload: 'text/csv', export: 'csv' },
  tsv: { upload: 'text/tab-separated-values', export: 'csv' },
  ndjson: { upload: 'application/x-ndjson', export: 'ndjson' },
  jsonl: { upload: 'application/x-ndjson', export: 'ndjson' },
  parquet: { upload: 'application/vnd.apache.parquet', export: 'parquet' },
};

export function fileType(path: string): { upload: string; export: string } {
  const extension = path.slice(path.lastIndexOf('.') + 1).toLowerCase();
  const type = FILE_TYPES[extension];
  if (type === undefined) throw new Error(`${path}: the file type is read from its extension, one of ${Object.keys(FILE_TYPES).join(', ')}`);
  return type;
}

export class Api {
  constructor(
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  async json<T = Record<string, any>>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await this.send(method, path, body === undefined ? {} : { body: JSON.stringify(body), type: 'application/json' });
    const text = await response.text();
    return (text === '' ? {} : JSON.parse(text)).data as T;
  }

  /** Streams a file as a request body; answers the JSON `data`. */
  async upload<T = Record<string, any>>(path: string, file: string, type: string, onBytes?: (sent: number, total: number) => void): Promise<T> {
    const total = (await stat(file)).size;
    let sent = 0;
    const stream = createReadStream(file).on('data', (chunk) => {
      sent += chunk.length;
      onBytes?.(sent, total);
    });
    const response = await this.send('POST', path, { body: Readable.toWeb(stream) as ReadableStream, type, length: total });
    return (JSON.parse(await response.text()) as { data: T }).data;
  }

  /** A response body as a Node stream (a download). */
  async download(path: string): Promise<Readable> {
    const response = await this.send('GET', path, {});
    if (response.body === null) throw new Error(`${path}: no body`);
    return Readable.fromWeb(response.body as never);
  }

  private async send(method: string, path: string, { body, type, length }: { body?: string | ReadableStream; type?: string; length?: number }): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}` };
    if (type !== undefined) headers['content-type'] = type;
    if (length !== undefined) headers['content-length'] = String(length);
    const response = await fetch(`${this.baseUrl.replace(/\/$/, '')}/api/v1${path}`, { method, headers, ...(body === undefined ? {} : { body, duplex: 'half' }) } as RequestInit);
    if (!response.ok) {
      const text = await response.text();
      let problem: ConstructorParameters<typeof ApiError>[1];
      try {
        problem = JSON.parse(text);
      } catch {
        problem = { title: response.statusText, detail: text.slice(0, 500) };
      }
      throw new ApiError(response.status, problem);
    }
    return response;
  }
}

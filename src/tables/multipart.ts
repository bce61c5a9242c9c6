import type { Readable } from 'node:stream';
import { Busboy } from '@fastify/busboy';
import { AppError } from '../errors.js';
import { UPLOAD_FORMATS } from './readers.js';
import { type ReceivedFile, receiveFile } from './receive.js';

/** Media types by file extension, for parts sent as application/octet-stream: each format's name, and aliases. */
const BY_EXTENSION: Record<string, string> = {
  ...Object.fromEntries(Object.entries(UPLOAD_FORMATS).map(([mediaType, format]) => [format, mediaType])),
  tab: 'text/tab-separated-values',
  jsonl: 'application/x-ndjson',
};

export interface ReceivedPart {
  file: ReceivedFile;
  mediaType: string;
  fileName: string | null;
}

/**
 * The part named `file` of a multipart/form-data body, streamed to a temporary file like a raw upload; other
 * parts are skipped. Its media type is the part's own, or read from the file name's extension.
 */
export function receiveMultipartFile(body: Readable, contentType: string, directory: string): Promise<ReceivedPart> {
  return new Promise((resolve, reject) => {
    let received: Promise<ReceivedPart> | null = null;
    let parser;
    try {
      parser = Busboy({ headers: { 'content-type': contentType } });
    } catch (error) {
      reject(new AppError('invalid_request', `The multipart body cannot be read: ${(error as Error).message}`));
      return;
    }
    parser.on('file', (field, stream, fileName, _encoding, mimeType) => {
      if (field !== 'file' || received !== null) {
        stream.resume();
        return;
      }
      const declared = mimeType.split(';')[0]!.trim().toLowerCase();
      const extension = fileName.split('.').pop()?.toLowerCase() ?? '';
      const mediaType = declared === '' || declared === 'application/octet-stream' ? (BY_EXTENSION[extension] ?? declared) : declared;
      received = receiveFile(stream, directory).then((file) => ({ file, mediaType, fileName: fileName === '' ? null : fileName }));
      received.catch(reject); // e.g. too large: answered at once, not at the end of the body
    });
    // A body that breaks after the file part arrived must not leave that file behind.
    const fail = (error: unknown) => {
      void received?.then((part) => part.file.discard(), () => undefined);
      reject(error);
    };
    parser.on('error', (error: Error) => fail(new AppError('invalid_request', `The multipart body is malformed: ${error.message}`)));
    parser.on('finish', () => {
      if (received === null) reject(new AppError('validation_failed', 'The multipart body has no file part named "file"'));
      else received.then(resolve, reject);
    });
    body.on('error', fail);
    body.pipe(parser);
  });
}

/**
 * A file sent in a request body: one of UPLOAD_FORMATS, sent as its own media type or as the part "file" of
 * multipart/form-data (whose part's media type, or its file name's extension, names the format). Received to disk
 * (receive.ts) with bounded memory; anything else answers 415.
 */
import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';
import { receiveMultipartFile } from './multipart.js';
import { UPLOAD_FORMATS, type UploadFormat } from './readers.js';
import { type ReceivedFile, receiveFile } from './receive.js';

const MULTIPART = 'multipart/form-data';

const unsupportedMedia = () =>
  new AppError('unsupported_media_type', `Upload a file as one of: ${Object.keys(UPLOAD_FORMATS).join(', ')}, or as the part "file" of ${MULTIPART}`);

const mediaTypeOf = (contentType: string) => contentType.split(';')[0]!.trim().toLowerCase();

/** Refuses (415) a body whose media type is neither an upload format nor multipart, before anything is read. */
export function checkUploadType(contentType: string): void {
  const declared = mediaTypeOf(contentType);
  if (declared !== MULTIPART && !(declared in UPLOAD_FORMATS)) throw unsupportedMedia();
}

/** The uploaded file on disk, its format and the file name a multipart part gave (the caller discards the file). */
export async function receiveUpload(body: Readable, contentType: string, directory: string): Promise<{ file: ReceivedFile; format: UploadFormat; fileName: string | null }> {
  checkUploadType(contentType);
  const declared = mediaTypeOf(contentType);
  const received = declared === MULTIPART ? await receiveMultipartFile(body, contentType, directory) : { file: await receiveFile(body, directory), mediaType: declared, fileName: null };
  const format = UPLOAD_FORMATS[received.mediaType as keyof typeof UPLOAD_FORMATS];
  if (format === undefined) {
    await received.file.discard();
    throw unsupportedMedia();
  }
  return { file: received.file, format, fileName: received.fileName };
}

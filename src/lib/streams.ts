/** Streams read one after another: the parts of an export read in several queries. */
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';

/** The chunks of each stream in turn. */
export async function* concatenated(streams: AsyncIterable<Readable>): AsyncGenerator<Buffer> {
  for await (const stream of streams) for await (const chunk of stream) yield chunk as Buffer;
}

/** Each stream read whole (a part that is one file, as a Parquet part is). */
export async function* wholeParts(streams: AsyncIterable<Readable>): AsyncGenerator<Buffer> {
  for await (const stream of streams) yield await buffer(stream);
}

/**
 * Gzip for answers made of a large constant prefix and a short tail that changes per answer (an MCP list whose
 * request id differs per call), at the cost of the tail alone. The prefix is deflated once, up to a sync flush
 * (RFC 1951 §3.2.3: the stream stops on a byte boundary, no final block yet); each answer appends its tail as the
 * final stored block (§3.2.4: BFINAL 1 and BTYPE 00 in one byte, LEN, NLEN, the bytes) and the gzip trailer
 * (RFC 1952 §2.3.1: the CRC-32 of the whole input, continued from the prefix's, and its size modulo 2^32).
 */
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** ID1 ID2, CM deflate, no flags, no MTIME, no extra flags, OS unknown (RFC 1952 §2.3). */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** A stored block holds at most this many bytes. */
const MAX_STORED = 0xffff;

export class GzipPrefix {
  private readonly head: Buffer;
  private readonly crc: number;
  private readonly size: number;

  constructor(prefix: Buffer) {
    this.head = Buffer.concat([HEADER, deflateRawSync(prefix, { level: 9, finishFlush: constants.Z_SYNC_FLUSH })]);
    this.crc = crc32(prefix);
    this.size = prefix.length;
  }

  /** The gzip member of prefix + tail (a tail of at most 65,535 bytes). */
  with(tail: Buffer): Buffer {
    if (tail.length > MAX_STORED) throw new RangeError(`A gzip tail holds at most ${MAX_STORED} bytes`);
    const out = Buffer.allocUnsafe(this.head.length + 5 + tail.length + 8);
    let at = this.head.copy(out, 0);
    out[at++] = 1; // BFINAL 1, BTYPE 00 (stored), then padding to the byte boundary
    out.writeUInt16LE(tail.length, at);
    out.writeUInt16LE(~tail.length & 0xffff, at + 2);
    at += 4 + tail.copy(out, at + 4);
    out.writeUInt32LE(crc32(tail, this.crc), at);
    out.writeUInt32LE((this.size + tail.length) >>> 0, at + 4);
    return out;
  }
}

/** Headers read before (clients send the same few). */
const ACCEPTS = new Map<string, boolean>();
const MAX_REMEMBERED = 64;

/** Whether an Accept-Encoding header accepts gzip (RFC 9110 §12.5.3: a `gzip` or `*` coding whose q is not 0). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let accepts = ACCEPTS.get(header);
  if (accepts === undefined) {
    accepts = readAcceptEncoding(header);
    if (ACCEPTS.size >= MAX_REMEMBERED) ACCEPTS.clear();
    ACCEPTS.set(header, accepts);
  }
  return accepts;
}

function readAcceptEncoding(header: string): boolean {
  let star = false;
  for (const part of header.split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const accepted = q === undefined || Number(q.slice(2)) > 0;
    if (coding === 'gzip' || coding === 'x-gzip') return accepted;
    if (coding === '*') star = accepted;
  }
  return star;
}

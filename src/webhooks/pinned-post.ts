import type { LookupAddress, LookupOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { effectivePort } from './allow-hosts.js';
import { literalAddress } from './url.js';

/** Receivers have nothing to tell us; read this much of an answer at most, then hang up. */
export const MAX_RESPONSE_BYTES = 64 * 1024;

export interface PinnedPost {
  url: URL;
  /** The addresses already resolved and judged; the connection goes to these and nowhere else. */
  addresses: readonly LookupAddress[];
  headers: Record<string, string>;
  body: Buffer;
  /** Covers connect, request and response; the socket is destroyed when it runs out. */
  timeoutMs: number;
}

export type PostResult =
  | { kind: 'answered'; status: number; location: string | undefined }
  | { kind: 'timed_out'; answeredStatus: number | undefined }
  | { kind: 'failed'; reason: string };

/**
 * One POST to `url`, connecting only to `addresses`. The request keeps the host name for the Host header and TLS
 * (SNI and certificate check), but its `lookup` hands back the pinned addresses instead of asking DNS again, so a
 * DNS answer that changes between the policy check and the connect (DNS rebinding) cannot redirect it.
 * Redirects are not followed: node:http never does, and a 3xx is returned as an ordinary answer.
 */
export function postPinned({ url, addresses, headers, body, timeoutMs }: PinnedPost): Promise<PostResult> {
  return new Promise((resolve) => {
    let settled = false;
    let answeredStatus: number | undefined;
    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };

    const literal = literalAddress(url);
    const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        method: 'POST',
        host: literal ?? url.hostname,
        port: effectivePort(url),
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host, 'content-length': String(body.length) },
        // A private agent: no pooled socket from another delivery is reused, and the connection closes after.
        agent: false,
        lookup: pinnedLookup(addresses),
      },
      (response) => {
        answeredStatus = response.statusCode ?? 0;
        const answered: PostResult = { kind: 'answered', status: answeredStatus, location: header(response, 'location') };
        drainCapped(response, () => settle(answered));
      },
    );

    const timer = setTimeout(() => {
      settle({ kind: 'timed_out', answeredStatus });
      request.destroy(new Error('webhook delivery timed out'));
    }, timeoutMs);

    request.on('error', (error: NodeJS.ErrnoException) => settle({ kind: 'failed', reason: error.code ?? error.message }));
    request.end(body);
  });
}

/**
 * A net `lookup` that answers from the pinned list. Node asks with `all: true` when it races address families
 * (autoSelectFamily, on by default since Node 20) and for a single address otherwise.
 */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return (_hostname: string, options: LookupOptions, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    const usable = addresses.filter((entry) => family === 0 || entry.family === family);
    const first = usable[0];
    if (first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no pinned IPv${family} address`);
      error.code = 'ENOTFOUND';
      callback(error, '', 0);
    } else if (options.all === true) {
      callback(null, usable.map((entry) => ({ address: entry.address, family: entry.family })));
    } else {
      callback(null, first.address, first.family);
    }
  };
}

/** Reads and discards the body, hanging up once MAX_RESPONSE_BYTES have arrived; `done` runs once either way. */
function drainCapped(response: IncomingMessage, done: () => void): void {
  let received = 0;
  response.on('data', (chunk: Buffer) => {
    received += chunk.length;
    if (received > MAX_RESPONSE_BYTES) response.destroy();
  });
  response.on('error', () => {}); // 'close' follows and reports.
  response.on('end', done);
  response.on('close', done);
}

function header(response: IncomingMessage, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

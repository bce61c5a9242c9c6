/**
 * The operator's list of webhook hosts that may be called even though they resolve to non-public addresses
 * (a receiver inside the operator's own network, or a loopback receiver in tests).
 *
 * Matching rules:
 * - An entry names a host exactly as it is written in the webhook URL: "hooks.internal", "localhost",
 *   "127.0.0.1", "[::1]" or the bare "::1". There are no wildcards and no CIDR ranges, and an entry never matches
 *   by resolved address: "127.0.0.1" admits http://127.0.0.1/ but not http://localhost/.
 * - Names compare after the URL host normalisation (lower case, IDN to punycode, IPv6 compressed) and without a
 *   trailing root dot, so "LocalHost." and "localhost" are the same entry.
 * - "host:port" admits that port only; a bare host admits every port. The port compared is the URL's effective
 *   port (80 for http, 443 for https when none is written).
 */
export class HostAllowList {
  private readonly entries: readonly AllowedHost[];

  /** Throws InvalidAllowHostEntry naming the first entry that is not a host or host:port; blank entries are skipped. */
  constructor(entries: readonly string[]) {
    this.entries = entries
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map(parseEntry);
  }

  get size(): number {
    return this.entries.length;
  }

  admits(url: URL): boolean {
    const host = comparableHost(url.hostname);
    const port = effectivePort(url);
    return this.entries.some((entry) => entry.host === host && (entry.port === undefined || entry.port === port));
  }
}

export class InvalidAllowHostEntry extends Error {
  constructor(
    readonly entry: string,
    reason: string,
  ) {
    super(`webhook allow-list entry "${entry}" ${reason}`);
    this.name = 'InvalidAllowHostEntry';
  }
}

interface AllowedHost {
  host: string;
  port: number | undefined;
}

export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

function parseEntry(entry: string): AllowedHost {
  if (/[/@?#\\\s]/.test(entry)) throw new InvalidAllowHostEntry(entry, 'must be a host or host:port, not a URL');
  if (entry.includes('*')) throw new InvalidAllowHostEntry(entry, 'uses a wildcard; name each host');
  const { host, port } = splitHostPort(entry);
  if (port !== undefined && (!/^\d{1,5}$/.test(port) || Number(port) < 1 || Number(port) > 65535)) {
    throw new InvalidAllowHostEntry(entry, 'has a port outside 1-65535');
  }
  let normalised: string;
  try {
    // The WHATWG host parser is the one that produced url.hostname, so both sides are normalised alike.
    normalised = new URL(`http://${host}/`).hostname;
  } catch {
    throw new InvalidAllowHostEntry(entry, 'is not a valid host name or address');
  }
  if (normalised === '') throw new InvalidAllowHostEntry(entry, 'names no host');
  return { host: comparableHost(normalised), port: port === undefined ? undefined : Number(port) };
}

/** "[::1]:8080", "[::1]", "::1" (a bare IPv6 address, no port), "name:8080", "name". */
function splitHostPort(entry: string): { host: string; port: string | undefined } {
  if (entry.startsWith('[')) {
    const close = entry.indexOf(']');
    const after = close === -1 ? '' : entry.slice(close + 1);
    if (close === -1 || (after !== '' && !after.startsWith(':'))) throw new InvalidAllowHostEntry(entry, 'has an unclosed or misplaced IPv6 bracket');
    return { host: entry.slice(0, close + 1), port: after === '' ? undefined : after.slice(1) };
  }
  const colons = entry.split(':').length - 1;
  if (colons > 1) return { host: `[${entry}]`, port: undefined };
  if (colons === 1) {
    const at = entry.indexOf(':');
    return { host: entry.slice(0, at), port: entry.slice(at + 1) };
  }
  return { host: entry, port: undefined };
}

function comparableHost(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

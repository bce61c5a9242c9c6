import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isPublicAddress } from '../../webhooks/address-policy.js';
import { HostAllowList } from '../../webhooks/allow-hosts.js';
import { SourceError } from './port.js';

/**
 * Decides where a connector may connect, and to which address: answers the IP address to connect to (resolved
 * once, so a name cannot re-resolve to another address between check and connect) or throws. A tenant's
 * connector must never reach the operator's own network (the metadata database on loopback, cloud metadata
 * endpoints): only public addresses, and the hosts the operator lists in CAUSA_CONNECTOR_ALLOW_HOSTS.
 */
export type HostGate = (host: string, port: number) => Promise<string>;

/** What drivers get from the service besides credentials. */
export interface DriverOptions {
  gate: HostGate;
  /** Absolute directories storage connectors may read under (CAUSA_STORAGE_ROOTS). */
  storageRoots: readonly string[];
  /**
   * How an import reads a large PostgreSQL table: over up to `connections` sessions side by side, each reading a
   * range of at least `minBytes` of its pages, all under one snapshot (CAUSA_IMPORT_READ_CONNECTIONS, CAUSA_IMPORT_RANGE_BYTES).
   */
  ranges: { connections: number; minBytes: number };
}

export function hostGate(allowHosts: readonly string[]): HostGate {
  const allowed = new HostAllowList(allowHosts);
  return async (host, port) => {
    const bare = host.replace(/^\[|\]$/g, '');
    const address = isIP(bare) !== 0 ? bare : await resolve(bare);
    // The allow-list matches the host as written, with its port (the same rules as webhook hosts).
    const written = isIP(bare) === 6 ? `[${bare}]` : bare;
    if (allowed.admits(new URL(`http://${written}:${port}`)) || isPublicAddress(address)) return address;
    throw new SourceError(
      'unreachable',
      `Connectors may not reach ${host}: it is a non-public address (loopback, private or link-local). An operator can admit it with CAUSA_CONNECTOR_ALLOW_HOSTS.`,
    );
  };
}

async function resolve(host: string): Promise<string> {
  try {
    return (await lookup(host)).address;
  } catch (error) {
    throw new SourceError('unreachable', `Could not resolve host ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

import { BlockList, isIP } from 'node:net';

/** A parsed allowlist; `matches` is true for every address when the list is empty (spec: empty = all). */
export interface IpAllowlist {
  readonly entries: string[];
  matches(address: string): boolean;
}

/**
 * Parses a comma-separated list of IPv4/IPv6 addresses and CIDR ranges. Throws with the offending entry so the
 * caller can answer 422 naming it.
 */
export function parseIpAllowlist(text: string): IpAllowlist {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > maxBits || (prefix !== undefined && !/^\d+$/.test(prefix))) {
      throw new InvalidAllowlistEntry(entry);
    }
    list.addSubnet(address, bits, family === 6 ? 'ipv6' : 'ipv4');
  }
  return {
    entries,
    matches(raw: string) {
      if (entries.length === 0) return true;
      // Node reports IPv4 peers on dual-stack sockets as ::ffff:a.b.c.d; match them as IPv4.
      const address = raw.startsWith('::ffff:') && isIP(raw.slice(7)) === 4 ? raw.slice(7) : raw;
      const family = isIP(address);
      if (family === 0) return false;
      return list.check(address, family === 6 ? 'ipv6' : 'ipv4');
    },
  };
}

export class InvalidAllowlistEntry extends Error {
  constructor(readonly entry: string) {
    super(`"${entry}" is not an IPv4/IPv6 address or CIDR range`);
  }
}

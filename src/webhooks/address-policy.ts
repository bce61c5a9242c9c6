import { BlockList, isIP } from 'node:net';

/**
 * Decides whether a webhook may connect to an IP address. The question is "would this connection leave the
 * operator's network for the public internet?", so the policy fails closed: anything it cannot parse, and any
 * IPv6 address outside global unicast space, is refused.
 *
 * IPv6 forms that carry an IPv4 destination are judged by that IPv4 address, because the packet ends up there:
 * IPv4-mapped ::ffff:a.b.c.d (RFC 4291 §2.5.5.2, a dual-stack socket connects to the embedded IPv4 host),
 * NAT64 64:ff9b::a.b.c.d (RFC 6052) and 6to4 2002:AABB:CCDD::/48 (RFC 3056). The deprecated IPv4-compatible form
 * ::a.b.c.d (RFC 4291 §2.5.5.1) and the IPv4-translated form ::ffff:0:a.b.c.d are refused outright: no legitimate
 * receiver uses them and they lie outside global unicast anyway.
 */
export function isPublicAddress(ip: string): boolean {
  const family = isIP(ip);
  if (family === 4) return isPublicIpv4(ip);
  if (family !== 6) return false;
  const groups = ipv6Groups(withoutZone(ip));
  return groups !== undefined && isPublicIpv6(groups);
}

/** Non-public IPv4 ranges; IPv4 space is fully allocated, so what is not listed here is public. */
const NON_PUBLIC_IPV4: ReadonlyArray<readonly [network: string, prefix: number, why: string]> = [
  ['0.0.0.0', 8, 'RFC 1122 §3.2.1.3: "this network", includes the unspecified address'],
  ['10.0.0.0', 8, 'RFC 1918 private'],
  ['100.64.0.0', 10, 'RFC 6598 carrier-grade NAT shared space'],
  ['127.0.0.0', 8, 'RFC 1122 loopback'],
  ['169.254.0.0', 16, 'RFC 3927 link-local, includes cloud metadata 169.254.169.254'],
  ['172.16.0.0', 12, 'RFC 1918 private'],
  ['192.0.0.0', 24, 'RFC 6890 IETF protocol assignments'],
  ['192.0.2.0', 24, 'RFC 5737 documentation (TEST-NET-1)'],
  ['192.88.99.0', 24, 'RFC 7526 deprecated 6to4 relay anycast'],
  ['192.168.0.0', 16, 'RFC 1918 private'],
  ['198.18.0.0', 15, 'RFC 2544 benchmarking'],
  ['198.51.100.0', 24, 'RFC 5737 documentation (TEST-NET-2)'],
  ['203.0.113.0', 24, 'RFC 5737 documentation (TEST-NET-3)'],
  ['224.0.0.0', 4, 'RFC 5771 multicast'],
  ['240.0.0.0', 4, 'RFC 1112 §4 reserved, includes the limited broadcast 255.255.255.255 (RFC 919)'],
];

const nonPublicIpv4 = new BlockList();
for (const [network, prefix] of NON_PUBLIC_IPV4) nonPublicIpv4.addSubnet(network, prefix, 'ipv4');

function isPublicIpv4(dotted: string): boolean {
  return !nonPublicIpv4.check(dotted, 'ipv4');
}

function isPublicIpv6(g: readonly number[]): boolean {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = g;
  const upperHalfZero = g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0;
  // ::ffff:a.b.c.d — IPv4-mapped (RFC 4291 §2.5.5.2).
  if (upperHalfZero && g4 === 0 && g5 === 0xffff) return isPublicIpv4(dottedQuad(g6, g7));
  // 64:ff9b::/96 — the NAT64 well-known prefix (RFC 6052 §2.1); the last 32 bits are the IPv4 destination.
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return isPublicIpv4(dottedQuad(g6, g7));
  // Only global unicast 2000::/3 (RFC 4291 §2.4, IANA) reaches the internet. This also refuses :: and ::1,
  // IPv4-compatible ::/96, discard-only 100::/64 (RFC 6666), local-use NAT64 64:ff9b:1::/48 (RFC 8215),
  // unique-local fc00::/7 (RFC 4193), link-local fe80::/10 (RFC 4291), site-local fec0::/10 (RFC 3879),
  // multicast ff00::/8 (RFC 4291) and everything IANA has not allocated.
  if ((g0 & 0xe000) !== 0x2000) return false;
  // 2002::/16 — 6to4 (RFC 3056 §2): bits 16..47 are the IPv4 address of the site's relay.
  if (g0 === 0x2002) return isPublicIpv4(dottedQuad(g1, g2));
  // 2001::/23 — IETF protocol assignments (RFC 2928): Teredo 2001::/32 (RFC 4380) with its embedded, obfuscated
  // IPv4 addresses, benchmarking 2001:2::/48 (RFC 5180), ORCHID (RFC 7343). No webhook receiver lives there.
  if (g0 === 0x2001 && g1 < 0x0200) return false;
  // 2001:db8::/32 — documentation (RFC 3849).
  if (g0 === 0x2001 && g1 === 0x0db8) return false;
  // 3fff::/20 — documentation (RFC 9637).
  if (g0 === 0x3fff && (g1 & 0xf000) === 0) return false;
  return true;
}

/** A zone id (fe80::1%eth0, RFC 6874) picks an interface, not a destination; the address alone is judged. */
function withoutZone(ip: string): string {
  const percent = ip.indexOf('%');
  return percent === -1 ? ip : ip.slice(0, percent);
}

function dottedQuad(high: number, low: number): string {
  return `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
}

const HEX_GROUP = /^[0-9a-f]{1,4}$/i;

/**
 * Expands a textual IPv6 address (RFC 4291 §2.2: compressed "::", a trailing dotted quad, any letter case) into
 * its eight 16-bit groups. Callers have already checked the text with net.isIP; anything surprising still gives
 * undefined so the policy refuses it.
 */
function ipv6Groups(text: string): number[] | undefined {
  let hex = text;
  const lastColon = hex.lastIndexOf(':');
  const tail = hex.slice(lastColon + 1);
  if (tail.includes('.')) {
    if (isIP(tail) !== 4) return undefined;
    const octets = tail.split('.').map(Number);
    const [a = 0, b = 0, c = 0, d = 0] = octets;
    hex = `${hex.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = hex.split('::');
  if (halves.length > 2) return undefined;
  const [head = '', rest] = halves;
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return undefined;
  const written = [...headGroups, ...Array<string>(rest === undefined ? 0 : missing).fill('0'), ...tailGroups];
  if (!written.every((group) => HEX_GROUP.test(group))) return undefined;
  return written.map((group) => Number.parseInt(group, 16));
}

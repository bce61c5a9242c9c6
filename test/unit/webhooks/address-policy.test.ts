import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPublicAddress } from '../../../src/webhooks/address-policy.js';

const PUBLIC: ReadonlyArray<readonly [string, string]> = [
  ['8.8.8.8', 'an ordinary public IPv4 address'],
  ['1.1.1.1', 'an ordinary public IPv4 address'],
  ['11.0.0.0', 'the first address after 10/8'],
  ['9.255.255.255', 'the last address before 10/8'],
  ['100.63.255.255', 'the last address before 100.64/10'],
  ['100.128.0.0', 'the first address after 100.64/10'],
  ['126.255.255.255', 'the last address before 127/8'],
  ['169.253.255.255', 'the last address before 169.254/16'],
  ['172.15.255.255', 'the last address before 172.16/12'],
  ['172.32.0.0', 'the first address after 172.16/12'],
  ['192.0.1.255', 'the last address before 192.0.2/24'],
  ['192.0.3.0', 'the first address after 192.0.2/24'],
  ['192.167.255.255', 'the last address before 192.168/16'],
  ['192.169.0.0', 'the first address after 192.168/16'],
  ['198.17.255.255', 'the last address before 198.18/15'],
  ['198.20.0.0', 'the first address after 198.18/15'],
  ['223.255.255.255', 'the last unicast address before multicast'],
  ['2606:4700:4700::1111', 'a compressed public IPv6 address'],
  ['2606:4700:4700:0:0:0:0:1111', 'a public IPv6 address with every group written'],
  ['2606:4700:4700:0000:0000:0000:0000:1111', 'a public IPv6 address with leading zeros'],
  ['2606:4700:4700::1111'.toUpperCase(), 'a public IPv6 address in upper case'],
  ['2001:4860:4860::8888', 'a public IPv6 address in 2001::/16 outside the IETF block'],
  ['2001:200::1', 'the first /23 after the IETF protocol block 2001::/23'],
  ['2a00:1450:4001:81c::200e', 'a public IPv6 address'],
  ['2606:4700::1%eth0', 'a public IPv6 address with a zone id'],
  ['::ffff:8.8.8.8', 'an IPv4-mapped public address in dotted form'],
  ['::FFFF:8.8.8.8', 'an IPv4-mapped public address in upper case'],
  ['::ffff:808:808', 'an IPv4-mapped public address in hex form'],
  ['0:0:0:0:0:ffff:808:808', 'an IPv4-mapped public address with every group written'],
  ['64:ff9b::8.8.8.8', 'a NAT64 address embedding a public IPv4 address'],
  ['64:ff9b::808:808', 'a NAT64 address embedding a public IPv4 address in hex'],
  ['2002:808:808::1', 'a 6to4 address embedding a public IPv4 address'],
];

const NOT_PUBLIC: ReadonlyArray<readonly [string, string]> = [
  ['127.0.0.1', 'IPv4 loopback'],
  ['127.255.255.254', 'the top of IPv4 loopback'],
  ['0.0.0.0', 'the IPv4 unspecified address'],
  ['0.1.2.3', '"this network" 0/8'],
  ['10.0.0.1', 'RFC 1918 10/8'],
  ['10.255.255.255', 'the top of RFC 1918 10/8'],
  ['172.16.0.1', 'RFC 1918 172.16/12'],
  ['172.31.255.255', 'the top of RFC 1918 172.16/12'],
  ['192.168.1.1', 'RFC 1918 192.168/16'],
  ['169.254.169.254', 'the cloud metadata address'],
  ['169.254.0.1', 'IPv4 link-local'],
  ['100.64.0.1', 'carrier-grade NAT space'],
  ['100.127.255.255', 'the top of carrier-grade NAT space'],
  ['192.0.0.8', 'IETF protocol assignments 192.0.0/24'],
  ['192.0.2.1', 'documentation TEST-NET-1'],
  ['198.51.100.7', 'documentation TEST-NET-2'],
  ['203.0.113.9', 'documentation TEST-NET-3'],
  ['198.18.0.1', 'benchmarking 198.18/15'],
  ['198.19.255.255', 'the top of benchmarking 198.18/15'],
  ['192.88.99.1', 'the deprecated 6to4 relay anycast'],
  ['224.0.0.1', 'IPv4 multicast'],
  ['239.255.255.250', 'IPv4 multicast (SSDP)'],
  ['240.0.0.1', 'reserved 240/4'],
  ['255.255.255.255', 'the limited broadcast address'],
  ['::1', 'IPv6 loopback'],
  ['0:0:0:0:0:0:0:1', 'IPv6 loopback with every group written'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', 'IPv6 loopback with leading zeros'],
  ['::0:1', 'IPv6 loopback compressed differently'],
  ['::', 'the IPv6 unspecified address'],
  ['0::0', 'the IPv6 unspecified address written oddly'],
  ['fe80::1', 'IPv6 link-local'],
  ['FE80::1', 'IPv6 link-local in upper case'],
  ['fe80::1%eth0', 'IPv6 link-local with a zone id'],
  ['fe80::1%25eth0', 'IPv6 link-local with a percent-encoded zone id'],
  ['febf:ffff::1', 'the top of IPv6 link-local fe80::/10'],
  ['fec0::1', 'deprecated IPv6 site-local'],
  ['fc00::1', 'IPv6 unique-local fc00::/8'],
  ['fd12:3456:789a::1', 'IPv6 unique-local fd00::/8'],
  ['FD00::1', 'IPv6 unique-local in upper case'],
  ['ff02::1', 'IPv6 link-scope multicast'],
  ['ff0e::1', 'IPv6 global-scope multicast'],
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback in dotted form'],
  ['::FFFF:127.0.0.1', 'IPv4-mapped loopback in upper case'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback in hex form'],
  ['0:0:0:0:0:ffff:7f00:1', 'IPv4-mapped loopback with every group written'],
  ['0000:0000:0000:0000:0000:FFFF:7F00:0001', 'IPv4-mapped loopback with leading zeros in upper case'],
  ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata address'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped cloud metadata address in hex'],
  ['::ffff:10.0.0.1', 'IPv4-mapped RFC 1918 address'],
  ['::ffff:0:127.0.0.1', 'the IPv4-translated form'],
  ['::ffff:0:8.8.8.8', 'the IPv4-translated form even of a public address'],
  ['::127.0.0.1', 'the deprecated IPv4-compatible form of loopback'],
  ['::8.8.8.8', 'the deprecated IPv4-compatible form even of a public address'],
  ['::0.0.0.1', 'the IPv4-compatible spelling of ::1'],
  ['64:ff9b::127.0.0.1', 'NAT64 embedding loopback'],
  ['64:ff9b::a00:1', 'NAT64 embedding 10.0.0.1 in hex'],
  ['64:ff9b::169.254.169.254', 'NAT64 embedding the cloud metadata address'],
  ['64:ff9b:1::8.8.8.8', 'the local-use NAT64 prefix'],
  ['2002:7f00:1::1', '6to4 embedding loopback'],
  ['2002:a00:1::', '6to4 embedding 10.0.0.1'],
  ['2002:A9FE:A9FE::1', '6to4 embedding the cloud metadata address'],
  ['2001:db8::1', 'IPv6 documentation'],
  ['2001:DB8:0:0:0:0:0:1', 'IPv6 documentation in upper case'],
  ['3fff::1', 'the newer IPv6 documentation range'],
  ['2001::1', 'Teredo'],
  ['2001:2::1', 'IPv6 benchmarking'],
  ['100::1', 'IPv6 discard-only'],
  ['4000::1', 'unallocated IPv6 space outside 2000::/3'],
];

const UNPARSABLE = ['', 'localhost', 'example.com', '127.1', '0127.0.0.1', '0x7f.0.0.1', '2130706433', '1.2.3.4.5', '256.0.0.1', ' 8.8.8.8', '8.8.8.8 ', '[::1]', '[2606:4700::1111]', '::1%', '1::2::3', 'gggg::1', '1:2:3:4:5:6:7::8', '::ffff:8.8.8.8.8', '2606:4700:4700::1111:1:2:3:4:5'];

for (const [address, what] of PUBLIC) {
  test(`${address} (${what}) is public`, () => {
    assert.equal(isPublicAddress(address), true);
  });
}

for (const [address, what] of NOT_PUBLIC) {
  test(`${address} (${what}) is not public`, () => {
    assert.equal(isPublicAddress(address), false);
  });
}

for (const text of UNPARSABLE) {
  test(`"${text}" is not an IP address and so is not public`, () => {
    assert.equal(isPublicAddress(text), false);
  });
}

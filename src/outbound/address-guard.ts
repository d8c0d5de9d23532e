import { BlockList, isIP } from 'node:net';

/**
 * Addresses a notification must never reach: loopback, private, link-local (cloud metadata
 * services live there), carrier-grade NAT, multicast, unspecified, reserved and documentation
 * ranges. IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4) are judged
 * by it.
 */
const REFUSED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  REFUSED.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address an IPv6 one carries (mapped, compatible, translated, NAT64, 6to4), if any. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, deprecated).
  if (zeros(0, 5) && (groups[5] === 0xffff || groups[5] === 0)) {
    return v4(groups[6] as number, groups[7] as number);
  }
  // ::ffff:0:a.b.c.d (translated, SIIT).
  if (zeros(0, 4) && groups[4] === 0xffff && groups[5] === 0) {
    return v4(groups[6] as number, groups[7] as number);
  }
  // 64:ff9b::a.b.c.d and 64:ff9b:1::/48 (NAT64).
  if (groups[0] === 0x64 && groups[1] === 0xff9b)
    return v4(groups[6] as number, groups[7] as number);
  // 2002:aabb:ccdd::/48 (6to4).
  if (groups[0] === 0x2002) return v4(groups[1] as number, groups[2] as number);
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0] as string;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const part = (side: string) => (side === '' ? [] : side.split(':').map((g) => parseInt(g, 16)));
  const front = part(head);
  const back = tail === undefined ? [] : part(tail);
  const missing = 8 - front.length - back.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...front, ...new Array(missing).fill(0), ...back];
}

/** Why a notification may not go to this address, or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) {
    return REFUSED.check(address, 'ipv4') ? `${address} is not a public address` : undefined;
  }
  if (family !== 6) return `${address} is not an IP address`;
  const inner = embeddedIpv4(address);
  if (inner !== undefined && REFUSED.check(inner, 'ipv4')) {
    return `${address} carries ${inner}, which is not a public address`;
  }
  return REFUSED.check(address.split('%')[0] as string, 'ipv6')
    ? `${address} is not a public address`
    : undefined;
}

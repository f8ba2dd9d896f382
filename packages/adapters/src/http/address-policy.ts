import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';

/**
 * Destinations a webhook may never reach (docs/webhooks.md, SSRF): loopback, private,
 * carrier-grade NAT, link-local (cloud metadata at 169.254.169.254 and fd00:ec2::254 included),
 * multicast, reserved and unspecified ranges, for IPv4 and IPv6 alike.
 */
const forbidden = new net.BlockList();
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
  forbidden.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['::ffff:0:0:0', 96], // SIIT (RFC 2765)
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 32], // Teredo: tunnels to an IPv4 address
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: tunnels to the IPv4 address it embeds
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (net.isIP has said it is one), a trailing dotted quad included. */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0] ?? '';
  const quad = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = text.slice(0, quad.index) + ((a << 8) | b).toString(16) + ':' + ((c << 8) | d).toString(16);
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((w) => [w >> 8, w & 255]);
}

/**
 * The IPv4 address an IPv6 one carries to its destination: IPv4-mapped (::ffff:0:0/96) and NAT64
 * (64:ff9b::/96) take the last four bytes. Other embedding ranges (IPv4-compatible, SIIT, 6to4,
 * Teredo) are refused whole above, whichever IPv4 address they carry.
 */
function embeddedIpv4(address: string): string | null {
  const bytes = ipv6Bytes(address);
  const prefix = bytes.slice(0, 12).join(',');
  const mapped = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255].join(',');
  const nat64 = [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0].join(',');
  return prefix === mapped || prefix === nat64 ? bytes.slice(12).join('.') : null;
}

export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return forbidden.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner !== null) return forbidden.check(inner, 'ipv4');
    return forbidden.check(address, 'ipv6');
  }
  return true; // not an IP address at all: refuse rather than guess
}

/** The code a refused destination carries through got's RequestError (got copies it over). */
export const REFUSED_DESTINATION_CODE = 'ERR_MAILCAST_REFUSED_DESTINATION';

export class RefusedDestinationError extends Error {
  readonly code = REFUSED_DESTINATION_CODE;
  // The address is not named: what an internal host name resolves to is not the caller's to learn.
  constructor() {
    super('destination address is not allowed (private, loopback, link-local or reserved)');
    this.name = 'RefusedDestinationError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for outgoing sockets that resolves, then refuses if any address is forbidden.
 * The check happens at connect time on the address actually dialled, so a hostname that
 * resolved to a public address when the endpoint was saved cannot be rebound to an internal one.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) {
      callback(error, []);
      return;
    }
    const refused = addresses.find((a) => isForbiddenAddress(a.address));
    if (refused !== undefined || addresses.length === 0) {
      callback(new RefusedDestinationError(), []);
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}

/**
 * For a URL hostname that is an IP literal (IPv6 in brackets, as URL gives it): the refusal
 * reason when the address is forbidden, else null. A DNS name is not a literal: also null.
 */
export function forbiddenLiteral(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return net.isIP(bare) !== 0 && isForbiddenAddress(bare) ? `address ${bare} is not allowed` : null;
}

/** Resolves a hostname (or takes an IP literal) and tells whether every address is allowed. */
export async function destinationAllowed(hostname: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (net.isIP(bare)) {
    const refusal = forbiddenLiteral(bare);
    return refusal === null ? { ok: true } : { ok: false, reason: refusal };
  }
  try {
    const addresses = await dns.promises.lookup(bare, { all: true });
    const refused = addresses.find((a) => isForbiddenAddress(a.address));
    if (refused) return { ok: false, reason: `${bare} resolves to an address that is not allowed` };
    return addresses.length > 0 ? { ok: true } : { ok: false, reason: `${bare} does not resolve` };
  } catch {
    return { ok: false, reason: `${bare} does not resolve` };
  }
}

import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';

/**
 * Destinations a webhook may never reach (docs/security.md, "Webhook destinations"): loopback, private,
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
 * The IPv4 address a resolver reads in `host`: getaddrinfo takes inet_aton's forms, one to four
 * parts, each decimal, octal (leading 0) or hex (0x), the last one filling the bytes left, so
 * `127.1`, `2130706433`, `0x7f.1` and `0177.0.0.1` all dial 127.0.0.1. Null for anything else.
 */
export function ipv4Literal(host: string): string | null {
  const parts = host.split('.');
  if (parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]+$/i.test(part)) values.push(parseInt(part.slice(2), 16));
    else if (/^0[0-7]*$/.test(part)) values.push(parseInt(part, 8));
    else if (/^[1-9][0-9]*$/.test(part)) values.push(parseInt(part, 10));
    else return null;
  }
  const last = values.pop()!;
  if (values.some((v) => v > 255) || !(last < 256 ** (4 - values.length))) return null;
  for (let shift = 3 - values.length; shift >= 0; shift--) values.push(Math.floor(last / 256 ** shift) % 256);
  return values.join('.');
}

/** `localhost` and `*.localhost` (RFC 6761): loopback by definition, never asked of DNS. */
export function isLocalhostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

const LOCALHOST_ADDRESSES: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * The addresses `host` stands for without asking DNS: an IP literal in any form a resolver
 * accepts (IPv6 with or without brackets), or a localhost name. Null for a DNS name.
 */
export function addressesWithoutDns(host: string): LookupAddress[] | null {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  if (net.isIP(bare) === 6) return [{ address: bare, family: 6 }];
  const v4 = net.isIP(bare) === 4 ? bare : ipv4Literal(bare);
  if (v4 !== null) return [{ address: v4, family: 4 }];
  return isLocalhostName(bare) ? LOCALHOST_ADDRESSES : null;
}

/** Every address `host` stands for: literals and localhost names as they are, names from the resolver. */
export async function lookupHost(host: string): Promise<LookupAddress[]> {
  return addressesWithoutDns(host) ?? dns.promises.lookup(host, { all: true });
}

/** An address that can only mean this machine: 127.0.0.0/8, ::1, and their IPv4-mapped forms. */
export function isLoopbackAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return address.startsWith('127.');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  if (inner !== null) return inner.startsWith('127.');
  return ipv6Bytes(address).every((b, i) => b === (i === 15 ? 1 : 0));
}

/**
 * A `lookup` for outgoing sockets that resolves, then refuses if any address is forbidden.
 * The check happens at connect time on the address actually dialled, so a hostname that
 * resolved to a public address when the endpoint was saved cannot be rebound to an internal one.
 */
export function guardedLookup(hostname: string, options: dns.LookupOptions, callback: LookupCallback): void {
  lookupHost(hostname).then(
    (addresses) => {
      const refused = addresses.find((a) => isForbiddenAddress(a.address));
      if (refused !== undefined || addresses.length === 0) {
        callback(new RefusedDestinationError(), []);
        return;
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    },
    (error: NodeJS.ErrnoException) => callback(error, []),
  );
}

/**
 * For a URL hostname that is an IP literal (IPv6 in brackets, as URL gives it): the refusal
 * reason when the address is forbidden, else null. A DNS name is not a literal: also null.
 */
export function forbiddenLiteral(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  return net.isIP(bare) !== 0 && isForbiddenAddress(bare) ? `address ${bare} is not allowed` : null;
}

/** Where a host may be reached, and the one address a connection to it is pinned to. */
export type Destination = { ok: true; address: string; family: number } | { ok: false; reason: string };

/**
 * Resolves `host` once (literals and localhost names without DNS) and, unless `allowPrivate`,
 * refuses it when any address is forbidden. The caller connects to `address` and nothing else,
 * so what was checked is what is dialled.
 */
export async function resolveDestination(host: string, options: { allowPrivate: boolean }): Promise<Destination> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const literal = addressesWithoutDns(bare) !== null && !isLocalhostName(bare);
  let addresses: LookupAddress[];
  try {
    addresses = await lookupHost(bare);
  } catch {
    return { ok: false, reason: `${bare} does not resolve` };
  }
  if (addresses.length === 0) return { ok: false, reason: `${bare} does not resolve` };
  if (!options.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address))) {
    return { ok: false, reason: literal ? `address ${bare} is not allowed` : `${bare} resolves to an address that is not allowed` };
  }
  return { ok: true, address: addresses[0]!.address, family: addresses[0]!.family };
}

/** Resolves a hostname (or takes an IP literal) and tells whether every address is allowed. */
export async function destinationAllowed(hostname: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const destination = await resolveDestination(hostname, { allowPrivate: false });
  return destination.ok ? { ok: true } : destination;
}

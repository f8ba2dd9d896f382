import dns, { type LookupAddress } from 'node:dns';
import net from 'node:net';

/**
 * Destinations a webhook may never reach (CONTRACT: Webhooks, SSRF): loopback, private,
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
  ['::', 128],
  ['::1', 128],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  forbidden.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) address. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (match) return match[1] ?? null;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1] ?? '0', 16);
  const low = parseInt(hex[2] ?? '0', 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
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
  constructor(address: string) {
    super(`destination address ${address} is not allowed (private, loopback, link-local or reserved)`);
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
      callback(new RefusedDestinationError(refused?.address ?? hostname), []);
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
    if (refused) return { ok: false, reason: `${bare} resolves to ${refused.address}, which is not allowed` };
    return addresses.length > 0 ? { ok: true } : { ok: false, reason: `${bare} does not resolve` };
  } catch {
    return { ok: false, reason: `${bare} does not resolve` };
  }
}

import type { EmailServer, SmtpHostPolicy } from '@mailcast/core';
import { addressesWithoutDns, isLocalhostName, isLoopbackAddress, lookupHost, REFUSED_DESTINATION_CODE, resolveDestination } from '../http/address-policy';

/** SMTP_ALLOW_PRIVATE and SMTP_ALLOW_PLAINTEXT, as every SMTP connection applies them. */
export interface SmtpAddressOptions {
  /** Loopback, private, link-local and metadata hosts allowed (development, tests, npm start). */
  allowPrivate: boolean;
  /** `tls: none` allowed to hosts that are not loopback. */
  allowPlaintext: boolean;
}

/** The two settings from the configuration, for the probe and the mailers. */
export function smtpAddressOptions(config: { smtpAllowPrivate: boolean; smtpAllowPlaintext: boolean }): SmtpAddressOptions {
  return { allowPrivate: config.smtpAllowPrivate, allowPlaintext: config.smtpAllowPlaintext };
}

/** A connection the address policy stopped before it was made; a server setting, not a recipient's fault. */
export class RefusedSmtpDestination extends Error {
  readonly code = REFUSED_DESTINATION_CODE;
  constructor(message: string) {
    super(message);
    this.name = 'RefusedSmtpDestination';
  }
}

/** Where one connection to a server goes: the address dialled, and the name TLS verifies. */
export interface PinnedSmtpHost {
  host: string;
  servername?: string;
}

/**
 * Resolves the server's host once for one connection (docs/email-servers.md, "Addresses"):
 * literals and localhost names without DNS, names through the resolver. The connection is made
 * to that address and no other, so nodemailer never resolves the name again (its own resolver
 * asks DNS servers directly, even for `*.localhost`); TLS still verifies the certificate
 * against the name. Refused: a forbidden address (unless allowPrivate), and `tls: none` to an
 * address that is not loopback (unless allowPlaintext), whatever the name said.
 */
export async function pinSmtpHost(server: Pick<EmailServer, 'host' | 'tls'>, options: SmtpAddressOptions): Promise<PinnedSmtpHost> {
  const destination = await resolveDestination(server.host, { allowPrivate: options.allowPrivate });
  if (!destination.ok) throw new RefusedSmtpDestination(`email server host refused: ${destination.reason}`);
  if (server.tls === 'none' && !options.allowPlaintext && !isLoopbackAddress(destination.address)) {
    throw new RefusedSmtpDestination('email server host refused: tls none to an address that is not loopback');
  }
  const bare = server.host.replace(/^\[(.*)\]$/, '$1');
  // An address in any form has no name to verify: the certificate is checked against the address.
  const named = addressesWithoutDns(bare) === null || isLocalhostName(bare);
  return named ? { host: destination.address, servername: bare.replace(/\.$/, '') } : { host: destination.address };
}

/** The address policy for hosts being written (create, update); connections apply pinSmtpHost. */
export class DnsSmtpHosts implements SmtpHostPolicy {
  constructor(private readonly options: Pick<SmtpAddressOptions, 'allowPrivate'>) {}

  async refusal(host: string): Promise<string | null> {
    // Lifted: nothing to refuse, and no DNS asked (a name may not resolve where tests run).
    if (this.options.allowPrivate) return null;
    const destination = await resolveDestination(host, { allowPrivate: false });
    return destination.ok ? null : destination.reason;
  }

  async isLoopback(host: string): Promise<boolean> {
    try {
      const addresses = await lookupHost(host.replace(/^\[(.*)\]$/, '$1'));
      return addresses.length > 0 && addresses.every((a) => isLoopbackAddress(a.address));
    } catch {
      return false;
    }
  }
}

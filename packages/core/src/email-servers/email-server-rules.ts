import { isValidEmail, SMTP_TLS_MODES, type SmtpTls } from '@mailcast/domain';
import { ValidationError } from '../errors';
import type { EmailServerChanges, SmtpHostPolicy } from '../ports';

/** Whether `tls: none` may name a host other than loopback (SMTP_ALLOW_PLAINTEXT). */
export type SmtpAllowPlaintext = boolean;
export const SmtpAllowPlaintext = Symbol.for('mailcast.SmtpAllowPlaintext');

export const EMAIL_SERVER_NOT_FOUND = 'Email server not found';

const LIMITS = ['maxPerSecond', 'maxPerMinute', 'maxPerHour', 'maxPerDay'] as const;
/** The limit columns are PostgreSQL integers. */
const MAX_LIMIT = 2_147_483_647;
const HOST = /^[A-Za-z0-9._:[\]-]{1,253}$/;
const DNS_LABELS = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*$/;

type CheckedServer = EmailServerChanges & { host: string; port: number; tls: SmtpTls };

/** What the address policy said of the host being written; absent when host and tls are unchanged. */
export interface HostVerdict {
  refusal: string | null;
  /** Null when not asked: only `tls: none` without SMTP_ALLOW_PLAINTEXT needs it. */
  loopback: boolean | null;
}

export const PLAINTEXT_REFUSED = 'none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true';

/**
 * Asks the address policy about the host a create or an edit writes (docs/email-servers.md,
 * "Addresses"). A host that is blank or malformed gets its field error from checkEmailServer
 * instead; loopback is looked up only when `tls: none` depends on it.
 */
export async function judgeHost(server: { host: string; tls: SmtpTls }, hosts: SmtpHostPolicy, allowPlaintext: boolean): Promise<HostVerdict> {
  if (!HOST.test(server.host)) return { refusal: null, loopback: null };
  const refusal = await hosts.refusal(server.host);
  const loopback = refusal === null && server.tls === 'none' && !allowPlaintext ? await hosts.isLoopback(server.host) : null;
  return { refusal, loopback };
}

/**
 * The invariants of an email server once a create or an edit is applied (docs/email-servers.md).
 * Field names are the API's, so the same errors serve the CLI and the HTTP answers. `host` is
 * the policy's verdict on a host or tls being written (judgeHost); without one they are as stored.
 */
export function checkEmailServer(server: CheckedServer, allowPlaintext: boolean, host?: HostVerdict): void {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (server.host.trim() === '') add('host', "can't be blank");
  else if (!HOST.test(server.host)) add('host', 'must be a host name or an IP address');
  else if (host?.refusal) add('host', host.refusal);
  if (!Number.isInteger(server.port) || server.port < 1 || server.port > 65535) add('port', 'must be an integer from 1 to 65535');
  if (!(SMTP_TLS_MODES as readonly string[]).includes(server.tls)) add('tls', `must be one of ${SMTP_TLS_MODES.join(', ')}`);
  else if (host !== undefined && host.refusal === null && server.tls === 'none' && !allowPlaintext && host.loopback !== true) {
    add('tls', PLAINTEXT_REFUSED);
  }
  if (server.password && !server.username) add('smtp_username', 'is required with a password');
  if (server.fromEmail && !isValidEmail(server.fromEmail)) add('from_email', 'is invalid');
  for (const limit of LIMITS) {
    const value = server[limit];
    if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT)) {
      add(
        limit.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
        'must be a positive integer or null',
      );
    }
  }
  if (server.dkimDomain && !DNS_LABELS.test(server.dkimDomain)) add('dkim_domain', 'must be a domain name');
  if (server.dkimSelector && !DNS_LABELS.test(server.dkimSelector)) add('dkim_selector', 'must be one or more DNS labels');
  if (server.bounceDomain && !DNS_LABELS.test(server.bounceDomain)) add('bounce_domain', 'must be a domain name');
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
}

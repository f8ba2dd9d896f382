import { isValidEmail, plaintextAllowed, SMTP_TLS_MODES, type SmtpTls } from '@mailcast/domain';
import { ValidationError } from '../errors';
import type { EmailServerChanges } from '../ports';

/** Whether `tls: none` may name a host other than loopback (SMTP_ALLOW_PLAINTEXT). */
export type SmtpAllowPlaintext = boolean;
export const SmtpAllowPlaintext = Symbol.for('mailcast.SmtpAllowPlaintext');

export const EMAIL_SERVER_NOT_FOUND = 'Email server not found';

const LIMITS = ['maxPerSecond', 'maxPerMinute', 'maxPerHour', 'maxPerDay'] as const;
/** The limit columns are PostgreSQL integers. */
const MAX_LIMIT = 2_147_483_647;
const HOST = /^[A-Za-z0-9._:[\]-]{1,253}$/;
const DNS_LABELS = /^(?=.{1,253}$)[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?)*$/;

/**
 * The invariants of an email server once a create or an edit is applied (docs/email-servers.md).
 * Field names are the API's, so the same errors serve the CLI and the HTTP answers.
 */
export function checkEmailServer(server: EmailServerChanges & { host: string; port: number; tls: SmtpTls }, allowPlaintext: boolean): void {
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => (errors[field] ??= []).push(message);
  if (server.host.trim() === '') add('host', "can't be blank");
  else if (!HOST.test(server.host)) add('host', 'must be a host name or an IP address');
  if (!Number.isInteger(server.port) || server.port < 1 || server.port > 65535) add('port', 'must be an integer from 1 to 65535');
  if (!(SMTP_TLS_MODES as readonly string[]).includes(server.tls)) add('tls', `must be one of ${SMTP_TLS_MODES.join(', ')}`);
  else if (server.tls === 'none' && !plaintextAllowed(server.host, allowPlaintext)) {
    add('tls', 'none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true');
  }
  if (server.password && !server.username) add('smtp_username', 'is required with a password');
  if (server.fromEmail && !isValidEmail(server.fromEmail)) add('from_email', 'is invalid');
  for (const limit of LIMITS) {
    const value = server[limit];
    if (value !== undefined && value !== null && (!Number.isInteger(value) || value < 1 || value > MAX_LIMIT)) {
      add(limit.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), 'must be a positive integer or null');
    }
  }
  if (server.dkimDomain && !DNS_LABELS.test(server.dkimDomain)) add('dkim_domain', 'must be a domain name');
  if (server.dkimSelector && !DNS_LABELS.test(server.dkimSelector)) add('dkim_selector', 'must be one or more DNS labels');
  if (server.bounceDomain && !DNS_LABELS.test(server.bounceDomain)) add('bounce_domain', 'must be a domain name');
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
}

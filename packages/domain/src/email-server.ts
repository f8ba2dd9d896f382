/**
 * How an email server's connection is protected (docs/email-servers.md):
 * - `starttls`: plain connect, then STARTTLS, which the server must offer; no AUTH before it;
 * - `implicit`: TLS from the first byte (usually port 465);
 * - `none`: no TLS at all, for loopback hosts or when the operator allows plaintext.
 */
export const SMTP_TLS_MODES = ['starttls', 'implicit', 'none'] as const;
export type SmtpTls = (typeof SMTP_TLS_MODES)[number];

export function isSmtpTls(value: unknown): value is SmtpTls {
  return typeof value === 'string' && (SMTP_TLS_MODES as readonly string[]).includes(value);
}

/**
 * A host written as this machine: `localhost`, `*.localhost`, `::1` or a dotted 127.0.0.0/8.
 * Only the admin CLI's default for `--tls` reads it; whether `tls: none` is allowed is decided
 * on the addresses the host stands for (docs/email-servers.md, "Addresses").
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The CLI's choice without `--tls`: `--secure` is implicit TLS, loopback none, else STARTTLS. */
export function defaultSmtpTls(host: string, secure: boolean): SmtpTls {
  if (secure) return 'implicit';
  return isLoopbackHost(host) ? 'none' : 'starttls';
}

export const PASSWORD_MASK_CHAR = '•';

/** An SMTP password as every answer shows it: eight `•`, nothing of the value, not even its length. */
export const REDACTED_PASSWORD = PASSWORD_MASK_CHAR.repeat(8);

/** The stored password as answers show it (docs/secrets.md): the same mask whatever it is. */
export function redactPassword(_password: string): string {
  return REDACTED_PASSWORD;
}

/** True when a written value is the redacted form of a stored password (a PATCH echoing what it read). */
export function isRedactedPassword(written: string, stored: string | null): boolean {
  return stored !== null && written === REDACTED_PASSWORD;
}

/**
 * Whether an edit moves the server's connection (host, port or TLS mode): the stored password
 * then stays only if the same edit gives it again, so it never reaches a destination its owner
 * did not send it to (docs/email-servers.md).
 */
export function movesConnection(current: { host: string; port: number; tls: SmtpTls }, changes: { host?: string; port?: number; tls?: SmtpTls }): boolean {
  return (
    (changes.host !== undefined && changes.host.trim().toLowerCase() !== current.host.trim().toLowerCase()) ||
    (changes.port !== undefined && changes.port !== current.port) ||
    (changes.tls !== undefined && changes.tls !== current.tls)
  );
}

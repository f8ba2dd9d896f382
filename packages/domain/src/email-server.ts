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

/** A host name or literal address that can only mean this machine. */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** `tls: none` may be chosen for a loopback host, or anywhere when the operator allows it. */
export function plaintextAllowed(host: string, allowPlaintext: boolean): boolean {
  return allowPlaintext || isLoopbackHost(host);
}

/** The CLI's choice without `--tls`: `--secure` is implicit TLS, loopback none, else STARTTLS. */
export function defaultSmtpTls(host: string, secure: boolean): SmtpTls {
  if (secure) return 'implicit';
  return isLoopbackHost(host) ? 'none' : 'starttls';
}

export const PASSWORD_MASK_CHAR = '•';

/**
 * An SMTP password as answers show it: eight `•`, or for a value longer than 12 characters the
 * first four, as many `•` as the characters hidden, and the last four.
 */
export function redactPassword(password: string): string {
  const chars = Array.from(password);
  if (chars.length <= 12) return PASSWORD_MASK_CHAR.repeat(8);
  return chars.slice(0, 4).join('') + PASSWORD_MASK_CHAR.repeat(chars.length - 8) + chars.slice(-4).join('');
}

/** True when a written value is the redacted form of the stored password (a PATCH echoing it). */
export function isRedactedPassword(written: string, stored: string | null): boolean {
  return stored !== null && written.includes(PASSWORD_MASK_CHAR) && written === redactPassword(stored);
}

/**
 * docs/broadcasts-and-sending.md: a permanent SMTP rejection (5xx) of a recipient is a hard bounce; a
 * temporary one (4xx) is a delay and is retried. A failure with no SMTP reply at all (refused
 * connection, time-out, TLS trouble) says nothing about the recipient, so it is temporary too.
 */
export type SmtpFailureKind = 'permanent' | 'temporary';

export function smtpFailureKind(responseCode: number | null | undefined): SmtpFailureKind {
  return typeof responseCode === 'number' && responseCode >= 500 && responseCode < 600 ? 'permanent' : 'temporary';
}

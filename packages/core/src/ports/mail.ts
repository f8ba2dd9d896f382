import type { EmailServer } from './entities/channel';

export interface MailAddress {
  email: string;
  name?: string | null;
}

export interface OutgoingEmail {
  /** Fixed per recipient before the first attempt: a resend after a crash keeps it. */
  messageId: string;
  from: MailAddress;
  to: string;
  replyTo?: string | null;
  subject: string;
  text: string;
  html?: string | null;
  headers?: Readonly<Record<string, string>>;
  /** The SMTP envelope sender (MAIL FROM) when not `from`: a VERP return path (docs/bounces.md). */
  envelopeFrom?: string | null;
}

/** What the SMTP server said about one message (domain: smtpFailureKind decides permanence). */
export type MailOutcome =
  | { kind: 'accepted'; response: string }
  | { kind: 'rejected'; permanent: boolean; code: number | null; message: string };

export interface Mailer {
  /**
   * Never throws for SMTP or connection failures: they are outcomes, told apart by permanence.
   * A message waits for a free connection of its server before it starts; if `signal` aborts
   * meanwhile it is never started, and the promise rejects with `MessageWithdrawn` (a message
   * already started goes on to its outcome).
   *
   * With `clearance`, the message's content waits for it: it is called once the message holds a
   * connection, and no byte of the content leaves before it resolves, so the server cannot accept
   * the message earlier (a server takes a message at the end of its content). If it rejects, the
   * transaction is broken off before the content ends, nothing is sent, and `send` rejects with
   * its error (docs/sending-limits.md).
   */
  send(server: EmailServer, email: OutgoingEmail, signal?: AbortSignal, clearance?: Clearance): Promise<MailOutcome>;
  close(): Promise<void>;
}
export const Mailer = Symbol.for('mailcast.Mailer');

/** What a message's content waits for: resolves when it may go, rejects when it must not. */
export type Clearance = () => Promise<void>;

/**
 * The mailer of transactional email: the same port, bound to connections of its own, so a
 * transactional never waits behind a broadcast's messages queued on the shared pool.
 */
export const PriorityMailer = Symbol.for('mailcast.PriorityMailer');

/** A message withdrawn (its signal aborted) before it started on a connection: never sent. */
export class MessageWithdrawn extends Error {
  constructor() {
    super('The message was withdrawn before it started');
    this.name = 'MessageWithdrawn';
  }
}

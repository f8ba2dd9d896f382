import type { SendRateState } from '@mailcast/domain';

/**
 * What the send engine needs from the world. Adapters implement these; the engine holds no
 * clock, timer or random source of its own, so a test can drive it by hand.
 */

/** The engine's clock and timers: milliseconds on this process's clock. */
export interface Timers {
  now(): number;
  /** Resolves after `ms`; the wait keeps the process alive. */
  sleep(ms: number): Promise<void>;
  /** Calls `fn` once after `ms`. A `weak` timer does not keep the process alive. */
  after(ms: number, fn: () => void, options?: { weak?: boolean }): Cancel;
  /** Calls `fn` every `ms`. A `weak` timer does not keep the process alive. */
  every(ms: number, fn: () => void, options?: { weak?: boolean }): Cancel;
}
export type Cancel = () => void;

export interface RandomSource {
  bytes(length: number): Uint8Array;
}

/** An email server as the engine sees it: its identity and its limits. */
export interface LimitedServer {
  id: number;
  maxPerSecond?: number | null;
  maxPerMinute?: number | null;
  maxPerHour?: number | null;
  maxPerDay?: number | null;
}

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
export type MailOutcome = { kind: 'accepted'; response: string } | { kind: 'rejected'; permanent: boolean; code: number | null; message: string };

/**
 * Hands messages to SMTP servers. `S` is the adapter's server record (address, credentials);
 * the engine reads only its limits.
 */
export interface Mailer<S extends LimitedServer = LimitedServer> {
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
  send(server: S, email: OutgoingEmail, signal?: AbortSignal, clearance?: Clearance): Promise<MailOutcome>;
  close(): Promise<void>;
}

/** What a message's content waits for: resolves when it may go, rejects when it must not. */
export type Clearance = () => Promise<void>;

/** A message withdrawn (its signal aborted) before it started on a connection: never sent. */
export class MessageWithdrawn extends Error {
  constructor() {
    super('The message was withdrawn before it started');
    this.name = 'MessageWithdrawn';
  }
}

/** What a change of a server's shared sending state decided: the new state (null: none) and an answer. */
export interface SendRateChange<T> {
  state: SendRateState | null;
  result: T;
}

/**
 * The sending-rate state of each limited email server, shared by every dispatcher
 * (docs/sending-limits.md). Times are milliseconds on the store's clock (the database's), so
 * dispatchers whose clocks disagree still hand out one sequence of slots.
 */
export interface SendRateStore {
  /**
   * Compare-and-set: applies `change` to the server's state as of `now` (store clock) and writes
   * it only if nobody wrote in between; otherwise reads the state again and applies `change`
   * anew. Answers the result of the change that was written, `offsetMs`, the store's clock
   * minus this process's, as last measured, and `uncertaintyMs`, how far that measure may be
   * off (half its round trip).
   */
  change<T>(
    serverId: number,
    change: (state: SendRateState, now: number) => SendRateChange<T>,
  ): Promise<{ result: T; offsetMs: number; uncertaintyMs: number }>;
}

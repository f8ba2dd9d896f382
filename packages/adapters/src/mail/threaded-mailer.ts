import { MessageWithdrawn, type Clearance, type EmailServer, type MailOutcome, type Mailer, type OutgoingEmail } from '@mailcast/core';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_THREAD_YOUNG_GENERATION_MB, endThread, startThread } from '../system/threads';
import type { SmtpAddressOptions } from './smtp-destination';

export interface SmtpThreadSend {
  id: number;
  server: EmailServer;
  email: OutgoingEmail;
  /** Its content waits for the clearance, asked of this side (Mailer.send). */
  cleared: boolean;
}
/**
 * To a thread: a batch of messages to send, messages to withdraw if not yet started, clearances
 * given or refused, or `close`.
 */
export type SmtpThreadRequest =
  | { kind: 'send'; sends: SmtpThreadSend[] }
  | { kind: 'withdraw'; ids: number[] }
  | { kind: 'clearance'; given: number[]; refused: number[] }
  | { kind: 'close' };
/**
 * From a thread, in batches: outcomes (null for a message withdrawn before it started, or whose
 * clearance was refused), and the messages whose content waits for its clearance.
 */
export interface SmtpThreadReply {
  outcomes: Array<{ id: number; outcome: MailOutcome | null }>;
  clearances?: number[];
}

/** What each thread starts with. */
export interface SmtpThreadData {
  connectionsPerServer: number;
  addresses: SmtpAddressOptions;
}

export interface ThreadedMailerOptions {
  threads: number;
  /** SMTP_ALLOW_PRIVATE and SMTP_ALLOW_PLAINTEXT, applied by the threads at every connect. */
  addresses: SmtpAddressOptions;
  /** Pooled connections per email server, shared out between the threads (at least one each). */
  connectionsPerServer: number;
  /** The thread's script; a test gives its own. Default: the built smtp-thread.js. */
  script?: string;
  /** Each thread's young generation, in MB (default DEFAULT_THREAD_YOUNG_GENERATION_MB). */
  youngGenerationMb?: number;
}

/**
 * The thread script is JavaScript: in the built package it sits beside this file; when this file
 * runs as TypeScript (the tests), the build's copy is used (`npm test` builds first).
 */
const DEFAULT_SCRIPT = __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/mail/smtp-thread.js') : path.join(__dirname, 'smtp-thread.js');

interface Thread {
  worker: Worker;
  pending: Map<number, (outcome: MailOutcome | null) => void>;
  outbox: SmtpThreadSend[];
  withdrawals: number[];
  /** The clearances of messages this side holds, and the answers to send to the thread. */
  clearances: Map<number, Clearance>;
  given: number[];
  refused: number[];
  /** Why a message's clearance was refused: its send rejects with it. */
  refusals: Map<number, unknown>;
}

/**
 * A Mailer whose SMTP work (composing the MIME message and writing it to pooled connections,
 * about three quarters of a dispatcher's CPU per message) runs on worker threads, so one
 * dispatcher uses more than one core. Messages go to the threads in turn; hand-offs and
 * outcomes cross in batches, one per turn of each event loop, because every crossing wakes the
 * other thread. Each thread keeps its own pools. A thread that dies answers the messages it held
 * as a connection failure (retried later, as after a dropped connection) and is replaced.
 */
export class ThreadedMailer implements Mailer {
  private readonly threads: Thread[];
  private readonly script: string;
  private readonly connectionsPerThread: number;
  private readonly youngGenerationMb: number;
  private readonly addresses: SmtpAddressOptions;
  private next = 0;
  private ids = 0;
  private flushing = false;
  private closed = false;

  constructor(options: ThreadedMailerOptions) {
    this.script = options.script ?? DEFAULT_SCRIPT;
    const count = Math.max(1, Math.floor(options.threads));
    this.connectionsPerThread = Math.ceil(options.connectionsPerServer / count);
    this.youngGenerationMb = options.youngGenerationMb ?? DEFAULT_THREAD_YOUNG_GENERATION_MB;
    this.addresses = { allowPrivate: options.addresses.allowPrivate, allowPlaintext: options.addresses.allowPlaintext };
    this.threads = Array.from({ length: count }, () => this.start());
  }

  /**
   * A withdrawal (`signal`) of a message still on this side is immediate; one already with its
   * thread crosses to it and takes effect if the message is still waiting for a connection there.
   */
  send(server: EmailServer, email: OutgoingEmail, signal?: AbortSignal, clearance?: Clearance): Promise<MailOutcome> {
    if (this.closed) return Promise.resolve(unknownFate('the mailer is closed'));
    if (signal?.aborted === true) return Promise.reject(new MessageWithdrawn());
    const thread = this.threads[this.next]!;
    this.next = (this.next + 1) % this.threads.length;
    const id = ++this.ids;
    return new Promise<MailOutcome>((resolve, reject) => {
      const withdraw = () => {
        const waiting = thread.outbox.findIndex((s) => s.id === id);
        if (waiting !== -1) {
          thread.outbox.splice(waiting, 1);
          settle(null);
          return;
        }
        thread.withdrawals.push(id);
        this.scheduleFlush();
      };
      const settle = (outcome: MailOutcome | null) => {
        signal?.removeEventListener('abort', withdraw);
        thread.pending.delete(id);
        thread.clearances.delete(id);
        const refusal = thread.refusals.get(id);
        thread.refusals.delete(id);
        if (thread.pending.size === 0) thread.worker.unref();
        if (refusal !== undefined) reject(refusal);
        else if (outcome === null) reject(new MessageWithdrawn());
        else resolve(outcome);
      };
      // A thread holding messages keeps the process alive until their outcomes are in.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, settle);
      if (clearance) thread.clearances.set(id, clearance);
      thread.outbox.push({ id, server, email, cleared: clearance !== undefined });
      signal?.addEventListener('abort', withdraw, { once: true });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => this.flush());
  }

  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    // Each thread sends what it holds, closes its pools and ends; one that hangs is stopped.
    await Promise.all(this.threads.map(({ worker }) => endThread(worker, { kind: 'close' } satisfies SmtpThreadRequest, 10_000)));
  }

  private flush(): void {
    this.flushing = false;
    for (const thread of this.threads) {
      if (thread.outbox.length > 0) {
        thread.worker.postMessage({ kind: 'send', sends: thread.outbox } satisfies SmtpThreadRequest);
        thread.outbox = [];
      }
      if (thread.withdrawals.length > 0) {
        thread.worker.postMessage({ kind: 'withdraw', ids: thread.withdrawals } satisfies SmtpThreadRequest);
        thread.withdrawals = [];
      }
      if (thread.given.length > 0 || thread.refused.length > 0) {
        thread.worker.postMessage({ kind: 'clearance', given: thread.given, refused: thread.refused } satisfies SmtpThreadRequest);
        thread.given = [];
        thread.refused = [];
      }
    }
  }

  /** A message's content waits for its clearance: asked here, the answer crosses back. */
  private clear(thread: Thread, id: number): void {
    const clearance = thread.clearances.get(id);
    if (clearance === undefined) return;
    clearance()
      .then(
        () => thread.given.push(id),
        (error: unknown) => {
          thread.refusals.set(id, error);
          thread.refused.push(id);
        },
      )
      .finally(() => this.scheduleFlush());
  }

  private start(): Thread {
    const worker = startThread(this.script, this.youngGenerationMb, {
      workerData: { connectionsPerServer: this.connectionsPerThread, addresses: this.addresses } satisfies SmtpThreadData,
    });
    const thread: Thread = { worker, pending: new Map(), outbox: [], withdrawals: [], clearances: new Map(), given: [], refused: [], refusals: new Map() };
    worker.on('message', (reply: SmtpThreadReply) => {
      for (const id of reply.clearances ?? []) this.clear(thread, id);
      for (const { id, outcome } of reply.outcomes) thread.pending.get(id)?.(outcome);
    });
    let reason = 'the SMTP thread stopped';
    worker.on('error', (error) => (reason = `the SMTP thread failed: ${error.message}`));
    worker.on('exit', () => {
      for (const settle of [...thread.pending.values()]) settle(unknownFate(reason));
      thread.outbox = [];
      thread.withdrawals = [];
      const index = this.threads.indexOf(thread);
      if (!this.closed && index !== -1) this.threads[index] = this.start();
    });
    // An idle thread does not keep the process alive (close() ends the threads at shutdown).
    // After the listeners: adding them takes a reference again.
    worker.unref();
    return thread;
  }
}

/** A message whose fate is unknown is a connection failure: temporary, tried again later. */
function unknownFate(message: string): MailOutcome {
  return { kind: 'rejected', permanent: false, code: null, message };
}

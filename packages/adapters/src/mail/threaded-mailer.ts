import type { EmailServer, MailOutcome, Mailer, OutgoingEmail } from '@mailcast/core';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface SmtpThreadSend {
  id: number;
  server: EmailServer;
  email: OutgoingEmail;
}
/** To a thread: a batch of messages to send, or `close`. */
export type SmtpThreadRequest = { kind: 'send'; sends: SmtpThreadSend[] } | { kind: 'close' };
/** From a thread: the outcomes it has, in batches. */
export interface SmtpThreadReply {
  outcomes: Array<{ id: number; outcome: MailOutcome }>;
}

export interface ThreadedMailerOptions {
  threads: number;
  /** Pooled connections per email server, shared out between the threads (at least one each). */
  connectionsPerServer: number;
  /** The thread's script; a test gives its own. Default: the built smtp-thread.js. */
  script?: string;
}

/**
 * The thread script is JavaScript: in the built package it sits beside this file; when this file
 * runs as TypeScript (the tests), the build's copy is used (`npm test` builds first).
 */
const DEFAULT_SCRIPT = __filename.endsWith('.ts')
  ? path.resolve(__dirname, '../../dist/mail/smtp-thread.js')
  : path.join(__dirname, 'smtp-thread.js');

interface Thread {
  worker: Worker;
  pending: Map<number, (outcome: MailOutcome) => void>;
  outbox: SmtpThreadSend[];
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
  private next = 0;
  private ids = 0;
  private flushing = false;
  private closed = false;

  constructor(options: ThreadedMailerOptions) {
    this.script = options.script ?? DEFAULT_SCRIPT;
    const count = Math.max(1, Math.floor(options.threads));
    this.connectionsPerThread = Math.ceil(options.connectionsPerServer / count);
    this.threads = Array.from({ length: count }, () => this.start());
  }

  send(server: EmailServer, email: OutgoingEmail): Promise<MailOutcome> {
    if (this.closed) return Promise.resolve(unknownFate('the mailer is closed'));
    const thread = this.threads[this.next]!;
    this.next = (this.next + 1) % this.threads.length;
    const id = ++this.ids;
    return new Promise<MailOutcome>((resolve) => {
      // A thread holding messages keeps the process alive until their outcomes are in.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, resolve);
      thread.outbox.push({ id, server, email });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => this.flush());
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.flush();
    await Promise.all(
      this.threads.map(async ({ worker }) => {
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ kind: 'close' } satisfies SmtpThreadRequest);
        // The thread sends what it holds, closes its pools and ends; one that hangs is stopped.
        const timer = setTimeout(() => void worker.terminate(), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
  }

  private flush(): void {
    this.flushing = false;
    for (const thread of this.threads) {
      if (thread.outbox.length === 0) continue;
      thread.worker.postMessage({ kind: 'send', sends: thread.outbox } satisfies SmtpThreadRequest);
      thread.outbox = [];
    }
  }

  private start(): Thread {
    const worker = new Worker(this.script, { workerData: { connectionsPerServer: this.connectionsPerThread } });
    const thread: Thread = { worker, pending: new Map(), outbox: [] };
    worker.on('message', (reply: SmtpThreadReply) => {
      for (const { id, outcome } of reply.outcomes) {
        const resolve = thread.pending.get(id);
        thread.pending.delete(id);
        resolve?.(outcome);
      }
      if (thread.pending.size === 0) worker.unref();
    });
    let reason = 'the SMTP thread stopped';
    worker.on('error', (error) => (reason = `the SMTP thread failed: ${error.message}`));
    worker.on('exit', () => {
      for (const resolve of thread.pending.values()) resolve(unknownFate(reason));
      thread.pending.clear();
      thread.outbox = [];
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

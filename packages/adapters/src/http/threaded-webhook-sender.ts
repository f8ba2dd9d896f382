import type { WebhookPost, WebhookResult, WebhookSender } from '@mailcast/core';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { endThread, startThread } from '../system/threads';
import type { WebhookHttpOptions } from './got-webhook-sender';

/** To the thread: deliveries to post, or `close` (post what it holds, then end). */
export type WebhookThreadRequest = { kind: 'post'; posts: Array<{ id: number; post: WebhookPost }> } | { kind: 'close' };
/** From the thread, in batches: each delivery's result. */
export interface WebhookThreadReply {
  results: Array<{ id: number; result: WebhookResult }>;
}

/**
 * The webhook thread's young generation, in MB (semi-spaces of at most a third of it). Larger
 * than the SMTP and rendering threads' 6: a burst keeps 80 requests in flight, and in a 2 MB
 * semi-space their objects outlive collections and are promoted (docs/webhooks.md, "Delivery
 * thread").
 */
export const WEBHOOK_THREAD_YOUNG_GENERATION_MB = 24;

/** As for the SMTP thread: beside this file when built, the build's copy under the tests. */
const DEFAULT_SCRIPT = __filename.endsWith('.ts') ? path.resolve(__dirname, '../../dist/http/webhook-thread.js') : path.join(__dirname, 'webhook-thread.js');

interface Thread {
  worker: Worker;
  pending: Map<number, (result: WebhookResult) => void>;
  /** Deliveries not yet handed over: they cross at the next turn of the event loop. */
  outbox: Array<{ id: number; post: WebhookPost }>;
}

/**
 * A WebhookSender whose HTTP work (got's request options, the sockets, the answers, and the
 * garbage of all three) runs on a worker thread, started with the first delivery, so the event
 * loop that claims and records deliveries (and serves leases, sending and pg-boss) is not the one
 * that posts them. Deliveries cross in batches, one per turn of each event loop. A thread that
 * dies answers the deliveries it held as a network failure (retried on the endpoint's schedule,
 * as after a dropped connection: receivers already see a delivery again when its answer was
 * lost) and the next delivery starts a new one.
 */
export class ThreadedWebhookSender implements WebhookSender {
  private thread: Thread | undefined;
  private ids = 0;
  private closed = false;

  constructor(
    private readonly options: WebhookHttpOptions,
    private readonly script = DEFAULT_SCRIPT,
    private readonly youngGenerationMb = WEBHOOK_THREAD_YOUNG_GENERATION_MB,
  ) {}

  post(post: WebhookPost): Promise<WebhookResult> {
    if (this.closed) return Promise.resolve(failure('the webhook sender is closed'));
    const thread = (this.thread ??= this.start());
    const id = ++this.ids;
    return new Promise<WebhookResult>((resolve) => {
      // A thread holding deliveries keeps the process alive until their results are in.
      if (thread.pending.size === 0) thread.worker.ref();
      thread.pending.set(id, (result) => {
        thread.pending.delete(id);
        if (thread.pending.size === 0) thread.worker.unref();
        resolve(result);
      });
      if (thread.outbox.push({ id, post }) === 1) setImmediate(() => flush(thread));
    });
  }

  /** Waits for the deliveries the thread holds, then ends it; one that hangs is stopped. */
  async close(): Promise<void> {
    this.closed = true;
    const thread = this.thread;
    if (thread === undefined) return;
    flush(thread);
    await endThread(thread.worker, { kind: 'close' } satisfies WebhookThreadRequest, this.options.timeoutMs + 5_000);
  }

  private start(): Thread {
    const worker = startThread(this.script, this.youngGenerationMb, { workerData: this.options });
    const thread: Thread = { worker, pending: new Map(), outbox: [] };
    worker.on('message', (reply: WebhookThreadReply) => {
      for (const { id, result } of reply.results) thread.pending.get(id)?.(result);
    });
    let reason = 'the webhook thread stopped';
    worker.on('error', (error) => (reason = `the webhook thread failed: ${error.message}`));
    worker.on('exit', () => {
      thread.outbox = [];
      for (const settle of [...thread.pending.values()]) settle(failure(reason));
      if (this.thread === thread) this.thread = undefined;
    });
    // An idle thread does not keep the process alive (close() ends it at shutdown).
    worker.unref();
    return thread;
  }
}

function flush(thread: Thread): void {
  if (thread.outbox.length === 0) return;
  thread.worker.postMessage({ kind: 'post', posts: thread.outbox } satisfies WebhookThreadRequest);
  thread.outbox = [];
}

function failure(message: string): WebhookResult {
  return { kind: 'failed', reason: 'network', message };
}

import { renderTurns, type Broadcast, type BroadcastRendering, type JobRenderer, type RecipientLinks, type RenderedEmail, type RenderingJob } from '@mailcast/core';
import path from 'node:path';
import type { Worker } from 'node:worker_threads';
import { DEFAULT_THREAD_YOUNG_GENERATION_MB, startThread } from '../system/threads';

/** What a thread is asked: one recipient of a job rendered, or a broadcast's trackable links. */
export type RenderRequest = { kind: 'render'; jobId: number; recipient: RecipientLinks } | { kind: 'links'; broadcast: Broadcast };
/** To a thread: a job's context (once per job and thread), its end, or one request. */
export type RenderThreadRequest =
  | { kind: 'job'; jobId: number; job: RenderingJob }
  | { kind: 'drop'; jobId: number }
  | (RenderRequest & { id: number });
/** From a thread: that it is ready (once, first), or one request's result or why it failed. */
export type RenderThreadReply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export interface ThreadedRenderingOptions {
  /** Rendering threads; renders go to whichever is free. */
  threads: number;
  /** The heap (old generation) a thread may use; past it the thread is stopped and replaced. */
  heapMb: number;
  /** How long one request may take; past it the thread is stopped and replaced. */
  timeLimitMs: number;
  /** The thread's script; a test gives its own. Default: the built render-thread.js. */
  script?: string;
  /** Each thread's young generation, in MB (default DEFAULT_THREAD_YOUNG_GENERATION_MB). */
  youngGenerationMb?: number;
}

export const DEFAULT_RENDER_THREADS = 1;
export const DEFAULT_RENDER_HEAP_MB = 256;
export const DEFAULT_RENDER_TIME_LIMIT_MS = 2_000;

/**
 * Requests a thread holds at once: it is never left idle waiting for the next one (waking an idle
 * thread made each hand-over cost the main thread about 0.2 ms, four held about 0.05 ms).
 */
const IN_FLIGHT_PER_THREAD = 4;

/** As for the SMTP threads: the build's copy when this file runs as TypeScript (the tests). */
const DEFAULT_SCRIPT = __filename.endsWith('.ts')
  ? path.resolve(__dirname, '../../dist/templates/render-thread.js')
  : path.join(__dirname, 'render-thread.js');

interface Task {
  id: number;
  body: RenderRequest;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker | null;
  /** Whether the thread has loaded its script: the time limit counts from then. */
  ready: boolean;
  /** The jobs whose context this slot's thread holds. */
  jobs: Set<number>;
  /** Sent, not yet answered, oldest first. */
  inFlight: Task[];
  timer: NodeJS.Timeout | null;
}

/**
 * Broadcast rendering on worker threads (docs/security.md "HTML"), so that user HTML and Liquid
 * never hold the dispatcher's event loop: its webhooks, leases and SMTP hand-offs go on while a
 * thread renders. A thread answers its requests one at a time, in order, and each is timed from
 * the answer before it: one that runs past the time limit fails ("took longer than …") and its
 * thread is stopped and replaced; a thread that dies (its heap limit reached, say) fails the
 * request it was on the same way. The requests behind it go to the fresh thread. A job's broadcast, links, secret
 * and public URL cross to a thread once; each render then sends only the recipient.
 */
export class ThreadedBroadcastRendering implements BroadcastRendering {
  private readonly script: string;
  private readonly slots: Slot[];
  private readonly waiting: Task[] = [];
  private readonly jobs = new Map<number, RenderingJob>();
  private jobIds = 0;
  private taskIds = 0;
  private closed = false;

  constructor(private readonly options: ThreadedRenderingOptions) {
    this.script = options.script ?? DEFAULT_SCRIPT;
    const count = Math.max(1, Math.floor(options.threads));
    // Threads start with the first request (most processes built in tests never render).
    this.slots = Array.from({ length: count }, () => ({ worker: null, ready: false, jobs: new Set<number>(), inFlight: [], timer: null }));
  }

  trackableLinks(broadcast: Broadcast): Promise<Array<{ identifier: string; url: string }>> {
    return this.request({ kind: 'links', broadcast }) as Promise<Array<{ identifier: string; url: string }>>;
  }

  forJob(job: RenderingJob): JobRenderer {
    const jobId = ++this.jobIds;
    this.jobs.set(jobId, job);
    return {
      render: (recipient) => this.request({ kind: 'render', jobId, recipient }) as Promise<RenderedEmail>,
      close: () => {
        this.jobs.delete(jobId);
        for (const slot of this.slots) {
          if (slot.worker !== null && slot.jobs.delete(jobId)) slot.worker.postMessage({ kind: 'drop', jobId } satisfies RenderThreadRequest);
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.reject(new Error('the rendering threads are closed'));
    await Promise.all(this.slots.map((slot) => this.stop(slot, 'the rendering threads are closed')));
  }

  private request(body: RenderRequest): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the rendering threads are closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ id: ++this.taskIds, body, resolve, reject });
      this.pump();
    });
  }

  /** Hands waiting requests to threads with room, starting a thread where there is none. */
  private pump(): void {
    for (const slot of this.slots) {
      while (slot.inFlight.length < IN_FLIGHT_PER_THREAD) {
        const task = this.waiting.shift();
        if (task === undefined) return;
        this.hand(slot, task);
      }
    }
  }

  private hand(slot: Slot, task: Task): void {
    const { body } = task;
    const job = body.kind === 'render' ? this.jobs.get(body.jobId) : undefined;
    if (body.kind === 'render' && job === undefined) return task.reject(new Error('the sending job has ended'));
    const worker = slot.worker ?? this.start(slot);
    if (job !== undefined && body.kind === 'render' && !slot.jobs.has(body.jobId)) {
      worker.postMessage({ kind: 'job', jobId: body.jobId, job } satisfies RenderThreadRequest);
      slot.jobs.add(body.jobId);
    }
    slot.inFlight.push(task);
    if (slot.inFlight.length === 1) {
      this.time(slot);
      // A thread at work keeps the process alive until its answers are in.
      worker.ref();
    }
    worker.postMessage({ ...body, id: task.id } satisfies RenderThreadRequest);
  }

  /** Times the oldest request in flight: the one the thread is on (it answers in order). */
  private time(slot: Slot): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    if (!slot.ready || slot.inFlight.length === 0) return;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      void this.stop(slot, `took longer than ${this.options.timeLimitMs} ms`);
    }, this.options.timeLimitMs);
  }

  private start(slot: Slot): Worker {
    const young = this.options.youngGenerationMb ?? DEFAULT_THREAD_YOUNG_GENERATION_MB;
    const worker = startThread(this.script, young, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
    slot.worker = worker;
    worker.on('message', (reply: RenderThreadReply) => {
      if (slot.worker !== worker) return;
      if ('ready' in reply) {
        slot.ready = true;
        return this.time(slot);
      }
      const task = slot.inFlight[0];
      if (task === undefined || task.id !== reply.id) return;
      slot.inFlight.shift();
      this.time(slot);
      // Answers reach the sending workers one per turn of the event loop, as renders on it did:
      // a burst of them would otherwise run many recipients' bookkeeping in one turn.
      void renderTurns.take().then(() => (reply.ok ? task.resolve(reply.value) : task.reject(new Error(reply.message))));
      if (slot.inFlight.length === 0) worker.unref();
      this.pump();
    });
    let reason = 'the rendering thread stopped';
    worker.on('error', (error) => (reason = `the rendering thread failed: ${error.message}`));
    worker.on('exit', () => {
      if (slot.worker === worker) void this.stop(slot, reason);
    });
    return worker;
  }

  /**
   * The slot's thread stopped (or is to be stopped): the request it was on fails with the
   * reason; those queued behind it go back to the front of the line, for a fresh thread.
   */
  private async stop(slot: Slot, reason: string): Promise<void> {
    const { worker } = slot;
    const [current, ...behind] = slot.inFlight;
    if (slot.timer !== null) clearTimeout(slot.timer);
    Object.assign(slot, { worker: null, ready: false, inFlight: [], timer: null });
    slot.jobs.clear();
    current?.reject(new Error(reason));
    if (this.closed) for (const task of behind) task.reject(new Error(reason));
    else {
      this.waiting.unshift(...behind);
      this.pump();
    }
    if (worker !== null) await worker.terminate();
  }
}

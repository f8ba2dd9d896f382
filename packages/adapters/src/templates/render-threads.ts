import type { Worker } from 'node:worker_threads';
import { DEFAULT_THREAD_YOUNG_GENERATION_MB, startThread } from '../system/threads';
import { RenderLanes } from './render-lanes';

/** From a thread: that it is ready (once, first), or one request's result or why it failed. */
export type RenderThreadReply = { ready: true } | { id: number; ok: true; value: unknown } | { id: number; ok: false; message: string };

export interface RenderThreadsOptions {
  /** Threads; requests go to whichever has room. */
  threads: number;
  /** The heap (old generation) a thread may use; past it the thread is stopped and replaced. */
  heapMb: number;
  /** How long one request may take; past it the thread is stopped and replaced. */
  timeLimitMs: number;
  /** The thread's script: it answers `{ id, ... }` requests in order with RenderThreadReply. */
  script: string;
  /** Each thread's young generation, in MB (default DEFAULT_THREAD_YOUNG_GENERATION_MB). */
  youngGenerationMb?: number;
  /**
   * Keeps one more thread started and idle, from the first request on: a thread stopped past the
   * time limit is replaced at once, without the new thread's start (about 0.2 s) on the wait of
   * the requests behind it.
   */
  spare?: boolean;
}

/** Why a request failed when its thread was stopped under it: the time limit, or the thread died. */
export class RenderThreadStopped extends Error {}

/** What a thread must hold before a request (a sending job's context): sent once per thread. */
export interface ThreadContext {
  key: number;
  message: unknown;
}

export interface RenderThreadsHooks<Body> {
  /** The context a request needs (null: none), or why it can no longer run (its job ended). */
  contextOf?(body: Body): ThreadContext | Error | null;
  /** Called at once when a request's thread is stopped under it, before anything else is handed on. */
  onStopped?(body: Body, reason: string): void;
  /** Awaited before each answer is handed back. */
  pace?(): Promise<void>;
}

/**
 * Requests a thread holds at once: it is never left idle waiting for the next one (waking an idle
 * thread made each hand-over cost the main thread about 0.2 ms, four held about 0.05 ms).
 */
const IN_FLIGHT_PER_THREAD = 4;

interface Task<Body> {
  id: number;
  lane: number;
  body: Body;
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Spare {
  worker: Worker;
  ready: boolean;
}

interface Slot<Body> {
  worker: Worker | null;
  /** Whether the thread has loaded its script: the time limit counts from then. */
  ready: boolean;
  /** The contexts this slot's thread holds. */
  contexts: Set<number>;
  /** Sent, not yet answered, oldest first. */
  inFlight: Array<Task<Body>>;
  timer: NodeJS.Timeout | null;
}

/**
 * Worker threads that run channel content (Liquid, user HTML) away from the event loop, each
 * request bounded in time and heap (docs/templates.md "Rendering"). A thread answers its requests
 * one at a time, in order, and each is timed from the answer before it: one that runs past the
 * time limit fails with RenderThreadStopped ("the render took longer than …") and its thread is
 * stopped and replaced; a thread that dies (its heap limit reached, say) fails the request it was
 * on the same way. The requests behind it go to the fresh thread.
 *
 * Waiting requests are served per lane (a channel) in turn, not first come first served: a channel
 * with a thousand slow renders waiting delays another channel's next render by about one of
 * them, at most one time limit. A lane whose request stopped a thread goes to the back of the turns.
 */
export class RenderThreads<Body extends object> {
  private readonly slots: Array<Slot<Body>>;
  /** Waiting requests by lane, served in turn. */
  private readonly lanes = new RenderLanes<Task<Body>>();
  private spare: Spare | null = null;
  private taskIds = 0;
  private closed = false;

  constructor(
    private readonly options: RenderThreadsOptions,
    private readonly hooks: RenderThreadsHooks<Body> = {},
  ) {
    const count = Math.max(1, Math.floor(options.threads));
    // Threads start with the first request (most processes built in tests never render).
    this.slots = Array.from({ length: count }, () => ({ worker: null, ready: false, contexts: new Set<number>(), inFlight: [], timer: null }));
  }

  request(lane: number, body: Body): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the rendering threads are closed'));
    return new Promise((resolve, reject) => {
      this.lanes.add({ id: ++this.taskIds, lane, body, resolve, reject });
      this.pump();
    });
  }

  /** The context `key` is over: the threads that hold it are sent `message` to drop it. */
  forget(key: number, message: unknown): void {
    for (const slot of this.slots) {
      if (slot.worker !== null && slot.contexts.delete(key)) slot.worker.postMessage(message);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.lanes.drain()) task.reject(new Error('the rendering threads are closed'));
    const spare = this.spare;
    this.spare = null;
    await Promise.all([...this.slots.map((slot) => this.stop(slot, 'the rendering threads are closed')), spare?.worker.terminate()]);
  }

  /** Hands waiting requests to threads with room, starting a thread where there is none. */
  private pump(): void {
    for (const slot of this.slots) {
      while (slot.inFlight.length < IN_FLIGHT_PER_THREAD) {
        const task = this.lanes.next();
        if (task === undefined) return;
        this.hand(slot, task);
      }
    }
  }

  private hand(slot: Slot<Body>, task: Task<Body>): void {
    const context = this.hooks.contextOf?.(task.body) ?? null;
    if (context instanceof Error) return task.reject(context);
    const worker = slot.worker ?? this.start(slot);
    try {
      if (context !== null && !slot.contexts.has(context.key)) {
        worker.postMessage(context.message);
        slot.contexts.add(context.key);
      }
      worker.postMessage({ ...task.body, id: task.id });
    } catch (error) {
      // A value that cannot cross to a thread (structured clone refused it): this request alone fails.
      return task.reject(error instanceof Error ? error : new Error(String(error)));
    }
    slot.inFlight.push(task);
    if (slot.inFlight.length === 1) {
      this.time(slot);
      // A thread at work keeps the process alive until its answers are in.
      worker.ref();
    }
  }

  /** Times the oldest request in flight: the one the thread is on (it answers in order). */
  private time(slot: Slot<Body>): void {
    if (slot.timer !== null) clearTimeout(slot.timer);
    slot.timer = null;
    if (!slot.ready || slot.inFlight.length === 0) return;
    slot.timer = setTimeout(() => {
      slot.timer = null;
      void this.stop(slot, `the render took longer than ${this.options.timeLimitMs} ms`);
    }, this.options.timeLimitMs);
  }

  private start(slot: Slot<Body>): Worker {
    const spare = this.spare;
    this.spare = null;
    const worker = spare?.worker ?? this.launch();
    if (spare !== null) for (const event of ['message', 'error', 'exit']) worker.removeAllListeners(event);
    slot.worker = worker;
    slot.ready = spare?.ready ?? false;
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
      const settle = () => (reply.ok ? task.resolve(reply.value) : task.reject(new Error(reply.message)));
      if (this.hooks.pace === undefined) settle();
      else void this.hooks.pace().then(settle);
      if (slot.inFlight.length === 0) worker.unref();
      this.pump();
    });
    let reason = 'the rendering thread stopped';
    worker.on('error', (error) => (reason = `the rendering thread failed: ${error.message}`));
    worker.on('exit', () => {
      if (slot.worker === worker) void this.stop(slot, reason);
    });
    if (this.options.spare === true && !this.closed) this.spare = this.startSpare();
    return worker;
  }

  private launch(): Worker {
    const young = this.options.youngGenerationMb ?? DEFAULT_THREAD_YOUNG_GENERATION_MB;
    return startThread(this.options.script, young, { resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb } });
  }

  /** A thread started ahead, idle (it keeps no process alive), for the next slot that needs one. */
  private startSpare(): Spare {
    const spare: Spare = { worker: this.launch(), ready: false };
    spare.worker.unref();
    spare.worker.on('message', (reply: RenderThreadReply) => {
      if ('ready' in reply) spare.ready = true;
    });
    spare.worker.on('error', () => undefined);
    spare.worker.on('exit', () => {
      if (this.spare === spare) this.spare = null;
    });
    return spare;
  }

  /**
   * The slot's thread stopped (or is to be stopped): the request it was on fails with the
   * reason; those queued behind it go back to the front of their lanes, for a fresh thread.
   */
  private async stop(slot: Slot<Body>, reason: string): Promise<void> {
    const { worker } = slot;
    const [current, ...behind] = slot.inFlight;
    if (slot.timer !== null) clearTimeout(slot.timer);
    Object.assign(slot, { worker: null, ready: false, inFlight: [], timer: null });
    slot.contexts.clear();
    if (this.closed) {
      for (const task of current === undefined ? behind : [current, ...behind]) task.reject(new Error(reason));
    } else {
      if (current !== undefined) {
        this.hooks.onStopped?.(current.body, reason);
        current.reject(new RenderThreadStopped(reason));
      }
      for (const task of behind.reverse()) this.lanes.add(task, true);
      // The lane whose request cost a thread has had its turn.
      if (current !== undefined) this.lanes.toBack(current.lane);
      this.pump();
    }
    if (worker !== null) await worker.terminate();
  }
}

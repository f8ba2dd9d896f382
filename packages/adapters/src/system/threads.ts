import v8 from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The young generation (semi-spaces) a worker thread may use, in MB: V8 splits it into three (two
 * semi-spaces and the young large objects), so 6 is a semi-space of at most 2 MB. V8's default,
 * 16 MB semi-spaces, holds up to 48 MB per thread of short-lived garbage at a sending peak
 * (docs/broadcasts-and-sending.md, "Memory").
 */
export const DEFAULT_THREAD_YOUNG_GENERATION_MB = 6;

let heapFlags: readonly string[] = [];

/**
 * V8 flags the process sets at run time and keeps: V8 resets `--semi-space-growth-factor` to 2
 * each time it configures a new isolate, so they are set again whenever a thread comes online.
 */
export function keepHeapFlags(flags: readonly string[]): void {
  heapFlags = flags;
  applyHeapFlags();
}

function applyHeapFlags(): void {
  for (const flag of heapFlags) v8.setFlagsFromString(flag);
}

/**
 * Ends a thread that finishes what it holds when sent `closeMessage`: resolves once it has
 * exited; one still running after `graceMs` is stopped.
 */
export async function endThread(worker: Worker, closeMessage: unknown, graceMs: number): Promise<void> {
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.postMessage(closeMessage);
  const timer = setTimeout(() => void worker.terminate(), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Threads started and not yet online, and the semi-space (MB) each should start at. */
const starting = new Map<Worker, number>();

/**
 * Sets the process's flags again, the minimum semi-space raised to the largest that a thread
 * not yet online needs (each thread is held to its own limit all the same).
 */
function applyStartingFlags(): void {
  applyHeapFlags();
  if (starting.size > 0) v8.setFlagsFromString(`--min-semi-space-size=${Math.max(...starting.values())}`);
}

/**
 * A worker thread with its young generation bounded; the process's heap flags are kept.
 *
 * While the process keeps the growth factor at 1, a thread's semi-spaces stay at the size its
 * isolate starts with (`--min-semi-space-size`, bounded by the thread's own limit). So the
 * thread starts at its bound: the minimum is raised to a third of `youngGenerationMb` until the
 * thread is online (or gone), then the process's flags are set again.
 */
export function startThread(script: string, youngGenerationMb: number, options: WorkerOptions = {}): Worker {
  const semiSpaceMb = Math.max(1, Math.floor(youngGenerationMb / 3));
  const raiseMinimum = heapFlags.some((flag) => flag.startsWith('--min-semi-space-size='));
  // Before the Worker exists: its thread may configure its isolate at once.
  if (raiseMinimum) v8.setFlagsFromString(`--min-semi-space-size=${Math.max(semiSpaceMb, ...starting.values())}`);
  const worker = new Worker(script, {
    ...options,
    resourceLimits: { ...options.resourceLimits, maxYoungGenerationSizeMb: youngGenerationMb },
  });
  if (raiseMinimum) starting.set(worker, semiSpaceMb);
  if (heapFlags.length > 0) {
    const started = () => {
      worker.off('online', started).off('exit', started);
      starting.delete(worker);
      applyStartingFlags();
    };
    worker.on('online', started).on('exit', started);
  }
  return worker;
}

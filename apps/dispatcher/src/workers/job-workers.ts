import type { JobName, JobPayloads } from '@mailcast/core';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { HANDLERS, type JobHandler } from '../handlers';
import { Pauses } from './pauses';
import { persistently } from './persistently';

export interface WorkerEvents {
  onJobCompleted?(queue: JobName, jobId: string, seconds: number): void;
  onJobFailed?(queue: JobName, jobId: string, error: unknown, seconds: number): void;
  /**
   * A job's end could not be written, even after retrying through a short outage: it stays
   * active until pg-boss expires it (15 minutes), which fails it.
   */
  onError?(error: unknown, context: string): void;
}

/** Pause before fetching again from a queue that had no job. */
const IDLE_MS = 500;

export interface JobWorkers {
  /** Stops fetching, then waits for the jobs in hand to end and their ends to be written. */
  stop(): Promise<void>;
  /** A job was just enqueued on `queue` (a NOTIFY): fetch now instead of at the next poll. */
  wake(queue: string): void;
}

/**
 * Works each handler's queue with its own fetch loop instead of pg-boss's `work`. pg-boss 10
 * ends a fetched batch with complete() or fail() calls that it does not await: when the
 * database goes away just then, the rejection reaches nobody and Node ends the process (seen
 * in the PostgreSQL-restart fault test, a dispatcher exiting mid-send; pg-boss issue 577,
 * mended only in pg-boss 11, which needs Node 22). Here each job is ended on its own and the
 * write of its end is retried through a short outage. `batchSize` bounds the jobs in hand per
 * queue, as with `work`; a queue is fetched again as soon as one of them ends (room for more)
 * or when woken, so a slow job never holds back the jobs behind it.
 */
export function startWorkers(boss: PgBoss, container: DependencyContainer, handlers: readonly JobHandler[] = HANDLERS, events: WorkerEvents = {}): JobWorkers {
  let stopped = false;
  const pauses = new Map(handlers.map((h) => [h.queue as string, new Pauses()]));
  // A wake that came while the loop was fetching, not pausing: its job may have committed after
  // that fetch looked, so the next pause is skipped.
  const woken = new Set<string>();
  const wake = (queue: string) => {
    woken.add(queue);
    pauses.get(queue)?.wake();
  };
  const idle = (handler: JobHandler) => {
    if (woken.delete(handler.queue)) return Promise.resolve();
    return pauses.get(handler.queue)!.pause(handler.idleMs ?? IDLE_MS);
  };

  const end = async (handler: JobHandler, job: PgBoss.Job<JobPayloads[JobName]>): Promise<void> => {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    try {
      await handler.handle(container, job);
    } catch (error) {
      events.onJobFailed?.(handler.queue, job.id, error, seconds());
      const message = error instanceof Error ? error.message : String(error);
      await persistently(() => boss.fail(handler.queue, job.id, { message }));
      return;
    }
    await persistently(() => boss.complete(handler.queue, job.id));
    events.onJobCompleted?.(handler.queue, job.id, seconds());
  };

  const work = async (handler: JobHandler): Promise<void> => {
    const inHand = new Set<Promise<void>>();
    while (!stopped) {
      const room = handler.batchSize - inHand.size;
      if (room <= 0) {
        // Full: wait for one to end (each end wakes this pause).
        await idle(handler);
        continue;
      }
      let jobs: Array<PgBoss.Job<JobPayloads[JobName]>>;
      try {
        // pg-boss's fetch answers an empty batch when the database is away; it throws only on
        // arguments it refuses.
        jobs = await boss.fetch<JobPayloads[JobName]>(handler.queue, { batchSize: room });
      } catch (error) {
        events.onError?.(error, `fetching ${handler.queue}`);
        jobs = [];
      }
      for (const job of jobs) {
        const ending: Promise<void> = end(handler, job)
          .catch((error: unknown) => events.onError?.(error, `ending ${handler.queue} job ${job.id}`))
          .finally(() => {
            inHand.delete(ending);
            wake(handler.queue);
          });
        inHand.add(ending);
      }
      if (jobs.length === 0 && !stopped) await idle(handler);
    }
    await Promise.all(inHand);
  };

  const loops = handlers.map(work);
  return {
    async stop() {
      stopped = true;
      for (const pause of pauses.values()) pause.wake();
      await Promise.all(loops);
    },
    wake,
  };
}

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
}

/**
 * Works each handler's queue with its own fetch loop instead of pg-boss's `work`. pg-boss 10
 * ends a fetched batch with complete() or fail() calls that it does not await: when the
 * database goes away just then, the rejection reaches nobody and Node ends the process (seen
 * in the PostgreSQL-restart fault test, a dispatcher exiting mid-send; pg-boss issue 577,
 * mended only in pg-boss 11, which needs Node 22). Here each job is ended on its own, in
 * parallel within its batch, and the write of its end is retried through a short outage.
 * A queue is fetched again once its whole batch has ended, so `batchSize` bounds the jobs in
 * hand per queue, as with `work`.
 */
export function startWorkers(
  boss: PgBoss,
  container: DependencyContainer,
  handlers: readonly JobHandler[] = HANDLERS,
  events: WorkerEvents = {},
): JobWorkers {
  let stopped = false;
  const pauses = new Pauses();

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
    while (!stopped) {
      let jobs: Array<PgBoss.Job<JobPayloads[JobName]>>;
      try {
        // pg-boss's fetch answers an empty batch when the database is away; it throws only on
        // arguments it refuses.
        jobs = await boss.fetch<JobPayloads[JobName]>(handler.queue, { batchSize: handler.batchSize });
      } catch (error) {
        events.onError?.(error, `fetching ${handler.queue}`);
        jobs = [];
      }
      if (jobs.length === 0) {
        await pauses.pause(handler.idleMs ?? IDLE_MS);
        continue;
      }
      await Promise.all(
        jobs.map((job) =>
          end(handler, job).catch((error: unknown) => events.onError?.(error, `ending ${handler.queue} job ${job.id}`)),
        ),
      );
    }
  };

  const loops = handlers.map(work);
  return {
    async stop() {
      stopped = true;
      pauses.wake();
      await Promise.all(loops);
    },
  };
}

import type { JobName, JobPayloads } from '@mailcast/core';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { confirmationEmailHandler } from './confirmation-email.handler';
import { broadcastDueHandler, broadcastSweepHandler } from './broadcast-due.handler';
import { broadcastsSendHandler } from './broadcasts-send.handler';

/**
 * A job handler: one queue, how many jobs it takes per fetch, and the work per job. A thrown
 * error means "try again later" (STYLE: How an error travels); what is permanent is decided by
 * the domain and recorded by the handler, not by pg-boss retries (retryLimit is 0).
 */
export interface JobHandler<Name extends JobName = JobName> {
  queue: Name;
  batchSize: number;
  /** A pg-boss cron expression: the queue also gets one job per match (one across dispatchers). */
  cron?: string;
  handle(container: DependencyContainer, job: PgBoss.Job<JobPayloads[Name]>): Promise<void>;
}

/** Every queue this dispatcher works. Capabilities add their handlers here. */
// A handler of one queue is a handler of "a" queue; the parameter's variance needs the cast.
export const HANDLERS: readonly JobHandler[] = [
  broadcastDueHandler as unknown as JobHandler,
  broadcastSweepHandler as unknown as JobHandler,
  broadcastsSendHandler as unknown as JobHandler,
  confirmationEmailHandler as unknown as JobHandler,
];

export interface WorkerEvents {
  onJobCompleted?(queue: JobName, jobId: string, seconds: number): void;
  onJobFailed?(queue: JobName, jobId: string, error: unknown, seconds: number): void;
}

/**
 * pg-boss 10 settles a fetched batch as a whole: one throw would fail every job in it. So each
 * job is settled on its own, in parallel within its batch; pg-boss's closing `complete` of the
 * batch then touches only jobs still active, which is none.
 */
export async function startWorkers(
  boss: PgBoss,
  container: DependencyContainer,
  handlers: readonly JobHandler[] = HANDLERS,
  events: WorkerEvents = {},
): Promise<string[]> {
  const ids: string[] = [];
  for (const handler of handlers) {
    if (handler.cron !== undefined) await boss.schedule(handler.queue, handler.cron, {});
    ids.push(
      await boss.work<JobPayloads[JobName]>(
        handler.queue,
        { batchSize: handler.batchSize, pollingIntervalSeconds: 0.5 },
        async (jobs) => {
          await Promise.all(
            jobs.map(async (job) => {
              const started = process.hrtime.bigint();
              const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
              try {
                await handler.handle(container, job);
                await boss.complete(handler.queue, job.id);
                events.onJobCompleted?.(handler.queue, job.id, seconds());
              } catch (error) {
                events.onJobFailed?.(handler.queue, job.id, error, seconds());
                const message = error instanceof Error ? error.message : String(error);
                await boss.fail(handler.queue, job.id, { message });
              }
            }),
          );
        },
      ),
    );
  }
  return ids;
}

import type { JobName, JobPayloads } from '@mailcast/core';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { broadcastsSendHandler } from './broadcasts-send.handler';

/**
 * A job handler: one queue, how many jobs it takes per fetch, and the work per job. A thrown
 * error means "try again later" (STYLE: How an error travels); what is permanent is decided by
 * the domain and recorded by the handler, not by pg-boss retries (retryLimit is 0).
 */
export interface JobHandler<Name extends JobName = JobName> {
  queue: Name;
  batchSize: number;
  handle(container: DependencyContainer, job: PgBoss.Job<JobPayloads[Name]>): Promise<void>;
}

/** Every queue this dispatcher works. Capabilities add their handlers here. */
export const HANDLERS: readonly JobHandler[] = [broadcastsSendHandler as unknown as JobHandler];

export interface WorkerEvents {
  onJobFailed?(queue: JobName, jobId: string, error: unknown): void;
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
    ids.push(
      await boss.work<JobPayloads[JobName]>(
        handler.queue,
        { batchSize: handler.batchSize, pollingIntervalSeconds: 0.5 },
        async (jobs) => {
          await Promise.all(
            jobs.map(async (job) => {
              try {
                await handler.handle(container, job);
                await boss.complete(handler.queue, job.id);
              } catch (error) {
                events.onJobFailed?.(handler.queue, job.id, error);
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

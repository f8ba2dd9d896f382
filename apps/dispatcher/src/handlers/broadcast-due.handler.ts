import { StartDueBroadcast } from '@mailcast/core';
import type { JobHandler } from './job-handler';

/**
 * A scheduled broadcast's time has come (job enqueued by schedule_broadcast with startAfter).
 * The safety net behind it, for a due job that was lost, is the dispatcher's sweep.
 */
export const broadcastDueHandler: JobHandler<'broadcasts.due'> = {
  queue: 'broadcasts.due',
  batchSize: 10,
  async handle(container, job) {
    await container.resolve(StartDueBroadcast).execute(job.data);
  },
};

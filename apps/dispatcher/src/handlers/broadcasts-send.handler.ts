import { DeliverBroadcast } from '@mailcast/core';
import type { JobHandler } from './job-handler';

/**
 * One job per time slice of a broadcast: batch size 1, so while this dispatcher works a
 * broadcast, the helper jobs it enqueued go to other dispatchers.
 */
export const broadcastsSendHandler: JobHandler<'broadcasts.send'> = {
  queue: 'broadcasts.send',
  batchSize: 1,
  async handle(container, job) {
    await container.resolve(DeliverBroadcast).execute({ broadcastId: job.data.broadcastId });
  },
};

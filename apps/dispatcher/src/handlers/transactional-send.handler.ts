import { LoggerToken, type Logger } from '@mailcast/adapters';
import { SendTransactional } from '@mailcast/core';
import type { JobHandler } from './job-handler';

/**
 * One transactional email. Its own queue, fetched every 50 ms and never behind a broadcast's
 * long-running jobs, so it goes out ahead of broadcast traffic (docs/transactionals.md).
 */
export const transactionalSendHandler: JobHandler<'transactionals.send'> = {
  queue: 'transactionals.send',
  batchSize: 20,
  idleMs: 50,
  async handle(container, job) {
    const outcome = await container.resolve(SendTransactional).execute(job.data);
    container.resolve<Logger>(LoggerToken).info('transactional email', { transactionalId: job.data.transactionalId, outcome });
  },
};

import { LoggerToken, type Logger } from '@mailcast/adapters';
import { SendConfirmationEmail } from '@mailcast/core';
import type { JobHandler } from './job-handler';

/**
 * Sends one double opt-in email. The use case decides what happens on each SMTP outcome
 * (temporary failures schedule their own retry); the outcome is logged without the address.
 */
export const confirmationEmailHandler: JobHandler<'subscribers.confirmation'> = {
  queue: 'subscribers.confirmation',
  batchSize: 10,
  async handle(container, job) {
    const outcome = await container.resolve(SendConfirmationEmail).execute(job.data);
    const logger = container.resolve<Logger>(LoggerToken);
    const level = outcome === 'sent' || outcome === 'stale' || outcome === 'retry_scheduled' ? 'info' : 'warn';
    logger.log(level, 'confirmation email', { confirmationId: job.data.confirmationId, attempt: job.data.attempt ?? 1, outcome });
  },
};

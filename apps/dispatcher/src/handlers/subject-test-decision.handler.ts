import { DecideSubjectTest } from '@mailcast/core';
import type { JobHandler } from './job-handler';

/**
 * A subject test's wait is over (job enqueued when the sample started sending, with startAfter and
 * a singleton key): decide the winner once and release the rest (docs/subject-tests.md). A throw
 * is retried by pg-boss (the job's own retryLimit); a duplicate finds it decided.
 */
export const subjectTestDecisionHandler: JobHandler<'broadcasts.ab_decide'> = {
  queue: 'broadcasts.ab_decide',
  batchSize: 10,
  async handle(container, job) {
    await container.resolve(DecideSubjectTest).execute(job.data);
  },
};

import type { JobName, JobPayloads } from '@mailcast/core';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';

/**
 * A job handler: one queue, how many jobs it takes per fetch, and the work per job. A thrown
 * error means "try again later" (docs/operations.md, How an error travels); what is permanent is decided by
 * the domain and recorded by the handler, not by pg-boss retries (retryLimit is 0).
 */
export interface JobHandler<Name extends JobName = JobName> {
  queue: Name;
  batchSize: number;
  /** Pause before fetching again when the queue was empty (default 500 ms). */
  idleMs?: number;
  handle(container: DependencyContainer, job: PgBoss.Job<JobPayloads[Name]>): Promise<void>;
}

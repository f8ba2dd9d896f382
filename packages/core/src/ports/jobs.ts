import type { JobName, JobPayloads } from '../jobs';

export interface JobOptions {
  /** Run no earlier than this instant (pg-boss startAfter): time-exact work, not cron. */
  startAfter?: Date;
  /**
   * Tell the dispatchers at once (a NOTIFY, delivered at commit) instead of at their next poll:
   * for jobs someone waits on, as a transactional email's sender does.
   */
  wake?: boolean;
  /**
   * One waiting job per key, on a queue of SINGLETON_QUEUES: a send while one waits is dropped
   * (send answers '').
   */
  singletonKey?: string;
  /** pg-boss retries of a job that throws (default 0: our jobs decide their own retries). */
  retryLimit?: number;
  /** Seconds between those retries, doubled each time. */
  retryDelaySeconds?: number;
}

export interface JobQueue {
  /** Returns the job id. */
  send<Name extends JobName>(name: Name, data: JobPayloads[Name], options?: JobOptions): Promise<string>;
  /** Many jobs of one queue in one statement (a fan-out's deliveries). */
  sendMany<Name extends JobName>(name: Name, jobs: ReadonlyArray<{ data: JobPayloads[Name]; options?: JobOptions }>): Promise<void>;
}
export const JobQueue = Symbol.for('mailcast.JobQueue');

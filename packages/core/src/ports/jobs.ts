import type { JobName, JobPayloads } from '../jobs';

export interface JobOptions {
  /** Run no earlier than this instant (pg-boss startAfter): time-exact work, not cron. */
  startAfter?: Date;
}

export interface JobQueue {
  /** Returns the job id. */
  send<Name extends JobName>(name: Name, data: JobPayloads[Name], options?: JobOptions): Promise<string>;
  /** Many jobs of one queue in one statement (a fan-out's deliveries). */
  sendMany<Name extends JobName>(name: Name, jobs: ReadonlyArray<{ data: JobPayloads[Name]; options?: JobOptions }>): Promise<void>;
}
export const JobQueue = Symbol.for('mailcast.JobQueue');

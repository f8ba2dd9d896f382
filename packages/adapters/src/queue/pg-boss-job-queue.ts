import type { JobName, JobOptions, JobPayloads, JobQueue } from '@mailcast/core';
import type PgBoss from 'pg-boss';
import { notifyJob } from './job-notifications';

/**
 * pg-boss behind the JobQueue port. Constructed with a transaction's executor, a send is part
 * of that transaction. retryLimit is always 0: pg-boss's default is not 0, and every job that
 * needs retries schedules its own next attempt (the spec's retry schedule is not expressible
 * in pg-boss's backoff).
 */
export class PgBossJobQueue implements JobQueue {
  constructor(
    private readonly boss: PgBoss,
    private readonly db?: PgBoss.Db,
  ) {}

  async send<Name extends JobName>(name: Name, data: JobPayloads[Name], options: JobOptions = {}): Promise<string> {
    const sendOptions: PgBoss.SendOptions = { retryLimit: options.retryLimit ?? 0 };
    if (this.db) sendOptions.db = this.db;
    if (options.startAfter) sendOptions.startAfter = options.startAfter;
    if (options.singletonKey !== undefined) sendOptions.singletonKey = options.singletonKey;
    if (options.retryDelaySeconds !== undefined) Object.assign(sendOptions, { retryDelay: options.retryDelaySeconds, retryBackoff: true });
    const id = await this.boss.send(name, data as object, sendOptions);
    // pg-boss returns null only for throttled or singleton sends: a singleton already waits.
    if (id === null && options.singletonKey !== undefined) return '';
    if (id === null) throw new Error(`pg-boss refused a job on ${name}`);
    if (options.wake) await notifyJob(this.db ?? this.boss.getDb(), name);
    return id;
  }

  async sendMany<Name extends JobName>(name: Name, jobs: ReadonlyArray<{ data: JobPayloads[Name]; options?: JobOptions }>): Promise<void> {
    if (jobs.length === 0) return;
    const rows: PgBoss.JobInsert[] = jobs.map((job) => ({
      name,
      data: job.data as object,
      retryLimit: 0,
      ...(job.options?.startAfter ? { startAfter: job.options.startAfter.toISOString() } : {}),
    }));
    await this.boss.insert(rows, this.db ? { db: this.db } : {});
  }
}

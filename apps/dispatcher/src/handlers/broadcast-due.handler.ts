import { StartDueBroadcast, SweepDueBroadcasts } from '@mailcast/core';
import type { JobHandler } from './registry';

/** A scheduled broadcast's time has come (job enqueued by schedule_broadcast with startAfter). */
export const broadcastDueHandler: JobHandler<'broadcasts.due'> = {
  queue: 'broadcasts.due',
  batchSize: 10,
  async handle(container, job) {
    await container.resolve(StartDueBroadcast).execute(job.data);
  },
};

/** pg-boss cron is minute-precise: enough for a safety net behind the exact due jobs. */
export const BROADCAST_SWEEP_CRON = '* * * * *';

/** The safety net: starts due scheduled broadcasts whose due job was lost. */
export const broadcastSweepHandler: JobHandler<'broadcasts.sweep'> = {
  queue: 'broadcasts.sweep',
  batchSize: 1,
  cron: BROADCAST_SWEEP_CRON,
  async handle(container) {
    await container.resolve(SweepDueBroadcasts).execute();
  },
};

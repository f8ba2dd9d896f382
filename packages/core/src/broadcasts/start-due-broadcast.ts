import { scheduledStart } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Broadcast, type Repositories } from '../ports';
import { recordBroadcastStatus } from './broadcast-events';

/** One move of a due broadcast: broadcast.scheduled (status scheduled) and its send job. */
export async function beginScheduledSend(repositories: Repositories, b: Broadcast, now: Date): Promise<void> {
  await recordBroadcastStatus(repositories, b, now);
  await repositories.jobs.send('broadcasts.send', { broadcastId: b.id });
}

/**
 * The 'broadcasts.due' job (docs/broadcasts-and-sending.md: at the scheduled time the dispatcher moves the broadcast
 * on, exactly as send_broadcast does). It acts only if the broadcast is still future_scheduled
 * at the version the job carries; a reschedule, edit, cancel, abort or delete made it stale.
 */
@injectable()
export class StartDueBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(input: { broadcastId: number; version: number }): Promise<'started' | 'stale' | 'not_due'> {
    const now = this.clock.now();
    return this.transactor.run(async (repositories) => {
      const expected = { statuses: ['future_scheduled'] as const, version: input.version };
      // A time-zone broadcast starts when its window begins, before scheduled_send_at
      // (docs/broadcasts-and-sending.md): due by now when its start is, at this version.
      const before = await repositories.broadcasts.findByIdInAnyChannel(input.broadcastId);
      const lead =
        before?.sendInSubscriberTimezone && before.scheduledSendAt
          ? before.scheduledSendAt.getTime() - scheduledStart({ ...before, scheduledSendAt: before.scheduledSendAt }).getTime()
          : 0;
      const moved = await repositories.broadcasts.update(
        input.broadcastId,
        { ...expected, dueBy: new Date(now.getTime() + lead) },
        { status: 'scheduled' },
        now,
      );
      if (moved !== null) {
        await beginScheduledSend(repositories, moved, now);
        return 'started';
      }
      // pg-boss's clock (the database's) may run ahead of ours: a job that fired early waits again.
      const current = await repositories.broadcasts.findByIdInAnyChannel(input.broadcastId);
      if (current !== null && current.status === 'future_scheduled' && current.version === input.version && current.scheduledSendAt !== null) {
        await repositories.jobs.send('broadcasts.due', input, { startAfter: scheduledStart({ ...current, scheduledSendAt: current.scheduledSendAt }) });
        return 'not_due';
      }
      return 'stale';
    });
  }
}

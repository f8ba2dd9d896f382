import { assertCanUpdate, planSchedule, scheduledStart } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { BroadcastArchive, Clock, Templates, Transactor, type Broadcast } from '../ports';
import { writtenBroadcast } from './broadcast-events';
import { toBroadcastChanges, type BroadcastInput } from './broadcast-input';
import { BROADCAST_NOT_FOUND } from './get-broadcast';

/**
 * Spec: Update, only in draft or future_scheduled. Every update bumps the version. A
 * future_scheduled broadcast keeps a valid future schedule, and its due job is enqueued again
 * for the new version (the old one finds a stale version and does nothing).
 */
@injectable()
export class UpdateBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Templates) private readonly templates: Templates,
    @inject(Clock) private readonly clock: Clock,
    @inject(BroadcastArchive) private readonly archive: BroadcastArchive,
  ) {}

  async execute(caller: Principal, input: { id: number; changes: BroadcastInput }): Promise<Broadcast> {
    // docs/archive.md: `archive` alone may change in any status (publishing a sent broadcast is
    // the usual case), and without a version bump, so it never disturbs a send in progress.
    const given = Object.keys(input.changes).filter((k) => input.changes[k as keyof BroadcastInput] !== undefined);
    if (given.length === 1 && given[0] === 'archive') {
      const updated = await this.archive.setArchive(caller.channelId, input.id, input.changes.archive!, this.clock.now());
      if (updated === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      return updated;
    }
    return this.transactor.run(async (repositories) => {
      const current = await repositories.broadcasts.lock(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      assertCanUpdate(current.status);
      const changes = await toBroadcastChanges(input.changes, {
        channelId: caller.channelId,
        repositories,
        templates: this.templates,
        current,
      });
      const now = this.clock.now();

      if (current.status === 'future_scheduled') {
        const at = changes.scheduledSendAt === undefined ? current.scheduledSendAt : changes.scheduledSendAt;
        const timezone = changes.scheduledTimezone === undefined ? current.scheduledTimezone : changes.scheduledTimezone;
        if (at === null || timezone === null) {
          throw new ValidationError('A scheduled broadcast needs a send time and a timezone; use cancel_schedule to unschedule it');
        }
        planSchedule({ status: current.status, scheduledSendAt: at, now });
      }

      const updated = writtenBroadcast(
        await repositories.broadcasts.update(current.id, { statuses: [current.status], version: current.version }, changes, now),
      );
      if (updated.status === 'future_scheduled' && updated.scheduledSendAt !== null) {
        await repositories.jobs.send(
          'broadcasts.due',
          { broadcastId: updated.id, version: updated.version },
          { startAfter: scheduledStart({ ...updated, scheduledSendAt: updated.scheduledSendAt }) },
        );
      }
      return updated;
    });
  }
}

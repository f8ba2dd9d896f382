import { assertCanSchedule, DomainError, isValidTimezone, planSchedule, resolveScheduledSendAt, scheduledStart } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, Transactor } from '../ports';
import { recordBroadcastStatus, writtenBroadcast } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';
import { SUBJECT_TEST_WITH_TIMEZONE } from './broadcast-input';

export interface ScheduleAnswer {
  id: number;
  message: string;
  status: 'future_scheduled';
  scheduled_send_at: string;
  scheduled_timezone: string;
}

/**
 * Spec: Schedule; docs/broadcasts-and-sending.md. From draft or future_scheduled. With no parameters the
 * stored time and timezone are confirmed; a missing one falls back to the stored one. The due
 * job carries the new version, so a reschedule, cancel or edit leaves older jobs with nothing
 * to do.
 */
@injectable()
export class ScheduleBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(
    caller: Principal,
    input: { id: number; scheduledSendAt?: string; scheduledTimezone?: string; sendInSubscriberTimezone?: boolean },
  ): Promise<ScheduleAnswer> {
    return this.transactor.run(async (repositories) => {
      const current = await repositories.broadcasts.lock(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      const now = this.clock.now();
      assertCanSchedule(current.status);

      const timezone = input.scheduledTimezone ?? current.scheduledTimezone;
      if (timezone === null) throw new ValidationError('Scheduled timezone is required');
      if (!isValidTimezone(timezone)) throw new DomainError('invalid_timezone', 'Scheduled timezone is invalid');
      let at: Date;
      if (input.scheduledSendAt !== undefined) at = resolveScheduledSendAt(input.scheduledSendAt, timezone);
      else if (current.scheduledSendAt !== null) at = current.scheduledSendAt;
      else throw new ValidationError('Scheduled send time is required');

      const status = planSchedule({ status: current.status, scheduledSendAt: at, now });
      const sendInSubscriberTimezone = input.sendInSubscriberTimezone ?? current.sendInSubscriberTimezone;
      if (sendInSubscriberTimezone && current.abTest) throw new ValidationError(SUBJECT_TEST_WITH_TIMEZONE);
      const updated = writtenBroadcast(
        await repositories.broadcasts.update(
          current.id,
          { statuses: [current.status], version: current.version },
          { status, scheduledSendAt: at, scheduledTimezone: timezone, sendInSubscriberTimezone },
          now,
        ),
      );
      await recordBroadcastStatus(repositories, updated, now);
      await repositories.jobs.send(
        'broadcasts.due',
        { broadcastId: updated.id, version: updated.version },
        { startAfter: scheduledStart({ scheduledSendAt: at, scheduledTimezone: timezone, sendInSubscriberTimezone }) },
      );
      return {
        id: updated.id,
        message: 'Broadcast scheduled successfully',
        status,
        scheduled_send_at: at.toISOString(),
        scheduled_timezone: timezone,
      };
    });
  }
}

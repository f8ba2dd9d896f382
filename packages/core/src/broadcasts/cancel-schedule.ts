import { planCancelSchedule } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Transactor } from '../ports';
import { writtenBroadcast } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/**
 * Spec: Cancel schedule, future_scheduled → draft. The schedule is cleared (a draft has none)
 * and the version bump turns the pending due job into a no-op. draft has no event.
 */
@injectable()
export class CancelSchedule {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return this.transactor.run(async (repositories) => {
      const current = await repositories.broadcasts.lock(caller.channelId, input.id);
      if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
      const status = planCancelSchedule(current.status);
      const updated = writtenBroadcast(
        await repositories.broadcasts.update(
          current.id,
          { statuses: [current.status], version: current.version },
          { status, scheduledSendAt: null, scheduledTimezone: null },
          this.clock.now(),
        ),
      );
      return { id: updated.id, message: 'Broadcast schedule cancelled', status: updated.status };
    });
  }
}

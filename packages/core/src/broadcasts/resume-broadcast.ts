import { planResume } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor } from '../ports';
import { moveBroadcast } from './move-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/** paused → the stage it was paused in, and the sending pipeline is started again. */
@injectable()
export class ResumeBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return moveBroadcast(
      this.transactor,
      this.clock.now(),
      caller,
      input.id,
      // The guard's reason goes with the pause (docs/reputation-guard.md).
      (b) => ({ status: planResume(b.status, b.pausedFrom), pausedFrom: null, pauseReason: null }),
      'Broadcast resumed',
      async (repositories, updated) => {
        await repositories.jobs.send('broadcasts.send', { broadcastId: updated.id });
      },
    );
  }
}

import { planPause } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor } from '../ports';
import { moveBroadcast } from './move-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/** scheduled | queueing | sending → paused, remembering the stage for resume. */
@injectable()
export class PauseBroadcast {
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
      (b) => ({ status: planPause(b.status), pausedFrom: b.status, pauseReason: null }),
      'Broadcast paused',
    );
  }
}

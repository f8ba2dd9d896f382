import { planAbort } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor } from '../ports';
import { moveBroadcast } from './move-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/**
 * future_scheduled | scheduled | queueing | sending | paused → aborted, terminal (spec:
 * broadcast.aborted means manual cancellation). Recipients not yet sent are never sent.
 */
@injectable()
export class AbortBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return moveBroadcast(this.transactor, this.clock.now(), caller, input.id, (b) => ({ status: planAbort(b.status), pausedFrom: null }), 'Broadcast aborted');
  }
}

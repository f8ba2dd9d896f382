import { planAbort, planPause, planResume } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Transactor, type Broadcast, type BroadcastChanges, type Repositories } from '../ports';
import { recordBroadcastStatus, written } from './broadcast-events';
import { BROADCAST_NOT_FOUND } from './get-broadcast';
import type { BroadcastStatusAnswer } from './send-broadcast';

/**
 * The shared shape of pause, resume and abort (CONTRACT: routes beyond the spec): lock, let
 * the domain decide the move, write it with broadcast.<new status>, and optionally enqueue.
 * The sending pipeline re-reads the status per batch, so pause and abort stop it there.
 */
async function move(
  transactor: Transactor,
  now: Date,
  caller: Principal,
  id: number,
  plan: (current: Broadcast) => BroadcastChanges,
  message: string,
  after?: (repositories: Repositories, updated: Broadcast) => Promise<void>,
): Promise<BroadcastStatusAnswer> {
  return transactor.run(async (repositories) => {
    const current = await repositories.broadcasts.lock(caller.channelId, id);
    if (current === null) throw new NotFoundError(BROADCAST_NOT_FOUND);
    const changes = plan(current);
    const updated = written(
      await repositories.broadcasts.update(current.id, { statuses: [current.status], version: current.version }, changes, now),
    );
    await recordBroadcastStatus(repositories, updated, now);
    await after?.(repositories, updated);
    return { id: updated.id, message, status: updated.status };
  });
}

/** scheduled | queueing | sending → paused, remembering the stage for resume. */
@injectable()
export class PauseBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return move(
      this.transactor,
      this.clock.now(),
      caller,
      input.id,
      (b) => ({ status: planPause(b.status), pausedFrom: b.status }),
      'Broadcast paused',
    );
  }
}

/** paused → the stage it was paused in, and the sending pipeline is started again. */
@injectable()
export class ResumeBroadcast {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(caller: Principal, input: { id: number }): Promise<BroadcastStatusAnswer> {
    return move(
      this.transactor,
      this.clock.now(),
      caller,
      input.id,
      (b) => ({ status: planResume(b.status, b.pausedFrom), pausedFrom: null }),
      'Broadcast resumed',
      async (repositories, updated) => {
        await repositories.jobs.send('broadcasts.send', { broadcastId: updated.id });
      },
    );
  }
}

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
    return move(
      this.transactor,
      this.clock.now(),
      caller,
      input.id,
      (b) => ({ status: planAbort(b.status), pausedFrom: null }),
      'Broadcast aborted',
    );
  }
}

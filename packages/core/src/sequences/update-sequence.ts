import { pauseTransition } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor, type Sequence, type SequenceChanges } from '../ports';
import { checkedSettings, sequenceOrNotFound } from './sequence-rules';

/**
 * Only the fields given change. Switching `active` off pauses every active enrolment and on
 * resumes every paused one, in one statement each with their events (docs/sequences.md, "Pause
 * and resume"), in the transaction of the change.
 */
@injectable()
export class UpdateSequence {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: SequenceChanges & { id: number }): Promise<Sequence> {
    const { id, ...changes } = input;
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const current = await sequenceOrNotFound(r, principal.channelId, id, true);
      const { id: _id, channelId: _channel, createdAt: _created, updatedAt: _updated, ...settings } = current;
      const next = await checkedSettings(r, principal.channelId, { ...settings, ...changes }, changes, id);
      const updated = await r.sequences.update(principal.channelId, id, next, now);
      if (current.active !== updated.active) {
        const t = pauseTransition(updated.active);
        await r.sequences.transitionAll(id, t.from, t.to, t.event, now);
      }
      return updated;
    });
  }
}

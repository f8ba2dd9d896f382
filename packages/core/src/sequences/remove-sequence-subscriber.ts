import { canonicalEmail, ENDED_ENROLMENT_STATUSES } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Clock, Transactor, type Enrolment } from '../ports';
import { enrolmentEvent, sequenceOrNotFound } from './sequence-rules';

export const NOT_IN_SEQUENCE = 'Subscriber is not in this sequence';

/** Ends an enrolment under way as `removed`, with sequence.subscriber_removed; one that ended already is not in it. */
@injectable()
export class RemoveSequenceSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: { sequenceId: number; email: string }): Promise<Enrolment> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId);
      const email = canonicalEmail(input.email);
      const subscriber = email === null ? null : await r.subscribers.findByEmail(principal.channelId, email);
      const enrolment = subscriber === null ? null : await r.sequences.findEnrolment(sequence.id, subscriber.id, { forUpdate: true });
      if (enrolment === null || ENDED_ENROLMENT_STATUSES.includes(enrolment.status)) throw new NotFoundError(NOT_IN_SEQUENCE);
      const removed = await r.sequences.setStatus(enrolment.id, 'removed', now);
      await r.outbox.record(enrolmentEvent('sequence.subscriber_removed', removed, now));
      return removed;
    });
  }
}

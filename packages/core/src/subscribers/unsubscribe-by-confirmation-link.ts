import { unsubscribe } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Subscriber } from '../ports';
import { lockByToken } from './confirmation-link';
import { recordSubscriberEvents } from './subscriber-events';

export type LinkUnsubscribeOutcome = { kind: 'unsubscribed'; subscriber: Subscriber } | { kind: 'unknown' };

/**
 * The unsubscribe link of a confirmation email ("I did not sign up"): any link the subscriber
 * received, stale or not, still names them, and opting out must always work.
 */
@injectable()
export class UnsubscribeByConfirmationLink {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(input: { token: string }): Promise<LinkUnsubscribeOutcome> {
    const now = this.clock.now();
    return this.transactor.run(async (repositories) => {
      const found = await lockByToken(repositories, input.token);
      if (found === null) return { kind: 'unknown' };
      // "I did not sign up": what a form held for the confirmation goes too (docs/opt-in-forms.md).
      await repositories.formSubmissions.dropPending(found.subscriber.id);
      // A second click keeps the first opt-out time and emits nothing new.
      if (!found.subscriber.isActive && found.subscriber.unsubscribedAt !== null) {
        return { kind: 'unsubscribed', subscriber: found.subscriber };
      }
      const saved = await repositories.subscribers.save(unsubscribe(found.subscriber, now), now);
      await recordSubscriberEvents(repositories, saved, ['subscriber.unsubscribed'], now);
      return { kind: 'unsubscribed', subscriber: saved };
    });
  }
}

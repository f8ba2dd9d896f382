import { confirm } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Subscriber } from '../ports';
import { lockByToken } from './confirmation-link';
import { recordSubscriberEvents } from './subscriber-events';

/** What the public page tells the recipient; none of these is an error to them. */
export type ConfirmationOutcome =
  { kind: 'confirmed'; subscriber: Subscriber } | { kind: 'already_confirmed'; subscriber: Subscriber } | { kind: 'superseded' } | { kind: 'unknown' };

/**
 * The recipient opened the double opt-in link (docs/subscribers.md: opening it sets confirmed_at). A link
 * of an already confirmed subscriber changes nothing; a link replaced by a newer request is stale.
 */
@injectable()
export class ConfirmSubscription {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(input: { token: string }): Promise<ConfirmationOutcome> {
    const now = this.clock.now();
    return this.transactor.run(async (repositories) => {
      const found = await lockByToken(repositories, input.token);
      if (found === null) return { kind: 'unknown' };
      const { confirmation, subscriber } = found;
      if (subscriber.confirmedAt !== null) return { kind: 'already_confirmed', subscriber };
      if (confirmation.supersededAt !== null) return { kind: 'superseded' };
      const saved = await repositories.subscribers.save(confirm(subscriber, now), now);
      await repositories.subscriberConfirmations.markConfirmed(confirmation.id, now);
      await recordSubscriberEvents(repositories, saved, ['subscriber.subscribed'], now);
      // Transactionals sent with double opt-in were held for this (docs/transactionals.md).
      for (const transactionalId of await repositories.transactionals.releaseAwaiting(saved.id, now)) {
        await repositories.jobs.send('transactionals.send', { transactionalId }, { wake: true });
      }
      return { kind: 'confirmed', subscriber: saved };
    });
  }
}

import { confirm, hashConfirmationToken, isConfirmationTokenShape, unsubscribe } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, Transactor, type Repositories, type Subscriber, type SubscriberConfirmation } from '../ports';
import { recordSubscriberEvents } from './subscriber-events';

/** What the public page tells the recipient; none of these is an error to them. */
export type ConfirmationOutcome =
  | { kind: 'confirmed'; subscriber: Subscriber }
  | { kind: 'already_confirmed'; subscriber: Subscriber }
  | { kind: 'superseded' }
  | { kind: 'unknown' };

export type LinkUnsubscribeOutcome = { kind: 'unsubscribed'; subscriber: Subscriber } | { kind: 'unknown' };

/** The confirmation a token names and its subscriber, locked; null when the link names nothing live. */
async function lockByToken(
  repositories: Repositories,
  token: string,
): Promise<{ confirmation: SubscriberConfirmation; subscriber: Subscriber } | null> {
  if (!isConfirmationTokenShape(token)) return null;
  const confirmation = await repositories.subscriberConfirmations.findByTokenHash(hashConfirmationToken(token));
  if (confirmation === null) return null;
  const subscriber = await repositories.subscribers.findById(confirmation.channelId, confirmation.subscriberId, {
    forUpdate: true,
  });
  // A redacted subscriber's links name no one any more.
  if (subscriber === null || subscriber.redactedAt !== null) return null;
  return { confirmation, subscriber };
}

/**
 * The recipient opened the double opt-in link (CONTRACT: opening it sets confirmed_at). A link
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
      return { kind: 'confirmed', subscriber: saved };
    });
  }
}

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

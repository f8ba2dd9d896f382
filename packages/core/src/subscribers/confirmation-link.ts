import { hashConfirmationToken, isConfirmationTokenShape } from '@mailcast/domain';
import type { Repositories, Subscriber, SubscriberConfirmation } from '../ports';

/** The confirmation a token names and its subscriber, locked; null when the link names nothing live. */
export async function lockByToken(repositories: Repositories, token: string): Promise<{ confirmation: SubscriberConfirmation; subscriber: Subscriber } | null> {
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

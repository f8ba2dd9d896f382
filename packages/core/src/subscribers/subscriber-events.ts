import type { SubscriberEventData } from '@mailcast/domain';
import type { OutboxEvent, Repositories, Subscriber } from '../ports';

type SubscriberEventType = 'subscriber.created' | 'subscriber.updated' | 'subscriber.subscribed' | 'subscriber.unsubscribed' | 'subscriber.deleted';

/** The spec's subscriber data shape ("Data shapes: Subscriber events"). */
/** The fields the spec's subscriber event data carries (a full Subscriber or a recipient's snapshot). */
export type SubscriberEventSource = Pick<
  Subscriber,
  'id' | 'email' | 'firstName' | 'lastName' | 'subscribedAt' | 'unsubscribedAt' | 'isActive' | 'customData' | 'source'
>;

export function subscriberEventData(s: SubscriberEventSource): SubscriberEventData {
  return {
    subscriber_id: s.id,
    email: s.email,
    first_name: s.firstName,
    last_name: s.lastName,
    subscribed_at: s.subscribedAt.toISOString(),
    unsubscribed_at: s.unsubscribedAt === null ? null : s.unsubscribedAt.toISOString(),
    is_active: s.isActive,
    custom_data: s.customData,
    source: s.source,
  };
}

/** The outbox events of one change of `subscriber`, one per type, in order. */
export function subscriberEvents(subscriber: Subscriber, types: readonly SubscriberEventType[], now: Date): OutboxEvent[] {
  return types.map((type) => ({ channelId: subscriber.channelId, type, data: subscriberEventData(subscriber), createdAt: now }));
}

/**
 * Writes the events of one change into the outbox. Callers pass the transaction's repositories,
 * so the events commit with the change or not at all (docs/webhooks.md, event table).
 */
export async function recordSubscriberEvents(
  repositories: Repositories,
  subscriber: Subscriber,
  types: readonly SubscriberEventType[],
  now: Date,
): Promise<void> {
  for (const event of subscriberEvents(subscriber, types, now)) await repositories.outbox.record(event);
}

export const SUBSCRIBER_NOT_FOUND = 'Subscriber not found';

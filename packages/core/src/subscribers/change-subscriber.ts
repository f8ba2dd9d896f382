import { normalizeEmail } from '@mailcast/domain';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import type { Clock, Subscriber, Transactor } from '../ports';
import { recordSubscriberEvents, SUBSCRIBER_NOT_FOUND } from './subscriber-events';

export const SUBSCRIBER_REDACTED = 'Subscriber has been redacted';

type EventTypes = Parameters<typeof recordSubscriberEvents>[2];

/**
 * The shape every by-email operation shares: lock the subscriber, apply a pure change, save it
 * and record its events, in one transaction. A redacted record (reachable only by its
 * placeholder address) refuses every change: redaction is irreversible.
 */
export function changeSubscriberByEmail(
  deps: { transactor: Transactor; clock: Clock },
  principal: Principal,
  rawEmail: string,
  change: (subscriber: Subscriber, now: Date) => Subscriber,
  events: EventTypes,
  redactedMessage = SUBSCRIBER_REDACTED,
): Promise<Subscriber> {
  const email = normalizeEmail(rawEmail);
  const now = deps.clock.now();
  return deps.transactor.run(async (repositories) => {
    const subscriber = await repositories.subscribers.findByEmail(principal.channelId, email, { forUpdate: true });
    if (subscriber === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
    if (subscriber.redactedAt !== null) throw new ValidationError(redactedMessage);
    const saved = await repositories.subscribers.save(change(subscriber, now), now);
    await recordSubscriberEvents(repositories, saved, events, now);
    return saved;
  });
}

import { normalizeEmail } from '@mailcast/domain';
import type { Principal } from '../auth/authenticate';
import { NotFoundError, ValidationError } from '../errors';
import type { Clock, Repositories, Subscriber, Transactor } from '../ports';
import { recordSubscriberEvents, SUBSCRIBER_NOT_FOUND, subscriberEvents } from './subscriber-events';

export const SUBSCRIBER_REDACTED = 'Subscriber has been redacted';

type EventTypes = Parameters<typeof recordSubscriberEvents>[2];

/**
 * The shape every by-email operation shares: lock the subscriber, apply a pure change, save it
 * and record its events, in one transaction. A redacted record (reachable only by its
 * placeholder address) refuses every change: redaction is irreversible.
 *
 * Given `repositories` (outside any transaction), it first tries without a lock: read the row
 * with its version, then save the change and its events in one statement if the row is still at
 * that version (docs/write-path.md, "Subscriber changes"); two round trips instead of five. A row
 * changed in between takes the locked transaction, which decides on the row as it is then.
 */
export async function changeSubscriberByEmail(
  deps: { transactor: Transactor; clock: Clock; repositories?: Repositories },
  principal: Principal,
  rawEmail: string,
  change: (subscriber: Subscriber, now: Date) => Subscriber,
  events: EventTypes,
  redactedMessage = SUBSCRIBER_REDACTED,
): Promise<Subscriber> {
  const email = normalizeEmail(rawEmail);
  const now = deps.clock.now();
  if (deps.repositories !== undefined) {
    const found = await deps.repositories.subscribers.findVersioned(principal.channelId, email);
    if (found === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
    // Redaction is irreversible: a redacted row read here is redacted now.
    if (found.subscriber.redactedAt !== null) throw new ValidationError(redactedMessage);
    const saved = await deps.repositories.subscribers.saveIfVersion(change(found.subscriber, now), found.version, now, (row) =>
      subscriberEvents(row, events, now),
    );
    if (saved !== null) return saved;
  }
  return deps.transactor.run(async (repositories) => {
    const subscriber = await repositories.subscribers.findByEmail(principal.channelId, email, { forUpdate: true });
    if (subscriber === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
    if (subscriber.redactedAt !== null) throw new ValidationError(redactedMessage);
    const saved = await repositories.subscribers.save(change(subscriber, now), now);
    await recordSubscriberEvents(repositories, saved, events, now);
    return saved;
  });
}

import type { SubscriberSnapshot } from '@mailcast/core';

// The SQL fragments and the subscriber row mapping shared by the statements of PgRecipientStore.

// The recipients rule (docs/broadcasts-and-sending.md), the predicate of the subscribers_sendable index:
// active, and confirmed when created through double opt-in.
export const SENDABLE = `s.is_active AND (NOT s.requires_confirmation OR s.confirmed_at IS NOT NULL) AND s.redacted_at IS NULL`;

// Suppressed (docs/suppressions.md): the address is on the channel's list or the global one.
// Kept apart from SENDABLE: a suppressed recipient is queued as `skipped`, so it is counted.
export const SUPPRESSED = `EXISTS (SELECT 1 FROM suppressions x
                             WHERE x.email = s.email AND (x.channel_id = s.channel_id OR x.channel_id IS NULL))`;

// The same for subscribers of the one channel :channelId, correlated on the address alone: the
// planner may then hash the channel's and the global list once (when it fits in memory) instead
// of probing the list's index per subscriber. Not `email IN (list)`: a list too large to hash
// would then be scanned whole for every subscriber.
export const SUPPRESSED_IN_CHANNEL = `EXISTS (SELECT 1 FROM suppressions x
                                        WHERE x.email = s.email AND (x.channel_id = :channelId OR x.channel_id IS NULL))`;

// Claimable: pending and due, or claimed by a worker whose lease ran out (it died or stalled).
// Retry times come from the application clock (:now, which set them); leases are set and
// judged in database time (now()), so dispatchers whose clocks disagree never take each
// other's live claims (docs/sending-reliability.md).
export const CLAIMABLE = `((r.status = 'pending' AND (r.next_attempt_at IS NULL OR r.next_attempt_at <= :now))
                   OR (r.status = 'claimed' AND r.lease_expires_at <= now()))`;
export const LEASE_UNTIL = `now() + CAST(:leaseMs AS integer) * interval '1 millisecond'`;

export interface SubscriberRow {
  subscriber_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  tags: string[];
  custom_data: Record<string, unknown>;
  is_active: boolean;
  source: string;
  subscribed_at: Date;
  unsubscribed_at: Date | null;
}

export const SUBSCRIBER_COLUMNS = `s.id AS subscriber_id, s.email, s.first_name, s.last_name, s.tags, s.custom_data,
  s.is_active, s.source, s.subscribed_at, s.unsubscribed_at`;

export const toSubscriber = (row: SubscriberRow): SubscriberSnapshot => ({
  id: row.subscriber_id,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  tags: row.tags,
  customData: row.custom_data,
  isActive: row.is_active,
  source: row.source,
  subscribedAt: row.subscribed_at,
  unsubscribedAt: row.unsubscribed_at,
});

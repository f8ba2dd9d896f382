import type { BroadcastStatus } from './broadcast';

/** The spec's "Event types" table, group by group. */
export const EVENT_TYPE_GROUPS = {
  // email.send_delayed and broadcast.batch_completed: the reference service's Python SDK 0.5 lists
  // them; accepted on endpoints, never emitted (docs/webhooks.md, "Accepted, never emitted").
  email: [
    'email.sent',
    'email.delivered',
    'email.delivery_delayed',
    'email.bounced',
    'email.complained',
    'email.opened',
    'email.clicked',
    'email.failed',
    'email.send_delayed',
  ],
  subscriber: [
    'subscriber.created',
    'subscriber.updated',
    'subscriber.deleted',
    'subscriber.subscribed',
    'subscriber.unsubscribed',
    'subscriber.bounced',
    'subscriber.complained',
    'subscriber.preferences_updated',
  ],
  /** A whole channel's list at once: the admin CLI's purge (docs/subscribers.md, "Purge"). */
  subscribers: ['subscribers.purged', 'subscribers.purge_failed'],
  broadcast: [
    'broadcast.scheduled',
    'broadcast.queueing',
    'broadcast.sending',
    'broadcast.sent',
    'broadcast.failed',
    'broadcast.partial_failure',
    'broadcast.aborted',
    'broadcast.paused',
    'broadcast.batch_completed',
    // Mailcast's own: a subject test's winner (docs/subject-tests.md).
    'broadcast.ab_test_decided',
  ],
  sequence: [
    'sequence.subscriber_added',
    'sequence.subscriber_completed',
    'sequence.subscriber_moved',
    'sequence.subscriber_removed',
    'sequence.subscriber_paused',
    'sequence.subscriber_resumed',
    'sequence.subscriber_error',
  ],
  system: ['message.attempt.exhausted', 'test.webhook'],
} as const;

export type EventGroup = keyof typeof EVENT_TYPE_GROUPS;
export type EventType = (typeof EVENT_TYPE_GROUPS)[EventGroup][number];
export type BroadcastEventType = (typeof EVENT_TYPE_GROUPS)['broadcast'][number];

export const EVENT_TYPES: readonly EventType[] = Object.values(EVENT_TYPE_GROUPS).flat();

export function isEventType(s: string): s is EventType {
  return (EVENT_TYPES as readonly string[]).includes(s);
}

// Data shapes of the spec's Events section, as serialized: snake_case, datetimes as ISO 8601
// strings. Names the spec types as strings but the service stores as optional are `| null`.

export type SubscriberEventData = {
  subscriber_id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  subscribed_at: string;
  unsubscribed_at: string | null;
  is_active: boolean;
  custom_data: Record<string, unknown>;
  source: string;
};

/** docs/topics.md, "The event": the subscriber as in the other subscriber events, and what changed. */
export type PreferencesUpdatedEventData = {
  subscriber: SubscriberEventData;
  changes: Array<{ topic_id: number; from: boolean | null; to: boolean | null }>;
};

export type ReceiptedType = 'Broadcast' | 'SequenceStep' | 'TransactionalEmail';

export type EmailEventData = {
  receipt_id: number;
  email: string;
  identifier: string;
  receipted_type: ReceiptedType;
  receipted_id: number;
  delivered: boolean;
  opened: boolean;
  clicked: boolean;
  bounced: boolean;
  complaint: boolean;
  unsubscribed: boolean;
  opened_at: string | null;
  clicked_at: string | null;
  bounced_reason: string | null;
  complaint_reason: string | null;
  /** email.opened and email.clicked: whether a machine made this one (docs/engagement.md). */
  machine?: boolean;
};

export type BroadcastEventData = {
  broadcast_id: number;
  name: string | null;
  subject: string;
  status: BroadcastStatus;
  total_recipients: number;
  broadcast_recipients_count: number;
  percentage_complete: number;
  sent_at: string | null;
  scheduled_send_at: string | null;
  created_at: string;
  updated_at: string;
  broadcast_channel_id: number;
  segment_ids: number[];
  tags: string[];
};

export type AttemptExhaustedEventData = {
  delivery_id: number;
  webhook_endpoint_id: number;
  attempts: number;
  last_error: string;
  first_attempted_at: string;
  last_attempted_at: string;
  original_event_type: EventType;
};

/** docs/subscribers.md, "Purge": one event for the whole list, never a subscriber.deleted per row. */
export type SubscribersPurgedEventData = { broadcast_channel_id: number; count: number };
/** `count`: how many were deleted (and stay deleted) before the failure. */
export type SubscribersPurgeFailedEventData = SubscribersPurgedEventData & { error: string };

/** Spec "Payload envelope". */
export type WebhookEnvelope<D extends object = object> = {
  id: number;
  type: EventType;
  created_at: string;
  data: D;
};

/**
 * The event a broadcast emits on entering `status` (docs/api-decisions.md event table: `broadcast.<new
 * status>`). draft and future_scheduled have no event of their own; schedule_broadcast emits
 * broadcast.scheduled explicitly (docs/api-decisions.md), which the caller decides, not this lookup.
 */
export function broadcastEventType(status: BroadcastStatus): BroadcastEventType | null {
  const type = `broadcast.${status}`;
  return (EVENT_TYPE_GROUPS.broadcast as readonly string[]).includes(type) ? (type as BroadcastEventType) : null;
}

import {
  percentageComplete,
  type BroadcastEventData,
  type EmailEventData,
  type SubscriberEventData,
} from '@mailcast/domain';
import type { Broadcast } from '../ports';
import type { SubscriberSnapshot } from './recipient-store';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

/** Spec "Broadcast events" data. */
export function broadcastEventData(b: Broadcast): BroadcastEventData {
  return {
    broadcast_id: b.id,
    name: b.name,
    subject: b.subject,
    status: b.status,
    total_recipients: b.totalRecipients,
    broadcast_recipients_count: b.broadcastRecipientsCount,
    percentage_complete: percentageComplete(b.broadcastRecipientsCount, b.totalRecipients),
    sent_at: iso(b.sentAt),
    scheduled_send_at: iso(b.scheduledSendAt),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
    broadcast_channel_id: b.channelId,
    segment_ids: b.segmentIds,
    tags: b.tags,
  };
}

/** Spec "Subscriber events" data. */
export function subscriberEventData(s: SubscriberSnapshot): SubscriberEventData {
  return {
    subscriber_id: s.id,
    email: s.email,
    first_name: s.firstName,
    last_name: s.lastName,
    subscribed_at: s.subscribedAt.toISOString(),
    unsubscribed_at: iso(s.unsubscribedAt),
    is_active: s.isActive,
    custom_data: s.customData,
    source: s.source,
  };
}

export interface EmailEventFacts {
  recipientId: number;
  broadcastId: number;
  email: string;
  messageId: string;
  delivered?: boolean;
  openedAt?: Date | null;
  clickedAt?: Date | null;
  bouncedReason?: string | null;
  unsubscribed?: boolean;
}

/** Spec "Email events" data for a broadcast recipient (receipted_type Broadcast). */
export function emailEventData(f: EmailEventFacts): EmailEventData {
  return {
    receipt_id: f.recipientId,
    email: f.email,
    identifier: f.messageId,
    receipted_type: 'Broadcast',
    receipted_id: f.broadcastId,
    delivered: f.delivered ?? false,
    opened: f.openedAt != null,
    clicked: f.clickedAt != null,
    bounced: f.bouncedReason != null,
    complaint: false,
    unsubscribed: f.unsubscribed ?? false,
    opened_at: iso(f.openedAt ?? null),
    clicked_at: iso(f.clickedAt ?? null),
    bounced_reason: f.bouncedReason ?? null,
    complaint_reason: null,
  };
}

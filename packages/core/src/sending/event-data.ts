import type { EmailEventData } from '@mailcast/domain';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

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

import type { EarlierClick, EventType, MachineReason } from '@mailcast/domain';

/** An event as the outbox stores it; the webhooks dispatcher wraps it in the spec's envelope. */
export interface OutboxEvent {
  channelId: number;
  type: EventType;
  data: Record<string, unknown>;
  createdAt: Date;
}

export interface RecordedEvent extends OutboxEvent {
  id: number;
}

/**
 * What happened to one recipient's email, as the statistics count it. One row per occurrence:
 * `processed` handed to SMTP, `delivered` accepted (2xx), `delayed` temporary failure (4xx),
 * `bounced` permanent rejection (5xx), `failed` given up, `opened`, `clicked` (with a link),
 * `complained`, `unsubscribed` (through this broadcast's link or one-click header).
 */
export const EMAIL_EVENT_KINDS = ['processed', 'delivered', 'delayed', 'bounced', 'failed', 'opened', 'clicked', 'complained', 'unsubscribed'] as const;
export type EmailEventKind = (typeof EMAIL_EVENT_KINDS)[number];

export interface EmailEventRecord {
  channelId: number;
  broadcastId: number;
  recipientId: number;
  subscriberId: number;
  kind: EmailEventKind;
  /** The broadcast_links row clicked; only for `clicked`. */
  linkId?: number | null;
  occurredAt: Date;
  data?: Record<string, unknown>;
  /**
   * Opens and clicks: whether a machine made it, and why (docs/engagement.md). Left out, the
   * event counts as neither human nor machine in the human figures.
   */
  machine?: boolean | null;
  machineReason?: MachineReason | null;
}

/**
 * A click to mark on its recipient's row: the 60 s guard's window starts at `windowStart`, and
 * the context is read from `contextSince` (docs/engagement.md).
 */
export interface ClickMark {
  recipientId: number;
  broadcastId: number;
  linkId: number;
  at: Date;
  windowStart: Date;
  contextSince: Date;
}

/** What the classification of a click needs to know of the email's earlier clicks. */
export interface ClickContext {
  /** Tracked links of the broadcast. */
  linkCount: number;
  /** The recipient's recorded clicks at or after `since`, oldest first. */
  earlierClicks: EarlierClick[];
}

import type { BroadcastStatus, SegmentDefinition } from '@mailcast/domain';
import type { Broadcast } from './entities/broadcast';
import type { EmailEventRecord, OutboxEvent } from './entities/events';

/**
 * The sending pipeline's persistence: set-based recipient materialisation, leased claims, per
 * recipient outcomes and the public tracking look-ups. Reached through `Repositories.recipients`
 * so every outcome commits with its email events and outbox events.
 */

export interface SubscriberSnapshot {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  tags: string[];
  customData: Record<string, unknown>;
  isActive: boolean;
  source: string;
  subscribedAt: Date;
  unsubscribedAt: Date | null;
}

export interface ClaimedRecipient {
  id: number;
  broadcastId: number;
  messageId: string;
  attempts: number;
  /** False when the subscriber stopped being sendable since queueing: the row is already `skipped`. */
  sendable: boolean;
  subscriber: SubscriberSnapshot;
}

export interface SendProgress {
  /** Pending and due now, or claimed with an expired lease. */
  claimable: number;
  /** Claimed under a live lease by any worker. */
  leased: number;
  /** The earliest retry of a delayed recipient, if any waits. */
  nextAttemptAt: Date | null;
}

export interface SendOutcomeCounts {
  accepted: number;
  failed: number;
  /** Recipients done one way or another (sent, failed, bounced, skipped). */
  processed: number;
  total: number;
}

export type RecipientSettlement =
  | { status: 'sent'; at: Date }
  | { status: 'bounced' | 'failed'; at: Date; error: string }
  /** `refundAttempt`: the message was never offered to a server (held back by sending limits). */
  | { status: 'pending'; nextAttemptAt: Date; error: string; refundAttempt?: boolean };

/** Outcomes recorded together; events only count for the recipients the settlement moved. */
export interface OutcomeGroup {
  settlements: ReadonlyArray<{ id: number; settlement: RecipientSettlement }>;
  emailEvents: readonly EmailEventRecord[];
  /** In the order they are to be delivered to webhooks. */
  outbox: ReadonlyArray<{ recipientId: number; event: OutboxEvent }>;
}

export interface BroadcastLink {
  id: number;
  identifier: string;
  url: string;
}

export interface TrackedRecipient {
  id: number;
  channelId: number;
  broadcastId: number;
  messageId: string;
  status: string;
  deliveredAt: Date | null;
  openedAt: Date | null;
  clickedAt: Date | null;
  subscriber: SubscriberSnapshot;
}

export interface RecipientStore {
  /** Unscoped: jobs carry only the id. */
  findBroadcast(id: number): Promise<Broadcast | null>;
  /**
   * Moves the broadcast only if it is still in one of `from` (a conditional UPDATE, so exactly
   * one of several racing dispatchers wins); bumps `version`. null when it was not in `from`.
   */
  transition(
    id: number,
    from: readonly BroadcastStatus[],
    to: BroadcastStatus,
    now: Date,
    patch?: { totalRecipients?: number; broadcastRecipientsCount?: number; beginSendAt?: Date; sentAt?: Date },
  ): Promise<Broadcast | null>;
  /**
   * Inserts the next batch of recipients (sendable subscribers with afterSubscriberId < id <=
   * upToSubscriberId, in id order) with INSERT … SELECT … ON CONFLICT DO NOTHING. Returns the
   * last subscriber id of the batch, or null when there was none left. A broadcast with
   * segment_ids goes to the members of `segments.definitions` (their union) only, none given
   * nobody; `segments.now` anchors their relative windows (within_days).
   */
  materialize(
    broadcast: Broadcast,
    afterSubscriberId: number,
    upToSubscriberId: number,
    batchSize: number,
    messageIdSuffix: string,
    segments?: { definitions: readonly SegmentDefinition[]; now: Date },
  ): Promise<number | null>;
  /** The lowest and highest subscriber id of the channel, to split queueing into ranges. */
  subscriberIdRange(channelId: number): Promise<{ min: number; max: number } | null>;
  countRecipients(broadcastId: number): Promise<number>;
  /**
   * Refreshes the planner's statistics after a large insert: without them a new broadcast's
   * recipients look like a handful of rows, and claims sort them all instead of walking the index.
   */
  refreshStatistics(): Promise<void>;
  setTotalRecipients(broadcastId: number, total: number): Promise<void>;
  /** A resend of a failed broadcast tries its failed recipients again (never the sent ones). */
  retryFailed(broadcastId: number): Promise<number>;
  /**
   * Claims up to `limit` recipients with FOR UPDATE SKIP LOCKED: pending and due, or claimed
   * under an expired lease. A recipient whose subscriber is no longer sendable is marked
   * `skipped` in the same statement and returned with `sendable` false. Only recipients with
   * an id above `afterId`: a worker walks the list forward instead of stepping over every
   * recipient already sent at each claim, and comes back to 0 for retries and lapsed leases.
   */
  claim(broadcastId: number, worker: string, now: Date, leaseUntil: Date, limit: number, afterId: number): Promise<ClaimedRecipient[]>;
  /** Gives back claims this worker will not send (paused, or its time slice ended). */
  release(worker: string, recipientIds: readonly number[]): Promise<void>;
  /** Heartbeat: keeps this worker's claims alive while it works. */
  extendLeases(broadcastId: number, worker: string, leaseUntil: Date): Promise<void>;
  progress(broadcastId: number, now: Date): Promise<SendProgress>;
  outcomeCounts(broadcastId: number): Promise<SendOutcomeCounts>;
  /**
   * One group commit of outcomes, in one statement, so it is atomic without a transaction of its
   * own: settles the recipients and records the email events and outbox events of those it
   * settled. Only still-claimed rows are settled; returns the ids that were (a row another
   * worker already settled is left alone, and gets no events).
   */
  settleWithEvents(group: OutcomeGroup): Promise<Set<number>>;
  addProgress(broadcastId: number, processed: number): Promise<void>;
  /** Upserts the broadcast's tracked links; returns every one of them. */
  saveLinks(broadcastId: number, links: ReadonlyArray<{ identifier: string; url: string }>): Promise<BroadcastLink[]>;
  /** Hard bounce: the subscriber is deactivated (unsubscribed_at untouched). */
  deactivateSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null>;
  /** Broadcasts in queueing or sending that nobody works on (no live lease) while work remains. */
  stalledBroadcasts(now: Date, queueingStaleBefore: Date): Promise<number[]>;

  /**
   * The broadcast's random link secret, created on first use (get-or-create in one statement,
   * so concurrent dispatchers agree on it).
   */
  trackingSecret(broadcastId: number, candidate: Uint8Array): Promise<Uint8Array>;
  /** A recipient with its broadcast's link secret, to verify a token that names it. */
  findTracked(recipientId: number): Promise<(TrackedRecipient & { secret: Uint8Array | null }) | null>;
  findLink(broadcastId: number, identifier: string): Promise<BroadcastLink | null>;
  markEngaged(recipientId: number, kind: 'opened' | 'clicked', at: Date): Promise<void>;
  /** null when the subscriber was already unsubscribed: the change happens once. */
  unsubscribeSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null>;
}

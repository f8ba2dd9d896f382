import type { BroadcastStatus, SegmentDefinition } from '@mailcast/domain';
import type { Broadcast } from './entities/broadcast';
import type { ClickContext, ClickMark, EmailEventRecord, OutboxEvent } from './entities/events';

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

/**
 * The broadcast's excluded segments' rules as they stand now (docs/topics.md, Audiences), and the
 * instant their relative windows (within_days) count from. Their members are never queued, and
 * one who entered such a segment after queueing is skipped at the claim.
 */
export interface ExcludedSegments {
  /** The broadcast's channel (engagement rules over "any broadcast" read that channel's). */
  channelId: number;
  definitions: readonly SegmentDefinition[];
  now: Date;
}

export interface ClaimedRecipient {
  id: number;
  broadcastId: number;
  messageId: string;
  attempts: number;
  /** False when the subscriber stopped being sendable since queueing: the row is already `skipped`. */
  sendable: boolean;
  subscriber: SubscriberSnapshot;
  /** The subject of a subject test it gets (its part's, or the winner's for the rest); null: none. */
  variant?: number | null;
}

export interface SendProgress {
  /** Pending and due now, or claimed with an expired lease. */
  claimable: number;
  /** Claimed under a live lease by any worker. */
  leased: number;
  /** The earliest retry of a delayed recipient, if any waits. */
  nextAttemptAt: Date | null;
  /** Pending and held until a subject test's winner releases them (docs/subject-tests.md). */
  held?: number;
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
  /** `refundAttempt`: held back by the server's sending limits or throttling answers, the attempt does not count. */
  | { status: 'pending'; nextAttemptAt: Date; error: string; refundAttempt?: boolean };

/** Outcomes recorded together; events only count for the recipients the settlement moved. */
export interface OutcomeGroup {
  /**
   * `serverId`: the server that answered (null: none did); `handed`: it answered at all. Both feed
   * the reputation guard's counters (docs/reputation-guard.md).
   */
  settlements: ReadonlyArray<{ id: number; settlement: RecipientSettlement; serverId?: number | null; handed?: boolean }>;
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
  /** The broadcast's status alone (a cheap look-up, polled while sending); null when it is gone. */
  statusOf(id: number): Promise<BroadcastStatus | null>;
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
   * Inserts the next batch of recipients of a broadcast to the whole channel (sendable
   * subscribers with afterSubscriberId < id <= upToSubscriberId, in id order) with
   * INSERT … SELECT … ON CONFLICT DO NOTHING; a suppressed address goes in as `skipped`, so it is
   * counted and never sent. Returns the last subscriber id of the batch and how many subscribers
   * it held, or null when there was none left. Only subscribers who receive the broadcast's
   * topic (if it has one) and are in none of `excluded` (docs/topics.md, Audiences).
   */
  materialize(
    broadcast: Broadcast,
    afterSubscriberId: number,
    upToSubscriberId: number,
    batchSize: number,
    messageIdSuffix: string,
    excluded?: ExcludedSegments,
  ): Promise<{ last: number; count: number } | null>;
  /**
   * Inserts the recipients of a broadcast with segment_ids in one INSERT … SELECT … ON CONFLICT
   * DO NOTHING: the sendable members of `segments.definitions` (their union, each subscriber
   * once; none given: nobody), suppressed ones as `skipped`. `segments.now` anchors the rules'
   * relative windows (within_days). The broadcast's topic and `excluded` narrow it as for
   * materialize. Returns how many rows it inserted.
   */
  materializeAudience(
    broadcast: Broadcast,
    messageIdSuffix: string,
    segments: { definitions: readonly SegmentDefinition[]; now: Date },
    excluded?: ExcludedSegments,
  ): Promise<number>;
  /** The lowest and highest subscriber id of the channel, to split queueing into ranges. */
  subscriberIdRange(channelId: number): Promise<{ min: number; max: number } | null>;
  countRecipients(broadcastId: number): Promise<number>;
  /**
   * Refreshes the planner's statistics of the recipients table when they are missing or
   * `queued` new rows are more than a tenth of the rows they describe: without them a large
   * new broadcast's recipients look like a handful of rows, and claims sort them all instead of
   * walking the index. Below that share the statistics are left to autovacuum, as for any other
   * insert. Returns whether it analysed.
   */
  refreshStatistics(queued: number): Promise<boolean>;
  setTotalRecipients(broadcastId: number, total: number): Promise<void>;
  /** A resend of a failed broadcast tries its failed recipients again (never the sent ones). */
  retryFailed(broadcastId: number): Promise<number>;
  /** The distinct `custom_data.timezone` strings of the broadcast's pending recipients (docs/broadcasts-and-sending.md). */
  pendingTimezones(broadcastId: number): Promise<string[]>;
  /**
   * Times each pending recipient (its next_attempt_at) by their `custom_data.timezone`: the
   * instant given for their zone as spelled, else `fallback`. Nobody is claimed before it.
   */
  timeRecipients(broadcastId: number, instants: ReadonlyMap<string, Date>, fallback: Date): Promise<number>;
  /**
   * Claims up to `limit` recipients with FOR UPDATE SKIP LOCKED: pending and due at `now` (the
   * application clock, which set their retry time), or claimed under a lease that has lapsed
   * in database time. Each claim gets a lease of `leaseMs` from the database's clock, so no
   * two dispatchers need agree on the time. A recipient whose subscriber is no longer sendable
   * (or whose address is now suppressed, who no longer receives the broadcast's topic, or who is
   * now in one of `excluded`: docs/topics.md, Audiences) is marked `skipped` in the same
   * statement and returned with `sendable` false. Only
   * recipients with an id above `afterId`: a worker walks the list forward instead of stepping
   * over every recipient already sent at each claim, and comes back to 0 for retries and
   * lapsed leases.
   */
  claim(
    broadcastId: number,
    worker: string,
    now: Date,
    leaseMs: number,
    limit: number,
    afterId: number,
    excluded?: ExcludedSegments,
  ): Promise<ClaimedRecipient[]>;
  /** Gives back every claim the worker still holds on the broadcast (it will not send them). */
  release(broadcastId: number, worker: string): Promise<void>;
  /** Heartbeat: this worker's claims last `leaseMs` more, in database time. */
  extendLeases(broadcastId: number, worker: string, leaseMs: number): Promise<void>;
  /** Leases are judged in database time; `now` only for retries that are due. */
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
  /**
   * Broadcasts in queueing or sending that nobody works on (no live lease, in database time)
   * while work remains.
   */
  stalledBroadcasts(now: Date, queueingStaleBefore: Date): Promise<number[]>;

  /**
   * The broadcast's random link secret, created on first use (get-or-create in one statement,
   * so concurrent dispatchers agree on it).
   */
  trackingSecret(broadcastId: number, candidate: Uint8Array): Promise<Uint8Array>;
  /**
   * A recipient with its broadcast's link secret, to verify a token that names it. `forUpdate`
   * locks the recipient's row until the transaction ends, so what the transaction reads next
   * includes everything an earlier holder of the lock committed.
   */
  findTracked(recipientId: number, options?: { forUpdate?: boolean }): Promise<(TrackedRecipient & { secret: Uint8Array | null }) | null>;
  findLink(broadcastId: number, identifier: string): Promise<BroadcastLink | null>;
  /**
   * Records an open or a click of `linkId` at `at` unless one was recorded after `windowStart`
   * (the same link, for a click): true when this one counts. Keeps the first open and click.
   */
  markEngaged(recipientId: number, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<boolean>;
  /**
   * markEngaged for a click, answering in the same statement the email's click context
   * (docs/engagement.md): its broadcast's link count and the recipient's clicks at or after
   * `contextSince`. null when the click is a repeat inside the window.
   */
  markClicked(click: ClickMark): Promise<ClickContext | null>;
  /** null when the subscriber was already unsubscribed: the change happens once. */
  unsubscribeSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null>;
}

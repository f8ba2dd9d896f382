import type {
  Broadcast,
  BroadcastLink,
  ClaimedRecipient,
  ClickContext,
  ClickMark,
  ExcludedSegments,
  OutcomeGroup,
  RecipientSettlement,
  RecipientStore,
  SendOutcomeCounts,
  SendProgress,
  SubscriberSnapshot,
  TrackedRecipient,
} from '@mailcast/core';
import type { BroadcastStatus } from '@mailcast/domain';
import type { Knex } from 'knex';
import { isSealed, type SecretBox } from '../secrets/secret-box';
import { prepared } from './database';
import { emailEventBindings, EMAIL_EVENT_INPUT, RECORD_EMAIL_EVENTS } from './pg-email-events';
import { toBroadcast, type BroadcastRow } from './pg-broadcast.repository';
import { PgRecipientQueueing } from './pg-recipient-queueing';
import { markClicked, markEngaged } from './recipient-engagement';
import { exclusionFilter, RECEIVES_TOPIC } from './audience-sql';
import { CLAIMABLE, LEASE_UNTIL, SENDABLE, SUBSCRIBER_COLUMNS, SUPPRESSED, toSubscriber, type SubscriberRow } from './recipient-sql';

export class PgRecipientStore extends PgRecipientQueueing implements RecipientStore {
  /** The broadcast's tracking secret is sealed at rest (docs/secrets.md). */
  constructor(
    db: Knex,
    private readonly secrets: SecretBox,
  ) {
    super(db);
  }

  async findBroadcast(id: number): Promise<Broadcast | null> {
    const row = await prepared('find_broadcast', this.db<BroadcastRow>('broadcasts').where({ id }).first());
    return row ? toBroadcast(row) : null;
  }

  async statusOf(id: number): Promise<BroadcastStatus | null> {
    const row = await prepared('broadcast_status', this.db<BroadcastRow>('broadcasts').where({ id }).first('status'));
    return row ? (row.status as BroadcastStatus) : null;
  }

  async transition(
    id: number,
    from: readonly BroadcastStatus[],
    to: BroadcastStatus,
    now: Date,
    patch: { totalRecipients?: number; broadcastRecipientsCount?: number; beginSendAt?: Date; sentAt?: Date } = {},
  ): Promise<Broadcast | null> {
    const set: Record<string, unknown> = { status: to, updated_at: now, version: this.db.raw('version + 1') };
    if (patch.totalRecipients !== undefined) set.total_recipients = patch.totalRecipients;
    if (patch.broadcastRecipientsCount !== undefined) set.broadcast_recipients_count = patch.broadcastRecipientsCount;
    if (patch.beginSendAt !== undefined) set.begin_send_at = patch.beginSendAt;
    if (patch.sentAt !== undefined) set.sent_at = patch.sentAt;
    const [row] = await this.db('broadcasts')
      .where({ id })
      .whereIn('status', [...from])
      .update(set)
      .returning('*');
    return row ? toBroadcast(row as BroadcastRow) : null;
  }

  async subscriberIdRange(channelId: number): Promise<{ min: number; max: number } | null> {
    const { rows } = await this.db.raw<{ rows: { min: number | null; max: number | null }[] }>(
      `SELECT min(s.id) AS min, max(s.id) AS max FROM subscribers s WHERE s.channel_id = ? AND ${SENDABLE}`,
      [channelId],
    );
    const row = rows[0];
    return row && row.min !== null && row.max !== null ? { min: Number(row.min), max: Number(row.max) } : null;
  }

  async countRecipients(broadcastId: number): Promise<number> {
    const row = await this.db('broadcast_recipients').where({ broadcast_id: broadcastId }).count<{ count: number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }

  async setTotalRecipients(broadcastId: number, total: number): Promise<void> {
    await this.db('broadcasts').where({ id: broadcastId }).update({ total_recipients: total });
  }

  async claim(
    broadcastId: number,
    worker: string,
    now: Date,
    leaseMs: number,
    limit: number,
    afterId: number,
    excluded?: ExcludedSegments,
  ): Promise<ClaimedRecipient[]> {
    // Judged again at the claim, right before the hand-off to SMTP (docs/topics.md, Audiences):
    // still sendable, not suppressed, still receiving the broadcast's topic (its row joined once
    // through the broadcast), in none of the excluded segments. The segments' rules make the
    // statement's text vary, so only a claim without exclusions is a prepared statement.
    // MATERIALIZED: inlined, the verdict was computed again for each of the four columns set
    // from it (docs/topics.md, Audiences).
    const exclusion = exclusionFilter(this.db, excluded);
    const sql = `WITH picked AS (
         SELECT r.id FROM broadcast_recipients r
          WHERE r.broadcast_id = :broadcastId AND r.id > :afterId AND ${CLAIMABLE}
          ORDER BY r.id
          LIMIT :limit
          FOR UPDATE SKIP LOCKED
       ), judged AS MATERIALIZED (
         SELECT p.id, (${SENDABLE} AND NOT ${SUPPRESSED} AND (t.id IS NULL OR ${RECEIVES_TOPIC})${exclusion.condition}) AS sendable
           FROM picked p
           JOIN broadcast_recipients r ON r.id = p.id
           JOIN subscribers s ON s.id = r.subscriber_id
           LEFT JOIN topics t ON t.id = (SELECT b.topic_id FROM broadcasts b WHERE b.id = :broadcastId)
       )
       UPDATE broadcast_recipients r
          SET status = CASE WHEN j.sendable THEN 'claimed' ELSE 'skipped' END,
              claimed_by = CASE WHEN j.sendable THEN :worker END,
              lease_expires_at = CASE WHEN j.sendable THEN ${LEASE_UNTIL} END,
              attempts = r.attempts + CASE WHEN j.sendable THEN 1 ELSE 0 END
         FROM judged j, subscribers s
        WHERE r.id = j.id AND s.id = r.subscriber_id
       RETURNING r.id, r.message_id, r.attempts, r.status, ${SUBSCRIBER_COLUMNS},
                 coalesce(r.ab_variant, (SELECT b.ab_winner FROM broadcasts b WHERE b.id = :broadcastId)) AS variant`;
    type Row = SubscriberRow & { id: number; message_id: string; attempts: number; status: string; variant: number | null };
    const query = this.db.raw<{ rows: Row[] }>(sql, { broadcastId, now, limit, worker, leaseMs, afterId, ...exclusion.bindings });
    const { rows } = await (exclusion.condition === '' ? prepared('claim_recipients', query) : query);
    return rows
      .map((row) => ({
        id: row.id,
        broadcastId,
        messageId: row.message_id,
        attempts: row.attempts,
        sendable: row.status === 'claimed',
        subscriber: toSubscriber(row),
        variant: row.variant,
      }))
      .sort((a, b) => a.id - b.id);
  }

  async release(broadcastId: number, worker: string): Promise<void> {
    await this.db('broadcast_recipients')
      .where({ broadcast_id: broadcastId, status: 'claimed', claimed_by: worker })
      .update({ status: 'pending', claimed_by: null, lease_expires_at: null, attempts: this.db.raw('attempts - 1') });
  }

  async extendLeases(broadcastId: number, worker: string, leaseMs: number): Promise<void> {
    // SKIP LOCKED: a row being settled right now needs no lease, and waiting for it could
    // deadlock with the settling transaction.
    await prepared(
      'extend_leases',
      this.db.raw(
        `UPDATE broadcast_recipients SET lease_expires_at = ${LEASE_UNTIL}
        WHERE id IN (SELECT id FROM broadcast_recipients
                      WHERE broadcast_id = :broadcastId AND status = 'claimed' AND claimed_by = :worker
                      ORDER BY id FOR UPDATE SKIP LOCKED)`,
        { broadcastId, worker, leaseMs },
      ),
    );
  }

  async progress(broadcastId: number, now: Date): Promise<SendProgress> {
    // Rows a subject test holds ('infinity', docs/subject-tests.md) are no next attempt: the decision releases them.
    const { rows } = await this.db.raw<{ rows: { claimable: number; leased: number; next_at: Date | null; held: number }[] }>(
      `SELECT count(*) FILTER (WHERE ${CLAIMABLE}) AS claimable,
              count(*) FILTER (WHERE r.status = 'claimed' AND r.lease_expires_at > now()) AS leased,
              min(r.next_attempt_at) FILTER (WHERE r.status = 'pending' AND r.next_attempt_at > :now AND r.next_attempt_at <> 'infinity') AS next_at,
              count(*) FILTER (WHERE r.status = 'pending' AND r.next_attempt_at = 'infinity') AS held
         FROM broadcast_recipients r
        WHERE r.broadcast_id = :broadcastId AND r.status IN ('pending', 'claimed')`,
      { broadcastId, now },
    );
    const row = rows[0]!;
    return { claimable: Number(row.claimable), leased: Number(row.leased), nextAttemptAt: row.next_at, held: Number(row.held) };
  }

  async outcomeCounts(broadcastId: number): Promise<SendOutcomeCounts> {
    const { rows } = await this.db.raw<{ rows: Record<keyof SendOutcomeCounts, string>[] }>(
      `SELECT count(*) FILTER (WHERE status = 'sent') AS accepted,
              count(*) FILTER (WHERE status IN ('failed', 'bounced')) AS failed,
              count(*) FILTER (WHERE status IN ('sent', 'failed', 'bounced', 'skipped')) AS processed,
              count(*) AS total
         FROM broadcast_recipients WHERE broadcast_id = ?`,
      [broadcastId],
    );
    const row = rows[0]!;
    return { accepted: Number(row.accepted), failed: Number(row.failed), processed: Number(row.processed), total: Number(row.total) };
  }

  async settleWithEvents(group: OutcomeGroup): Promise<Set<number>> {
    if (group.settlements.length === 0) return new Set();
    // In id order, like every other statement that locks several recipients: no deadlocks.
    const sorted = [...group.settlements].sort((a, b) => a.id - b.id);
    const column = <T>(pick: (s: RecipientSettlement) => T) => sorted.map(({ settlement }) => pick(settlement));
    const outbox = group.outbox;
    // claimed_by stays: it tells which worker settled the recipient. Arrays through unnest, not
    // a JSON document: the prepared plan must look rows up by id (an unnest is estimated at ten
    // rows, jsonb_to_recordset at a hundred, which tipped a small table to a sequential scan).
    // The data-modifying CTEs run once each, whether or not the final SELECT reads them.
    const { rows } = await prepared(
      'settle_recipients_with_events',
      this.db.raw<{ rows: { id: number }[] }>(
        `WITH settled AS (
           UPDATE broadcast_recipients r
              SET status = v.status,
                  lease_expires_at = NULL,
                  sent_at = CASE WHEN v.status = 'sent' THEN v.at ELSE r.sent_at END,
                  delivered_at = CASE WHEN v.status = 'sent' THEN v.at ELSE r.delivered_at END,
                  failed_at = CASE WHEN v.status IN ('failed', 'bounced') THEN v.at ELSE r.failed_at END,
                  next_attempt_at = v.next_attempt_at,
                  error = v.error,
                  attempts = r.attempts - v.refund,
                  email_server_id = COALESCE(v.server_id, r.email_server_id)
             FROM unnest(CAST(:ids AS bigint[]), CAST(:statuses AS text[]), CAST(:ats AS timestamptz[]),
                         CAST(:nextAttempts AS timestamptz[]), CAST(:errors AS text[]), CAST(:refunds AS int[]),
                         CAST(:serverIds AS bigint[]), CAST(:handeds AS boolean[]))
                  AS v(id, status, at, next_attempt_at, error, refund, server_id, handed)
            WHERE r.id = v.id AND r.status = 'claimed'
           RETURNING r.id, r.broadcast_id, v.status, v.at, v.server_id, v.handed
         ),
         -- The reputation guard's counters (docs/reputation-guard.md): per server and hour what it
         -- answered and its hard bounces; per broadcast its hard bounces (its sends are the
         -- statistics' processed counter). Same shard as the group's statistics rows.
         server_counts AS (
           INSERT INTO email_server_reputation AS e (email_server_id, hour, shard, sent, hard_bounces)
           SELECT s.server_id, date_bin(INTERVAL '1 hour', s.at, TIMESTAMPTZ 'epoch'), CAST(:shard AS smallint),
                  count(*) FILTER (WHERE s.handed), count(*) FILTER (WHERE s.status = 'bounced')
             FROM settled s WHERE s.server_id IS NOT NULL AND s.status <> 'pending'
            GROUP BY 1, 2 ORDER BY 1, 2
           ON CONFLICT (email_server_id, hour, shard) DO UPDATE
              SET sent = e.sent + excluded.sent, hard_bounces = e.hard_bounces + excluded.hard_bounces
         ),
         broadcast_counts AS (
           INSERT INTO broadcast_reputation AS b (broadcast_id, shard, hard_bounces)
           SELECT s.broadcast_id, CAST(:shard AS smallint), count(*) FROM settled s WHERE s.status = 'bounced'
            GROUP BY 1 ORDER BY 1
           ON CONFLICT (broadcast_id, shard) DO UPDATE SET hard_bounces = b.hard_bounces + excluded.hard_bounces
         ),
         outbox AS (
           INSERT INTO events (channel_id, type, data, created_at)
           SELECT o.channel_id, o.type, o.data, o.created_at
             FROM unnest(CAST(:outboxRecipients AS bigint[]), CAST(:outboxChannels AS bigint[]), CAST(:outboxTypes AS text[]),
                         CAST(:outboxDatas AS jsonb[]), CAST(:outboxCreatedAts AS timestamptz[]))
                  WITH ORDINALITY AS o(recipient_id, channel_id, type, data, created_at, n)
            WHERE o.recipient_id IN (SELECT id FROM settled)
            ORDER BY o.n
         ),
         input AS (SELECT * FROM ${EMAIL_EVENT_INPUT} WHERE i.recipient_id IN (SELECT id FROM settled)),
         ${RECORD_EMAIL_EVENTS}
         SELECT id FROM settled`,
        {
          ids: sorted.map((s) => s.id),
          statuses: column((s) => s.status),
          ats: column((s) => (s.status === 'pending' ? null : s.at)),
          nextAttempts: column((s) => (s.status === 'pending' ? s.nextAttemptAt : null)),
          errors: column((s) => (s.status === 'sent' ? null : s.error)),
          refunds: column((s) => (s.status === 'pending' && s.refundAttempt === true ? 1 : 0)),
          serverIds: sorted.map((s) => s.serverId ?? null),
          handeds: sorted.map((s) => s.handed === true),
          outboxRecipients: outbox.map((o) => o.recipientId),
          outboxChannels: outbox.map((o) => o.event.channelId),
          outboxTypes: outbox.map((o) => o.event.type),
          outboxDatas: outbox.map((o) => JSON.stringify(o.event.data)),
          outboxCreatedAts: outbox.map((o) => o.event.createdAt),
          ...emailEventBindings(group.emailEvents),
        },
      ),
    );
    return new Set(rows.map((r) => r.id));
  }

  async addProgress(broadcastId: number, processed: number): Promise<void> {
    await prepared(
      'add_progress',
      this.db('broadcasts')
        .where({ id: broadcastId })
        .update({ broadcast_recipients_count: this.db.raw('broadcast_recipients_count + ?', [processed]) }),
    );
  }

  async retryFailed(broadcastId: number): Promise<number> {
    return this.db('broadcast_recipients')
      .where({ broadcast_id: broadcastId, status: 'failed' })
      .update({ status: 'pending', attempts: 0, next_attempt_at: null, failed_at: null, error: null });
  }

  async saveLinks(broadcastId: number, links: ReadonlyArray<{ identifier: string; url: string }>): Promise<BroadcastLink[]> {
    if (links.length > 0) {
      await this.db('broadcast_links')
        .insert(links.map((l) => ({ broadcast_id: broadcastId, identifier: l.identifier, url: l.url })))
        .onConflict()
        .ignore();
    }
    return this.db('broadcast_links').where({ broadcast_id: broadcastId }).select('id', 'identifier', 'url');
  }

  async deactivateSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null> {
    const { rows } = await this.db.raw<{ rows: SubscriberRow[] }>(
      `UPDATE subscribers s SET is_active = false, updated_at = :now WHERE s.id = :subscriberId
       RETURNING ${SUBSCRIBER_COLUMNS}`,
      { subscriberId, now },
    );
    return rows[0] ? toSubscriber(rows[0]) : null;
  }

  async unsubscribeSubscriber(subscriberId: number, now: Date): Promise<SubscriberSnapshot | null> {
    const { rows } = await this.db.raw<{ rows: SubscriberRow[] }>(
      `UPDATE subscribers s SET is_active = false, unsubscribed_at = :now, updated_at = :now
        WHERE s.id = :subscriberId AND (s.is_active OR s.unsubscribed_at IS NULL)
       RETURNING ${SUBSCRIBER_COLUMNS}`,
      { subscriberId, now },
    );
    return rows[0] ? toSubscriber(rows[0]) : null;
  }

  async stalledBroadcasts(now: Date, queueingStaleBefore: Date): Promise<number[]> {
    const { rows } = await this.db.raw<{ rows: { id: number }[] }>(
      `SELECT b.id FROM broadcasts b
        WHERE (b.status IN ('scheduled', 'queueing') AND b.updated_at < :staleBefore)
           OR (b.status = 'sending'
               AND NOT EXISTS (SELECT 1 FROM broadcast_recipients r
                                WHERE r.broadcast_id = b.id AND r.status = 'claimed' AND r.lease_expires_at > now())
               AND (EXISTS (SELECT 1 FROM broadcast_recipients r WHERE r.broadcast_id = b.id AND ${CLAIMABLE})
                    OR NOT EXISTS (SELECT 1 FROM broadcast_recipients r
                                    WHERE r.broadcast_id = b.id AND r.status IN ('pending', 'claimed'))))
        ORDER BY b.id
        LIMIT 100`,
      { now, staleBefore: queueingStaleBefore },
    );
    return rows.map((r) => r.id);
  }

  async trackingSecret(broadcastId: number, candidate: Uint8Array): Promise<Uint8Array> {
    const { rows } = await this.db.raw<{ rows: { secret: string }[] }>(
      `UPDATE broadcasts SET tracking_secret = COALESCE(tracking_secret, ?) WHERE id = ? RETURNING tracking_secret AS secret`,
      [this.secrets.seal('broadcasts.tracking_secret', candidate), broadcastId],
    );
    if (!rows[0]) throw new Error(`broadcast ${broadcastId} does not exist`);
    return this.openTrackingSecret(rows[0].secret);
  }

  /** A secret from before sealing is the base64 of its bytes (the column was bytea). */
  private openTrackingSecret(stored: string): Buffer {
    return isSealed(stored) ? this.secrets.open('broadcasts.tracking_secret', stored) : Buffer.from(stored, 'base64');
  }

  async findTracked(recipientId: number, options: { forUpdate?: boolean } = {}): Promise<(TrackedRecipient & { secret: Uint8Array | null }) | null> {
    const { rows } = await this.db.raw<{
      rows: Array<
        SubscriberRow & {
          id: number;
          channel_id: number;
          broadcast_id: number;
          message_id: string;
          status: string;
          delivered_at: Date | null;
          opened_at: Date | null;
          clicked_at: Date | null;
          tracking_secret: string | null;
        }
      >;
    }>(
      `SELECT r.id, b.channel_id, r.broadcast_id, r.message_id, r.status, r.delivered_at, r.opened_at, r.clicked_at,
              b.tracking_secret, ${SUBSCRIBER_COLUMNS}
         FROM broadcast_recipients r
         JOIN broadcasts b ON b.id = r.broadcast_id
         JOIN subscribers s ON s.id = r.subscriber_id
        WHERE r.id = ?${options.forUpdate ? ' FOR UPDATE OF r' : ''}`,
      [recipientId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: row.id,
      channelId: row.channel_id,
      broadcastId: row.broadcast_id,
      messageId: row.message_id,
      status: row.status,
      deliveredAt: row.delivered_at,
      openedAt: row.opened_at,
      clickedAt: row.clicked_at,
      subscriber: toSubscriber(row),
      secret: row.tracking_secret === null ? null : this.openTrackingSecret(row.tracking_secret),
    };
  }

  async findLink(broadcastId: number, identifier: string): Promise<BroadcastLink | null> {
    const row = await this.db('broadcast_links').where({ broadcast_id: broadcastId, identifier }).first('id', 'identifier', 'url');
    return (row as BroadcastLink | undefined) ?? null;
  }

  async markEngaged(recipientId: number, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<boolean> {
    return markEngaged(this.db, recipientId, kind, at, windowStart, linkId);
  }

  async markClicked(click: ClickMark): Promise<ClickContext | null> {
    return markClicked(this.db, click);
  }
}

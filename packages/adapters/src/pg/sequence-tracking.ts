import type { SequenceEngagement, SubscriberSnapshot, TrackedSequenceEmail } from '@mailcast/core';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { AGGREGATE_SHARDS } from './pg-email-events';
import { SUBSCRIBER_COLUMNS, toSubscriber, type SubscriberRow } from './recipient-sql';

const SECRET = 'sequences.unsubscribe_secret';

interface TrackedRow extends SubscriberRow {
  channel_id: number;
  sequence_id: number;
  secret: string | null;
  ran: boolean;
  opened_at: Date | null;
  clicked_at: Date | null;
  message_id: string | null;
  delivered_at: Date | null;
}

/**
 * What a sequence email's links reach after it was sent (docs/sequences.md, "Tracking" and
 * "Statistics"): the unsubscribe link's and the tracking routes' reads and writes.
 */
export class PgSequenceTracking {
  constructor(
    private readonly db: Knex,
    private readonly secrets?: SecretBox,
  ) {}

  private open(sealed: string | null): Uint8Array | null {
    return sealed === null || this.secrets === undefined ? null : this.secrets.open(SECRET, sealed);
  }

  async findUnsubscribeTarget(
    enrolmentId: number,
  ): Promise<{ channelId: number; sequenceId: number; subscriber: SubscriberSnapshot; secret: Uint8Array | null } | null> {
    const { rows } = await this.db.raw<{ rows: Array<SubscriberRow & { channel_id: number; sequence_id: number; secret: string | null }> }>(
      `SELECT e.channel_id, e.sequence_id, q.unsubscribe_secret AS secret, ${SUBSCRIBER_COLUMNS}
         FROM subscriber_sequences e JOIN sequences q ON q.id = e.sequence_id JOIN subscribers s ON s.id = e.subscriber_id
        WHERE e.id = ?`,
      [enrolmentId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      channelId: Number(row.channel_id),
      sequenceId: Number(row.sequence_id),
      subscriber: toSubscriber({ ...row, subscriber_id: Number(row.subscriber_id) }),
      secret: this.open(row.secret),
    };
  }

  /** One (step, counter) increment: `recipients` only for a subscriber's first of the kind. */
  private async count(stepId: number, enrolmentId: number, counter: string, first: boolean): Promise<void> {
    await this.db.raw(
      `INSERT INTO sequence_step_statistics AS t (step_id, counter, shard, recipients, events)
       SELECT id, :counter, :shard, :recipients, 1 FROM sequence_steps WHERE id = :stepId
       ON CONFLICT (step_id, counter, shard) DO UPDATE SET recipients = t.recipients + excluded.recipients, events = t.events + 1`,
      { counter, shard: enrolmentId % AGGREGATE_SHARDS, recipients: first ? 1 : 0, stepId },
    );
  }

  async recordUnsubscribe(t: { channelId: number; sequenceId: number; subscriberId: number; enrolmentId: number; stepId: number }, at: Date): Promise<void> {
    await this.db('email_events').insert({
      channel_id: t.channelId,
      subscriber_id: t.subscriberId,
      type: 'unsubscribed',
      occurred_at: at,
      data: '{}',
      sequence_id: t.sequenceId,
      sequence_step_id: t.stepId,
    });
    await this.count(t.stepId, t.enrolmentId, 'unsubscribed', true);
  }

  async findTrackedEmail(enrolmentId: number, stepId: number): Promise<TrackedSequenceEmail | null> {
    // The email's outcome row (email_events_sequence_subscriber: the subscriber's sequence
    // events, newest first) gives its Message-ID and, accepted, its delivery time.
    const { rows } = await this.db.raw<{ rows: TrackedRow[] }>(
      `SELECT e.channel_id, e.sequence_id, q.unsubscribe_secret AS secret, ${SUBSCRIBER_COLUMNS},
              r.enrolment_id IS NOT NULL AS ran, r.opened_at, r.clicked_at, o.message_id, o.delivered_at
         FROM subscriber_sequences e JOIN sequences q ON q.id = e.sequence_id JOIN subscribers s ON s.id = e.subscriber_id
         LEFT JOIN sequence_step_runs r ON r.enrolment_id = e.id AND r.step_id = :stepId
         LEFT JOIN LATERAL (
           SELECT v.data->>'message_id' AS message_id, CASE WHEN v.type = 'delivered' THEN v.occurred_at END AS delivered_at
             FROM email_events v
            WHERE v.subscriber_id = e.subscriber_id AND v.sequence_id IS NOT NULL AND v.sequence_step_id = :stepId
              AND v.type IN ('delivered', 'bounced', 'failed')
            ORDER BY v.occurred_at DESC LIMIT 1
         ) o ON true
        WHERE e.id = :enrolmentId`,
      { enrolmentId, stepId },
    );
    const row = rows[0];
    if (!row) return null;
    return {
      channelId: Number(row.channel_id),
      sequenceId: Number(row.sequence_id),
      enrolmentId,
      stepId,
      subscriber: toSubscriber({ ...row, subscriber_id: Number(row.subscriber_id) }),
      secret: this.open(row.secret),
      ran: row.ran,
      messageId: row.message_id,
      deliveredAt: row.delivered_at,
      openedAt: row.opened_at,
      clickedAt: row.clicked_at,
    };
  }

  async findStepLink(stepId: number, identifier: string): Promise<{ id: number; url: string } | null> {
    const row = (await this.db('sequence_step_links').where({ step_id: stepId, identifier }).first('id', 'url')) as { id: number; url: string } | undefined;
    return row === undefined ? null : { id: Number(row.id), url: row.url };
  }

  async markEmailEngaged(
    t: TrackedSequenceEmail,
    kind: 'opened' | 'clicked',
    at: Date,
    windowStart: Date,
    linkId?: number,
  ): Promise<{ first: boolean } | null> {
    // One statement decides, so two loads at once cannot both count (as a broadcast recipient's, migration 20261204500000).
    const sql =
      kind === 'opened'
        ? `UPDATE sequence_step_runs r SET opened_at = COALESCE(r.opened_at, :at), last_opened_at = :at
            FROM sequence_step_runs old
           WHERE r.enrolment_id = :enrolmentId AND r.step_id = :stepId AND old.enrolment_id = r.enrolment_id AND old.step_id = r.step_id
             AND (r.last_opened_at IS NULL OR r.last_opened_at <= :windowStart)
          RETURNING old.opened_at IS NULL AS first`
        : `UPDATE sequence_step_runs r SET clicked_at = COALESCE(r.clicked_at, :at), last_clicked_at = :at, last_clicked_link_id = :link
            FROM sequence_step_runs old
           WHERE r.enrolment_id = :enrolmentId AND r.step_id = :stepId AND old.enrolment_id = r.enrolment_id AND old.step_id = r.step_id
             AND (r.last_clicked_at IS NULL OR r.last_clicked_at <= :windowStart OR r.last_clicked_link_id IS DISTINCT FROM :link)
          RETURNING old.clicked_at IS NULL AS first`;
    const { rows } = await this.db.raw<{ rows: Array<{ first: boolean }> }>(sql, {
      at,
      windowStart,
      enrolmentId: t.enrolmentId,
      stepId: t.stepId,
      link: linkId ?? null,
    });
    return rows[0] ? { first: rows[0].first } : null;
  }

  async recordEngagement(t: TrackedSequenceEmail, event: SequenceEngagement): Promise<void> {
    await this.db('email_events').insert({
      channel_id: t.channelId,
      subscriber_id: t.subscriber.id,
      type: event.kind,
      occurred_at: event.at,
      data: JSON.stringify(event.url === undefined ? {} : { url: event.url }),
      sequence_id: t.sequenceId,
      sequence_step_id: t.stepId,
      machine: event.machine,
      machine_reason: event.machineReason,
    });
    await this.count(t.stepId, t.enrolmentId, event.kind, event.first);
  }

  /** Kept links stay: an identifier is its URL's hash, so a stored one never changes meaning. */
  async saveStepLinks(links: ReadonlyArray<{ stepId: number; identifier: string; url: string }>): Promise<void> {
    await this.db.raw(
      `INSERT INTO sequence_step_links (step_id, identifier, url)
       SELECT l.step_id, l.identifier, l.url FROM jsonb_to_recordset(?::jsonb) AS l(step_id bigint, identifier text, url text)
        ORDER BY l.step_id, l.identifier
       ON CONFLICT (step_id, identifier) DO NOTHING`,
      [JSON.stringify(links.map((l) => ({ step_id: l.stepId, identifier: l.identifier, url: l.url })))],
    );
  }
}

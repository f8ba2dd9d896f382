import type { HistoryEntry, HistoryKind, HistoryStatus, SubscriberHistoryReader } from '@mailcast/core';
import type { Knex } from 'knex';

interface Row {
  kind: HistoryKind;
  id: string | null;
  sequence_id: string | null;
  subject: string | null;
  status: HistoryStatus;
  sent_at: Date | null;
  opened_at: Date | null;
  clicked_at: Date | null;
  human_opened: boolean | null;
  machine_opened: boolean | null;
  human_clicked: boolean | null;
  machine_clicked: boolean | null;
  bounced: boolean;
  bounce_reason: string | null;
  message_id: string | null;
}

/**
 * Every email of one subscriber, the three kinds in one ordered list (docs/subscribers.md,
 * "History"). Each branch starts from the subscriber: broadcasts through the channel's
 * broadcasts and the unique (broadcast_id, subscriber_id) key, transactionals and sequence
 * emails through the indexes of migration 20261203800000. A subscriber's emails are few (one
 * per broadcast and step at most), so the union is sorted whole and paged with OFFSET.
 * `at` orders it: when the email went, else when it was given up, else when it was queued.
 */
const HISTORY = `
  WITH mine AS MATERIALIZED (
    -- The subscriber's sequence email events, once, through their partial index: the first open
    -- and click of each email are then looked up here, never among all of a step's events.
    SELECT v.sequence_id, v.sequence_step_id, v.type, v.occurred_at, v.data, v.machine FROM email_events v
     WHERE v.subscriber_id = :subscriberId AND v.sequence_id IS NOT NULL AND v.channel_id = :channelId)
  SELECT 'broadcast' AS kind, b.id, NULL::bigint AS sequence_id, b.subject,
         CASE WHEN r.status IN ('pending', 'claimed') THEN 'queued' ELSE r.status END AS status,
         r.sent_at, r.opened_at, r.clicked_at, m.human_opened, m.machine_opened, m.human_clicked, m.machine_clicked,
         r.status = 'bounced' AS bounced,
         CASE WHEN r.status = 'bounced' THEN r.error END AS bounce_reason, r.message_id,
         coalesce(r.sent_at, r.failed_at, r.next_attempt_at, b.begin_send_at, b.updated_at) AS at
    FROM broadcasts b
    JOIN broadcast_recipients r ON r.broadcast_id = b.id AND r.subscriber_id = :subscriberId
    -- Whose the opens and clicks were: only for a recipient that has one, through the
    -- (broadcast_id, type, recipient_id) index.
    LEFT JOIN LATERAL (
      SELECT bool_or(e.type = 'opened' AND e.machine IS FALSE) AS human_opened, bool_or(e.type = 'opened' AND e.machine) AS machine_opened,
             bool_or(e.type = 'clicked' AND e.machine IS FALSE) AS human_clicked, bool_or(e.type = 'clicked' AND e.machine) AS machine_clicked
        FROM email_events e
       WHERE (r.opened_at IS NOT NULL OR r.clicked_at IS NOT NULL)
         AND e.broadcast_id = b.id AND e.type IN ('opened', 'clicked') AND e.recipient_id = r.id) m ON true
   WHERE b.channel_id = :channelId
  UNION ALL
  SELECT 'transactional', t.id, NULL, t.subject,
         CASE t.status WHEN 'delivered' THEN 'sent' WHEN 'awaiting_confirmation' THEN 'queued' WHEN 'suppressed' THEN 'skipped' ELSE t.status END,
         t.sent_at, NULL, NULL, false, false, false, false, t.status = 'bounced', CASE WHEN t.status = 'bounced' THEN t.error END, t.message_id,
         coalesce(t.sent_at, t.created_at)
    FROM transactionals t
   WHERE t.subscriber_id = :subscriberId AND t.channel_id = :channelId
  UNION ALL
  SELECT 'sequence', v.sequence_step_id, v.sequence_id, st.settings->>'subject',
         CASE v.type WHEN 'delivered' THEN 'sent' ELSE v.type END,
         CASE WHEN v.type <> 'failed' THEN v.occurred_at END,
         (SELECT min(o.occurred_at) FROM mine o WHERE o.sequence_step_id = v.sequence_step_id AND o.type = 'opened' AND o.occurred_at >= v.occurred_at),
         (SELECT min(o.occurred_at) FROM mine o WHERE o.sequence_step_id = v.sequence_step_id AND o.type = 'clicked' AND o.occurred_at >= v.occurred_at),
         m.human_opened, m.machine_opened, m.human_clicked, m.machine_clicked,
         v.type = 'bounced', CASE WHEN v.type = 'bounced' THEN v.data->>'reason' END, v.data->>'message_id',
         v.occurred_at
    FROM mine v
    LEFT JOIN sequence_steps st ON st.id = v.sequence_step_id
    LEFT JOIN LATERAL (
      SELECT bool_or(o.type = 'opened' AND o.machine IS FALSE) AS human_opened, bool_or(o.type = 'opened' AND o.machine) AS machine_opened,
             bool_or(o.type = 'clicked' AND o.machine IS FALSE) AS human_clicked, bool_or(o.type = 'clicked' AND o.machine) AS machine_clicked
        FROM mine o WHERE o.sequence_step_id = v.sequence_step_id AND o.type IN ('opened', 'clicked') AND o.occurred_at >= v.occurred_at) m ON true
    -- Each sequence email ends in exactly one of these (docs/sequences.md, Runtime).
   WHERE v.type IN ('delivered', 'bounced', 'failed')`;

export class PgSubscriberHistory implements SubscriberHistoryReader {
  constructor(private readonly db: Knex) {}

  async page(channelId: number, subscriberId: number, page: { limit: number; offset: number }): Promise<{ items: HistoryEntry[]; total: number }> {
    const bindings = { channelId, subscriberId, limit: page.limit, offset: page.offset };
    const [{ rows }, counted] = await Promise.all([
      this.db.raw<{ rows: Row[] }>(`SELECT h.* FROM (${HISTORY}) h ORDER BY h.at DESC, h.kind, h.id DESC NULLS LAST LIMIT :limit OFFSET :offset`, bindings),
      this.db.raw<{ rows: Array<{ total: string }> }>(`SELECT count(*) AS total FROM (${HISTORY}) h`, bindings),
    ]);
    return {
      total: Number(counted.rows[0]?.total ?? 0),
      items: rows.map((r) => ({
        kind: r.kind,
        id: r.id === null ? null : Number(r.id),
        sequenceId: r.sequence_id === null ? null : Number(r.sequence_id),
        subject: r.subject,
        status: r.status,
        sentAt: r.sent_at,
        openedAt: r.opened_at,
        clickedAt: r.clicked_at,
        engagedBy: {
          humanOpened: r.human_opened === true,
          machineOpened: r.machine_opened === true,
          humanClicked: r.human_clicked === true,
          machineClicked: r.machine_clicked === true,
        },
        bounced: r.bounced,
        bounceReason: r.bounce_reason,
        messageId: r.message_id,
      })),
    };
  }
}

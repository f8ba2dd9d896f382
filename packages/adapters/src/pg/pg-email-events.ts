import type { EmailEventKind, EmailEventRecord, EmailEvents } from '@mailcast/core';
import type { Knex } from 'knex';
import { prepared } from './database';

/**
 * Hot aggregate rows are split into AGGREGATE_SHARDS rows so that concurrent writers for one
 * broadcast rarely wait on the same row; readers sum the shards, so which shard a write adds to
 * does not matter: record() takes its recipient's (recipient_id % AGGREGATE_SHARDS), recordMany()
 * its first recipient's for the whole group, and the rebuild each event's recipient's.
 */
export const AGGREGATE_SHARDS = 8;

/** The rollup grains in minutes (see the migration): what the timeline intervals divide into. */
export const ROLLUP_GRAINS_MINUTES = [1, 5, 60] as const;

/**
 * The first-occurrence keys an event claims in email_event_firsts, as [kind, link_id]. The
 * first entry answers the port's `firstForRecipient` (per link for clicks). Entries with link 0
 * are also the summary counters:
 * - `clicked` with link 0 is "clicked at least once" (docs/broadcasts-and-sending.md: clicks.count), besides the
 *   per-link first click that feeds the link's unique_clicks;
 * - `undeliverable` is "bounced or failed", the recipients of delivery.failed (a hard bounce
 *   is a permanent failure too, so sent + failed covers every recipient that got an answer);
 * - `human_opened` and `human_clicked` (per link and with link 0) are the same for the opens and
 *   clicks classified as a person's (docs/engagement.md); they are also rollup kinds.
 */
function firstKeys(kind: EmailEventKind, linkId: number | null, human: boolean): Array<[string, number]> {
  if (kind === 'clicked' && linkId !== null)
    return [
      ['clicked', linkId],
      ['clicked', 0],
      ...(human
        ? ([
            ['human_clicked', linkId],
            ['human_clicked', 0],
          ] as Array<[string, number]>)
        : []),
    ];
  if (human)
    return [
      [kind, 0],
      [`human_${kind}`, 0],
    ];
  if (kind === 'bounced' || kind === 'failed')
    return [
      [kind, 0],
      ['undeliverable', 0],
    ];
  return [[kind, 0]];
}

/** SQL for the derived keys, shared by the rebuild so it cannot drift from record(). */
const DERIVED_COUNTER_SQL = `CASE WHEN e.type IN ('bounced', 'failed') THEN 'undeliverable' END`;
/** An open or click classified as a person's counts again under its human kind. */
const HUMAN_KIND_SQL = `CASE WHEN e.type IN ('opened', 'clicked') AND e.machine IS FALSE THEN 'human_' || e.type END`;

const isHuman = (event: EmailEventRecord): boolean => (event.kind === 'opened' || event.kind === 'clicked') && event.machine === false;

export class PgEmailEvents implements EmailEvents {
  constructor(private readonly db: Knex) {}

  /**
   * One statement, one round trip: the event, its first-occurrence claims, the counters, the
   * 1-, 5- and 60-minute rollups and (for clicks) the link counters. Data-modifying CTEs share one
   * snapshot, so the later ones read the claims through `firsts`' RETURNING, never the table.
   */
  async record(event: EmailEventRecord): Promise<{ id: number; firstForRecipient: boolean }> {
    const linkId = event.linkId ?? null;
    const human = isHuman(event);
    const keys = firstKeys(event.kind, linkId, human);
    const isLinkClick = event.kind === 'clicked' && linkId !== null;
    const bindings = {
      channelId: event.channelId,
      broadcastId: event.broadcastId,
      recipientId: event.recipientId,
      subscriberId: event.subscriberId,
      linkId,
      kind: event.kind,
      occurredAt: event.occurredAt,
      data: JSON.stringify(event.data ?? {}),
      shard: event.recipientId % AGGREGATE_SHARDS,
      keyKinds: keys.map(([k]) => k),
      keyLinks: keys.map(([, l]) => l),
      primaryKind: keys[0]![0],
      primaryLink: keys[0]![1],
      grains: [...ROLLUP_GRAINS_MINUTES],
      rollupKinds: human ? [event.kind, `human_${event.kind}`] : [event.kind],
      machine: event.machine ?? null,
      machineReason: event.machineReason ?? null,
    };
    const linkCte = isLinkClick
      ? `, link AS (
           INSERT INTO broadcast_link_statistics AS l
                  (link_id, shard, total_clicks, unique_clicks, human_clicks, first_clicked_at, last_clicked_at)
           SELECT CAST(:linkId AS bigint), CAST(:shard AS smallint), 1, count(*) FILTER (WHERE kind = 'clicked'),
                  count(*) FILTER (WHERE kind = 'human_clicked'),
                  CAST(:occurredAt AS timestamptz), CAST(:occurredAt AS timestamptz)
             FROM firsts WHERE link_id = :linkId
           ON CONFLICT (link_id, shard) DO UPDATE
              SET total_clicks = l.total_clicks + 1,
                  unique_clicks = l.unique_clicks + excluded.unique_clicks,
                  human_clicks = l.human_clicks + excluded.human_clicks,
                  first_clicked_at = LEAST(l.first_clicked_at, excluded.first_clicked_at),
                  last_clicked_at = GREATEST(l.last_clicked_at, excluded.last_clicked_at)
         )`
      : '';
    const { rows } = await this.db.raw<{ rows: { id: number; first: boolean }[] }>(
      `WITH event AS (
         INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at, data, machine, machine_reason)
         VALUES (:channelId, :broadcastId, :recipientId, :subscriberId, :linkId, :kind, :occurredAt, :data, :machine, :machineReason)
         RETURNING id
       ),
       keys AS (
         SELECT * FROM unnest(CAST(:keyKinds AS text[]), CAST(:keyLinks AS bigint[])) AS k(kind, link_id)
       ),
       firsts AS (
         INSERT INTO email_event_firsts (recipient_id, kind, link_id)
         SELECT CAST(:recipientId AS bigint), kind, link_id FROM keys
         ON CONFLICT DO NOTHING
         RETURNING kind, link_id
       ),
       counters AS (
         INSERT INTO broadcast_statistics AS s (broadcast_id, counter, shard, recipients, events)
         SELECT CAST(:broadcastId AS bigint), k.kind, CAST(:shard AS smallint),
                CAST(EXISTS (SELECT 1 FROM firsts f WHERE f.kind = k.kind AND f.link_id = 0) AS int), 1
           FROM keys k WHERE k.link_id = 0
         ON CONFLICT (broadcast_id, counter, shard) DO UPDATE
            SET recipients = s.recipients + excluded.recipients, events = s.events + 1
       ),
       rollups AS (
         INSERT INTO broadcast_event_rollups AS r (broadcast_id, kind, grain_minutes, bucket, shard, events)
         SELECT CAST(:broadcastId AS bigint), kind, g,
                date_bin(make_interval(mins => g), CAST(:occurredAt AS timestamptz), TIMESTAMPTZ 'epoch'),
                CAST(:shard AS smallint), 1
           FROM unnest(CAST(:grains AS int[])) AS g CROSS JOIN unnest(CAST(:rollupKinds AS text[])) AS kind
         ON CONFLICT (broadcast_id, kind, grain_minutes, bucket, shard) DO UPDATE SET events = r.events + 1
       )${linkCte}
       SELECT event.id,
              EXISTS (SELECT 1 FROM firsts WHERE kind = :primaryKind AND link_id = :primaryLink) AS first
         FROM event`,
      bindings,
    );
    const row = rows[0]!;
    return { id: row.id, firstForRecipient: row.first };
  }

  /** Many events in one statement (RECORD_EMAIL_EVENTS), keeping exactly what record() keeps. */
  async recordMany(events: readonly EmailEventRecord[]): Promise<void> {
    if (events.length === 0) return;
    await prepared(
      'record_email_events',
      this.db.raw(
        `WITH input AS (SELECT * FROM ${EMAIL_EVENT_INPUT}),
              ${RECORD_EMAIL_EVENTS}
         SELECT count(*) FROM input`,
        emailEventBindings(events),
      ),
    );
  }

  /**
   * docs/engagement.md, "Flagged back": the clicks become a scanner's, and every human figure
   * they fed loses them: the rollups of their buckets, and the recipient's human firsts (per
   * link, and overall) that no other human click of theirs still holds, with the counters
   * those firsts added to. record() added each to the recipient's shard, so that is the one
   * taken from. Rare (a scanner's walk), so plain statements in the caller's transaction.
   */
  async flagScannerClicks(broadcastId: number, recipientId: number, eventIds: readonly number[]): Promise<void> {
    if (eventIds.length === 0) return;
    const shard = recipientId % AGGREGATE_SHARDS;
    const ids = [...eventIds];
    const { rows: flagged } = await this.db.raw<{ rows: Array<{ link_id: number | null; occurred_at: Date }> }>(
      `UPDATE email_events SET machine = true, machine_reason = 'scanner'
        WHERE id = ANY(CAST(:ids AS bigint[])) AND broadcast_id = :broadcastId AND recipient_id = :recipientId
          AND type = 'clicked' AND machine IS FALSE
        RETURNING link_id, occurred_at`,
      { ids, broadcastId, recipientId },
    );
    if (flagged.length === 0) return;
    await this.db.raw(
      `UPDATE broadcast_event_rollups r SET events = r.events - f.n
         FROM (SELECT g, date_bin(make_interval(mins => g), at, TIMESTAMPTZ 'epoch') AS bucket, count(*) AS n
                 FROM unnest(CAST(:ats AS timestamptz[])) AS at CROSS JOIN unnest(CAST(:grains AS int[])) AS g
                GROUP BY 1, 2) f
        WHERE r.broadcast_id = :broadcastId AND r.kind = 'human_clicked' AND r.grain_minutes = f.g
          AND r.bucket = f.bucket AND r.shard = :shard`,
      { ats: flagged.map((f) => f.occurred_at), grains: [...ROLLUP_GRAINS_MINUTES], broadcastId, shard },
    );
    // The firsts no remaining human click holds: link 0 if none remains at all, else per link.
    const { rows: released } = await this.db.raw<{ rows: Array<{ link_id: number }> }>(
      `WITH remaining AS (
         SELECT link_id FROM email_events
          WHERE broadcast_id = :broadcastId AND type = 'clicked' AND recipient_id = :recipientId AND machine IS FALSE
       )
       DELETE FROM email_event_firsts f
        WHERE f.recipient_id = :recipientId AND f.kind = 'human_clicked'
          AND ((f.link_id = 0 AND NOT EXISTS (SELECT 1 FROM remaining))
               OR (f.link_id = ANY(CAST(:links AS bigint[])) AND f.link_id NOT IN (SELECT link_id FROM remaining WHERE link_id IS NOT NULL)))
        RETURNING f.link_id`,
      { broadcastId, recipientId, links: [...new Set(flagged.map((f) => f.link_id).filter((l): l is number => l !== null))] },
    );
    await this.db.raw(
      `UPDATE broadcast_statistics SET recipients = recipients - :recipients, events = events - :events
        WHERE broadcast_id = :broadcastId AND counter = 'human_clicked' AND shard = :shard`,
      { recipients: released.filter((r) => Number(r.link_id) === 0).length, events: flagged.length, broadcastId, shard },
    );
    const links = released.map((r) => Number(r.link_id)).filter((l) => l !== 0);
    if (links.length > 0)
      await this.db.raw(
        `UPDATE broadcast_link_statistics SET human_clicks = human_clicks - 1
          WHERE link_id = ANY(CAST(:links AS bigint[])) AND shard = :shard`,
        { links, shard },
      );
  }
}

/**
 * The email events of a group as unnest() over arrays, the columns RECORD_EMAIL_EVENTS reads
 * from its `input`; emailEventBindings gives the arrays.
 */
export const EMAIL_EVENT_INPUT = `unnest(CAST(:channelIds AS bigint[]), CAST(:broadcastIds AS bigint[]), CAST(:recipientIds AS bigint[]),
                              CAST(:subscriberIds AS bigint[]), CAST(:linkIds AS bigint[]), CAST(:kinds AS text[]),
                              CAST(:occurredAts AS timestamptz[]), CAST(:datas AS jsonb[]))
                AS i(channel_id, broadcast_id, recipient_id, subscriber_id, link_id, kind, occurred_at, data)`;

export function emailEventBindings(events: readonly EmailEventRecord[]): Record<string, unknown> {
  const column = <T>(pick: (e: EmailEventRecord) => T) => events.map(pick);
  return {
    channelIds: column((e) => e.channelId),
    broadcastIds: column((e) => e.broadcastId),
    recipientIds: column((e) => e.recipientId),
    subscriberIds: column((e) => e.subscriberId),
    linkIds: column((e) => e.linkId ?? null),
    kinds: column((e) => e.kind),
    occurredAts: column((e) => e.occurredAt),
    datas: column((e) => JSON.stringify(e.data ?? {})),
    grains: [...ROLLUP_GRAINS_MINUTES],
    // The whole group adds to one shard, its first recipient's: the shards only keep concurrent
    // writers off each other's rows, and a group of n emails then touches one counter row per
    // kind instead of up to eight.
    shard: (events[0]?.recipientId ?? 0) % AGGREGATE_SHARDS,
  };
}

/**
 * Data-modifying CTEs that record the events of a CTE named `input` (EMAIL_EVENT_INPUT's
 * columns) with exactly the aggregates record() keeps (a test records the same events both ways
 * and compares): the events, their first-occurrence claims, the counters, the rollups and the
 * link counters. For a statement that does more in the same breath (the sending pipeline's
 * settlement). GROUP BY folds input rows that hit one aggregate row, since one INSERT … ON
 * CONFLICT may not touch a row twice; ORDER BY takes the row locks in one order, so concurrent
 * group commits queue instead of deadlocking.
 */
export const RECORD_EMAIL_EVENTS = `event AS (
         INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at, data)
         SELECT channel_id, broadcast_id, recipient_id, subscriber_id, link_id, kind, occurred_at, data FROM input
       ),
       keys AS (
         SELECT DISTINCT i.broadcast_id, i.recipient_id, k.kind, k.link_id
           FROM input i
          CROSS JOIN LATERAL (VALUES
            (CASE WHEN i.kind = 'clicked' AND i.link_id IS NOT NULL THEN 'clicked' END, i.link_id),
            (i.kind, CAST(0 AS bigint)),
            (CASE WHEN i.kind IN ('bounced', 'failed') THEN 'undeliverable' END, CAST(0 AS bigint))
          ) AS k(kind, link_id)
          WHERE k.kind IS NOT NULL
       ),
       firsts AS (
         INSERT INTO email_event_firsts (recipient_id, kind, link_id)
         SELECT recipient_id, kind, link_id FROM keys ORDER BY recipient_id, kind, link_id
         ON CONFLICT DO NOTHING
         RETURNING recipient_id, kind, link_id
       ),
       new_firsts AS (
         SELECT k.broadcast_id, f.recipient_id, f.kind, f.link_id, CAST(:shard AS smallint) AS shard
           FROM firsts f JOIN keys k USING (recipient_id, kind, link_id)
       ),
       counter_events AS (
         SELECT i.broadcast_id, c.counter, CAST(:shard AS smallint) AS shard, count(*) AS events
           FROM input i
          CROSS JOIN LATERAL (VALUES (i.kind), (CASE WHEN i.kind IN ('bounced', 'failed') THEN 'undeliverable' END)) AS c(counter)
          WHERE c.counter IS NOT NULL
          GROUP BY 1, 2, 3
       ),
       counters AS (
         INSERT INTO broadcast_statistics AS s (broadcast_id, counter, shard, recipients, events)
         SELECT ce.broadcast_id, ce.counter, ce.shard,
                (SELECT count(*) FROM new_firsts n
                  WHERE n.broadcast_id = ce.broadcast_id AND n.kind = ce.counter AND n.link_id = 0 AND n.shard = ce.shard),
                ce.events
           FROM counter_events ce
          ORDER BY 1, 2, 3
         ON CONFLICT (broadcast_id, counter, shard) DO UPDATE
            SET recipients = s.recipients + excluded.recipients, events = s.events + excluded.events
       ),
       rollups AS (
         INSERT INTO broadcast_event_rollups AS r (broadcast_id, kind, grain_minutes, bucket, shard, events)
         SELECT i.broadcast_id, i.kind, g, date_bin(make_interval(mins => g), i.occurred_at, TIMESTAMPTZ 'epoch'),
                CAST(:shard AS smallint), count(*)
           FROM input i CROSS JOIN unnest(CAST(:grains AS int[])) AS g
          GROUP BY 1, 2, 3, 4, 5
          ORDER BY 1, 2, 3, 4, 5
         ON CONFLICT (broadcast_id, kind, grain_minutes, bucket, shard) DO UPDATE SET events = r.events + excluded.events
       ),
       links AS (
         INSERT INTO broadcast_link_statistics AS l (link_id, shard, total_clicks, unique_clicks, first_clicked_at, last_clicked_at)
         SELECT c.link_id, c.shard, c.total,
                (SELECT count(*) FROM new_firsts n WHERE n.kind = 'clicked' AND n.link_id = c.link_id AND n.shard = c.shard),
                c.first_at, c.last_at
           FROM (SELECT i.link_id, CAST(:shard AS smallint) AS shard, count(*) AS total,
                        min(i.occurred_at) AS first_at, max(i.occurred_at) AS last_at
                   FROM input i
                  WHERE i.kind = 'clicked' AND i.link_id IS NOT NULL
                  GROUP BY 1, 2) c
          ORDER BY 1, 2
         ON CONFLICT (link_id, shard) DO UPDATE
            SET total_clicks = l.total_clicks + excluded.total_clicks,
                unique_clicks = l.unique_clicks + excluded.unique_clicks,
                first_clicked_at = LEAST(l.first_clicked_at, excluded.first_clicked_at),
                last_clicked_at = GREATEST(l.last_clicked_at, excluded.last_clicked_at)
       )`;

/**
 * Rebuilds one broadcast's aggregates from its raw email_events, set-based, leaving exactly
 * what record() would have left had it recorded those events (the integration test compares
 * both). For repairs and for seeding benchmarks with raw events; not on any request path.
 */
export async function rebuildEmailEventAggregates(db: Knex, broadcastId: number): Promise<void> {
  const shards = AGGREGATE_SHARDS;
  await db.transaction(async (trx) => {
    await trx.raw(`DELETE FROM email_event_firsts WHERE recipient_id IN (SELECT id FROM broadcast_recipients WHERE broadcast_id = ?)`, [broadcastId]);
    for (const table of ['broadcast_statistics', 'broadcast_event_rollups']) {
      await trx.raw(`DELETE FROM ${table} WHERE broadcast_id = ?`, [broadcastId]);
    }
    await trx.raw(`DELETE FROM broadcast_link_statistics WHERE link_id IN (SELECT id FROM broadcast_links WHERE broadcast_id = ?)`, [broadcastId]);
    await trx.raw(
      `INSERT INTO email_event_firsts (recipient_id, kind, link_id)
       SELECT DISTINCT e.recipient_id, k.kind, k.link_id
         FROM email_events e
        CROSS JOIN LATERAL (VALUES
          (e.type, 0::bigint),
          (${DERIVED_COUNTER_SQL}, 0::bigint),
          (CASE WHEN e.type = 'clicked' AND e.link_id IS NOT NULL THEN 'clicked' END, e.link_id),
          (${HUMAN_KIND_SQL}, 0::bigint),
          (CASE WHEN e.type = 'clicked' AND e.link_id IS NOT NULL AND e.machine IS FALSE THEN 'human_clicked' END, e.link_id)
        ) AS k(kind, link_id)
        WHERE e.broadcast_id = ? AND e.recipient_id IS NOT NULL AND k.kind IS NOT NULL`,
      [broadcastId],
    );
    await trx.raw(
      `INSERT INTO broadcast_statistics (broadcast_id, counter, shard, recipients, events)
       SELECT ?, c.counter, e.recipient_id % ${shards}, count(DISTINCT e.recipient_id), count(*)
         FROM email_events e
        CROSS JOIN LATERAL (VALUES (e.type), (${DERIVED_COUNTER_SQL}), (${HUMAN_KIND_SQL})) AS c(counter)
        WHERE e.broadcast_id = ? AND e.recipient_id IS NOT NULL AND c.counter IS NOT NULL
        GROUP BY c.counter, e.recipient_id % ${shards}`,
      [broadcastId, broadcastId],
    );
    await trx.raw(
      `INSERT INTO broadcast_event_rollups (broadcast_id, kind, grain_minutes, bucket, shard, events)
       SELECT ?, k.kind, g, date_bin(make_interval(mins => g), e.occurred_at, TIMESTAMPTZ 'epoch'), e.recipient_id % ${shards}, count(*)
         FROM email_events e CROSS JOIN unnest(CAST(? AS int[])) AS g
        CROSS JOIN LATERAL (VALUES (e.type), (${HUMAN_KIND_SQL})) AS k(kind)
        WHERE e.broadcast_id = ? AND e.recipient_id IS NOT NULL AND k.kind IS NOT NULL
        GROUP BY k.kind, g, date_bin(make_interval(mins => g), e.occurred_at, TIMESTAMPTZ 'epoch'), e.recipient_id % ${shards}`,
      [broadcastId, [...ROLLUP_GRAINS_MINUTES], broadcastId],
    );
    await trx.raw(
      `INSERT INTO broadcast_link_statistics (link_id, shard, total_clicks, unique_clicks, human_clicks, first_clicked_at, last_clicked_at)
       SELECT link_id, recipient_id % ${shards}, count(*), count(DISTINCT recipient_id),
              count(DISTINCT recipient_id) FILTER (WHERE machine IS FALSE), min(occurred_at), max(occurred_at)
         FROM email_events
        WHERE broadcast_id = ? AND type = 'clicked' AND link_id IS NOT NULL AND recipient_id IS NOT NULL
        GROUP BY link_id, recipient_id % ${shards}`,
      [broadcastId],
    );
  });
}

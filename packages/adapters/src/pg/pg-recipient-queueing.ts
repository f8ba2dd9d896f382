import type { Broadcast, ExcludedSegments } from '@mailcast/core';
import type { SegmentDefinition } from '@mailcast/domain';
import type { Knex } from 'knex';
import { audiencePredicate } from './segment-sql';
import { exclusionFilter, topicFilter } from './audience-sql';
import { SENDABLE, SUPPRESSED, SUPPRESSED_IN_CHANNEL } from './recipient-sql';

/**
 * A recipient's Message-ID: `<broadcast.subscriber.random@host>` (`:suffix` is `@host`). The
 * random part is the recipient's own, 122 bits from PostgreSQL's strong random source, so no
 * recipient can derive another's Message-ID from theirs (docs/bounces.md, Matching).
 */
const messageId = (subscriberId: string) =>
  `'<' || :broadcastId || '.' || ${subscriberId} || '.' || replace(gen_random_uuid()::text, '-', '') || :suffix || '>'`;

/** The share of new rows past which the recipients' statistics are refreshed after queueing (autovacuum's default scale factor). */
const STALE_SHARE = 0.1;

/**
 * How PgRecipientStore queues a broadcast's recipients (docs/segments.md, Queueing): the
 * whole channel in id batches, a segment broadcast in one statement, then the statistics; and for
 * a broadcast sent in each subscriber's time zone, each recipient's instant
 * (docs/broadcasts-and-sending.md).
 */
export abstract class PgRecipientQueueing {
  constructor(protected readonly db: Knex) {}

  /** One batch of a whole-channel broadcast, in subscriber id order. */
  async materialize(
    broadcast: Broadcast,
    afterSubscriberId: number,
    upToSubscriberId: number,
    batchSize: number,
    messageIdSuffix: string,
    excluded?: ExcludedSegments,
  ): Promise<{ last: number; count: number } | null> {
    // The topic and the exclusions only filter the id range walked (docs/topics.md, Audiences):
    // the batch still walks the primary key, and a batch with nobody left ends at its range's end.
    const topic = topicFilter(broadcast.topicId);
    const exclusion = exclusionFilter(this.db, excluded);
    const filtered = topic.condition !== '' || exclusion.condition !== '';
    const { rows } = await this.db.raw<{ rows: { last: number | null; count: string; kept: string }[] }>(
      `WITH walked AS (
         SELECT s.id, ${SUPPRESSED} AS suppressed, TRUE${topic.condition}${exclusion.condition} AS kept
           FROM subscribers s ${topic.join}
          WHERE s.channel_id = :channelId AND s.id > :after AND s.id <= :upTo AND ${SENDABLE}
          ORDER BY s.id
          LIMIT :limit
       ), inserted AS (
         INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id, status)
         SELECT :broadcastId, id, ${messageId('id')}, CASE WHEN suppressed THEN 'skipped' ELSE 'pending' END
           FROM walked WHERE ${filtered ? 'kept IS TRUE' : 'TRUE'}
         ON CONFLICT (broadcast_id, subscriber_id) DO NOTHING
       )
       SELECT max(id) AS last, count(*) FILTER (WHERE kept IS TRUE) AS count FROM walked`,
      {
        ...topic.bindings,
        ...exclusion.bindings,
        channelId: broadcast.channelId,
        after: afterSubscriberId,
        upTo: upToSubscriberId,
        limit: batchSize,
        broadcastId: broadcast.id,
        suffix: messageIdSuffix,
      },
    );
    const row = rows[0];
    return row && row.last !== null ? { last: Number(row.last), count: Number(row.count) } : null;
  }

  /** every member of the segments in one statement. */
  async materializeAudience(
    broadcast: Broadcast,
    messageIdSuffix: string,
    segments: { definitions: readonly SegmentDefinition[]; now: Date },
    excluded?: ExcludedSegments,
  ): Promise<number> {
    // The segments' rules compiled into the statement (docs/segments.md, Queueing): the planner
    // starts from their indexes, and a subscriber in several segments is one row of subscribers,
    // so queued once. Suppressions are looked up by address alone (SUPPRESSED_IN_CHANNEL).
    const audience = audiencePredicate(segments.definitions, broadcast.channelId, segments.now);
    // The topic joins its one row; the exclusions are conditions on the rows the segments'
    // indexes found (docs/topics.md, Audiences).
    const topic = topicFilter(broadcast.topicId);
    const exclusion = exclusionFilter(this.db, excluded);
    const bindings = {
      ...topic.bindings,
      ...exclusion.bindings,
      channelId: broadcast.channelId,
      broadcastId: broadcast.id,
      suffix: messageIdSuffix,
      audience: this.db.raw(audience.sql, audience.bindings),
    };
    const insert = (onConflict: string) =>
      `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id, status)
       SELECT :broadcastId, s.id, ${messageId('s.id')},
              CASE WHEN ${SUPPRESSED_IN_CHANNEL} THEN 'skipped' ELSE 'pending' END
         FROM subscribers s ${topic.join}
        WHERE s.channel_id = :channelId AND ${SENDABLE} AND (:audience)${topic.condition}${exclusion.condition}
       ${onConflict}`;
    return this.db.transaction(async (trx) => {
      // Queueings of one broadcast take turns. The first finds no recipients and inserts them
      // without a conflict check on each row; one after it (a rerun after a crash, a second
      // dispatcher, a resend) skips those already there.
      await trx.raw(`SELECT pg_advisory_xact_lock(hashtext('mailcast.queue_recipients'), (CAST(? AS bigint) % 2147483647)::int)`, [broadcast.id]);
      const { rows } = await trx.raw<{ rows: { queued: boolean }[] }>('SELECT EXISTS (SELECT 1 FROM broadcast_recipients WHERE broadcast_id = ?) AS queued', [
        broadcast.id,
      ]);
      const sql = insert(rows[0]?.queued ? 'ON CONFLICT (broadcast_id, subscriber_id) DO NOTHING' : '');
      const result = await trx.raw<{ rowCount: number | null }>(sql, bindings);
      return result.rowCount ?? 0;
    });
  }

  /** ANALYZE only when the statistics are missing or a tenth stale. */
  async refreshStatistics(queued: number): Promise<boolean> {
    if (queued === 0) return false;
    // reltuples is -1 until the table is first analysed or vacuumed.
    const { rows } = await this.db.raw<{ rows: { reltuples: number }[] }>(`SELECT reltuples FROM pg_class WHERE oid = 'broadcast_recipients'::regclass`);
    const described = Number(rows[0]?.reltuples ?? -1);
    if (described >= 0 && queued <= described * STALE_SHARE) return false;
    await this.db.raw('ANALYZE broadcast_recipients');
    return true;
  }

  async pendingTimezones(broadcastId: number): Promise<string[]> {
    // One pass over the broadcast's recipients: the zones are few (at most a few hundred names).
    const { rows } = await this.db.raw<{ rows: { tz: string }[] }>(
      `SELECT DISTINCT s.custom_data->>'timezone' AS tz
         FROM broadcast_recipients r JOIN subscribers s ON s.id = r.subscriber_id
        WHERE r.broadcast_id = ? AND r.status = 'pending' AND jsonb_typeof(s.custom_data->'timezone') = 'string'`,
      [broadcastId],
    );
    return rows.map((r) => r.tz);
  }

  async timeRecipients(broadcastId: number, instants: ReadonlyMap<string, Date>, fallback: Date): Promise<number> {
    // The instants come from the domain (its gap and overlap rules), one per zone name as
    // spelled, so the database's own time-zone names and rules play no part.
    const zones = JSON.stringify([...instants].map(([tz, at]) => ({ tz, at: at.toISOString() })));
    const result = await this.db.raw<{ rowCount: number | null }>(
      `UPDATE broadcast_recipients r
          SET next_attempt_at = coalesce(z.at, :fallback)
         FROM subscribers s
         LEFT JOIN jsonb_to_recordset(:zones::jsonb) AS z(tz text, at timestamptz) ON z.tz = s.custom_data->>'timezone'
        WHERE r.broadcast_id = :broadcastId AND r.status = 'pending' AND s.id = r.subscriber_id`,
      { broadcastId, zones, fallback },
    );
    return result.rowCount ?? 0;
  }
}

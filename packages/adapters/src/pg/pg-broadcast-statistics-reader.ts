import { STATISTICS_COUNTERS, type BroadcastStatisticsReader, type RecipientCounts, type StatisticsCounter, type TimelineQuery } from '@mailcast/core';
import type { LinkClickStats, TimelineEventKind } from '@mailcast/domain';
import type { Knex } from 'knex';
import { ROLLUP_GRAINS_MINUTES } from './pg-email-events';

/**
 * Reads the aggregates PgEmailEvents.record() keeps (migration 20261122020000): a few dozen
 * shard rows for the summary, at most 336 rollup buckets per kind and shard for a timeline,
 * one row per link and shard for the links. Never email_events.
 */
export class PgBroadcastStatisticsReader implements BroadcastStatisticsReader {
  constructor(private readonly db: Knex) {}

  async counts(broadcastId: number): Promise<RecipientCounts> {
    const { rows } = await this.db.raw<{ rows: { counter: string; recipients: number }[] }>(
      `SELECT counter, CAST(SUM(recipients) AS bigint) AS recipients
         FROM broadcast_statistics WHERE broadcast_id = :broadcastId GROUP BY counter
       UNION ALL
       SELECT '#links', count(DISTINCT s.link_id)
         FROM broadcast_link_statistics s JOIN broadcast_links l ON l.id = s.link_id
        WHERE l.broadcast_id = :broadcastId`,
      { broadcastId },
    );
    const recipients = Object.fromEntries(STATISTICS_COUNTERS.map((c) => [c, 0])) as Record<StatisticsCounter, number>;
    let linksClicked = 0;
    for (const row of rows) {
      if (row.counter === '#links') linksClicked = row.recipients;
      else if ((STATISTICS_COUNTERS as readonly string[]).includes(row.counter)) {
        recipients[row.counter as StatisticsCounter] = row.recipients;
      }
    }
    return { recipients, linksClicked };
  }

  async timeline(broadcastId: number, query: TimelineQuery): Promise<Array<{ kind: TimelineEventKind; bucket: Date; count: number }>> {
    // The coarsest grain that divides the interval: every grid is epoch-anchored like the
    // interval's, so each rollup bucket falls in exactly one timeline bucket.
    const grain = Math.max(...ROLLUP_GRAINS_MINUTES.filter((g) => query.intervalMs % (g * 60_000) === 0));
    const { rows } = await this.db.raw<{ rows: { kind: TimelineEventKind; bucket: Date; count: number }[] }>(
      `SELECT kind, date_bin(CAST(:interval AS interval), bucket, TIMESTAMPTZ 'epoch') AS bucket,
              CAST(SUM(events) AS bigint) AS count
         FROM broadcast_event_rollups
        WHERE broadcast_id = :broadcastId AND kind = ANY(CAST(:kinds AS text[])) AND grain_minutes = :grain
          AND bucket >= :start AND bucket < :end
        GROUP BY 1, 2`,
      {
        broadcastId,
        grain,
        interval: `${query.intervalMs} milliseconds`,
        kinds: [...query.kinds],
        start: query.start,
        end: query.end,
      },
    );
    return rows;
  }

  async links(broadcastId: number): Promise<LinkClickStats[]> {
    const { rows } = await this.db.raw<{
      rows: Array<{
        id: number;
        identifier: string;
        url: string;
        total_clicks: number;
        unique_clicks: number;
        human_clicks: number;
        first_clicked_at: Date | null;
        last_clicked_at: Date | null;
      }>;
    }>(
      `SELECT l.id, l.identifier, l.url,
              CAST(COALESCE(SUM(s.total_clicks), 0) AS bigint) AS total_clicks,
              CAST(COALESCE(SUM(s.unique_clicks), 0) AS bigint) AS unique_clicks,
              CAST(COALESCE(SUM(s.human_clicks), 0) AS bigint) AS human_clicks,
              MIN(s.first_clicked_at) AS first_clicked_at, MAX(s.last_clicked_at) AS last_clicked_at
         FROM broadcast_links l LEFT JOIN broadcast_link_statistics s ON s.link_id = l.id
        WHERE l.broadcast_id = :broadcastId
        GROUP BY l.id`,
      { broadcastId },
    );
    return rows.map((r) => ({
      id: r.id,
      identifier: r.identifier,
      url: r.url,
      totalClicks: r.total_clicks,
      uniqueClicks: r.unique_clicks,
      humanClicks: r.human_clicks,
      firstClickedAt: r.first_clicked_at,
      lastClickedAt: r.last_clicked_at,
    }));
  }
}

import type { LinkClickStats, TimelineEventKind } from '@mailcast/domain';

/**
 * The stored counters the summary reads: unique recipients per event kind, plus the derived
 * `undeliverable` (bounced or failed). Kept by EmailEvents.record() as events arrive.
 */
export const STATISTICS_COUNTERS = [
  'processed',
  'delivered',
  'delayed',
  'bounced',
  'failed',
  'undeliverable',
  'opened',
  'clicked',
  'complained',
  'unsubscribed',
  // Opens and clicks classified as a person's (docs/engagement.md).
  'human_opened',
  'human_clicked',
] as const;
export type StatisticsCounter = (typeof STATISTICS_COUNTERS)[number];

export interface RecipientCounts {
  /** Unique recipients per counter; a counter nothing happened to is 0. */
  recipients: Record<StatisticsCounter, number>;
  /** Distinct links of the broadcast clicked at least once. */
  linksClicked: number;
}

export interface TimelineQuery {
  kinds: readonly TimelineEventKind[];
  /** Half-open window [start, end), both on the interval grid. */
  start: Date;
  end: Date;
  intervalMs: number;
}

/**
 * Reads the statistics aggregates of one broadcast. Aggregates only: an implementation never
 * loads events, so a read costs the same at ten recipients as at a million.
 */
export interface BroadcastStatisticsReader {
  counts(broadcastId: number): Promise<RecipientCounts>;
  /** Events per kind per bucket start (on the interval grid, epoch-anchored); empty buckets omitted. */
  timeline(broadcastId: number, query: TimelineQuery): Promise<Array<{ kind: TimelineEventKind; bucket: Date; count: number }>>;
  /** Every tracked link of the broadcast with its click counters, clicked or not. */
  links(broadcastId: number): Promise<LinkClickStats[]>;
}
export const BroadcastStatisticsReader = Symbol.for('mailcast.BroadcastStatisticsReader');

import { DomainError } from './errors';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * The spec's timeframes with their fixed intervals; `interval` is the string the timeline
 * response carries (docs/statistics.md). Every timeframe is a whole number of intervals.
 */
export const TIMEFRAMES = {
  '60m': { durationMs: 60 * MINUTE, intervalMs: MINUTE, interval: '1m' },
  '120m': { durationMs: 120 * MINUTE, intervalMs: 2 * MINUTE, interval: '2m' },
  '3h': { durationMs: 3 * HOUR, intervalMs: 5 * MINUTE, interval: '5m' },
  '6h': { durationMs: 6 * HOUR, intervalMs: 10 * MINUTE, interval: '10m' },
  '12h': { durationMs: 12 * HOUR, intervalMs: 20 * MINUTE, interval: '20m' },
  '18h': { durationMs: 18 * HOUR, intervalMs: 30 * MINUTE, interval: '30m' },
  '24h': { durationMs: 24 * HOUR, intervalMs: HOUR, interval: '1h' },
  '48h': { durationMs: 48 * HOUR, intervalMs: 2 * HOUR, interval: '2h' },
  '72h': { durationMs: 72 * HOUR, intervalMs: 3 * HOUR, interval: '3h' },
  '7d': { durationMs: 7 * DAY, intervalMs: 6 * HOUR, interval: '6h' },
  '14d': { durationMs: 14 * DAY, intervalMs: 12 * HOUR, interval: '12h' },
} as const;

export type Timeframe = keyof typeof TIMEFRAMES;

export const DEFAULT_TIMEFRAME: Timeframe = '24h';

function isTimeframe(s: string): s is Timeframe {
  return Object.prototype.hasOwnProperty.call(TIMEFRAMES, s);
}

/** An absent or blank parameter means the default; anything else must be a spec value. */
export function parseTimeframe(s: string | undefined): Timeframe {
  if (s === undefined || s.trim() === '') return DEFAULT_TIMEFRAME;
  const value = s.trim().toLowerCase();
  if (!isTimeframe(value)) throw new DomainError('invalid_timeframe', 'Invalid timeframe');
  return value;
}

export const TIMELINE_METRICS = ['Processed', 'Delivered', 'Opens', 'Clicks', 'Bounces'] as const;
/** Beyond the spec, given only when asked for in `metrics` (docs/engagement.md). */
export const HUMAN_TIMELINE_METRICS = ['HumanOpens', 'HumanClicks'] as const;

export type TimelineMetric = (typeof TIMELINE_METRICS)[number] | (typeof HUMAN_TIMELINE_METRICS)[number];

/**
 * The recipient email event each metric counts (docs/statistics.md "Timeline": Processed =
 * handed to SMTP, Delivered = accepted, Opens, Clicks, Bounces = events, repeats included).
 */
export const TIMELINE_METRIC_EVENTS = {
  Processed: 'processed',
  Delivered: 'delivered',
  Opens: 'opened',
  Clicks: 'clicked',
  Bounces: 'bounced',
  HumanOpens: 'human_opened',
  HumanClicks: 'human_clicked',
} as const satisfies Record<TimelineMetric, string>;

export type TimelineEventKind = (typeof TIMELINE_METRIC_EVENTS)[TimelineMetric];

/**
 * Comma-separated metric names, matched case-insensitively and returned in their spec spelling,
 * in the caller's order without duplicates. Absent or blank means the spec's five, in spec order:
 * the human series come only when named.
 */
export function parseMetrics(s: string | undefined): TimelineMetric[] {
  const names = (s ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  if (names.length === 0) return [...TIMELINE_METRICS];
  const result: TimelineMetric[] = [];
  for (const name of names) {
    const metric = [...TIMELINE_METRICS, ...HUMAN_TIMELINE_METRICS].find((m) => m.toLowerCase() === name.toLowerCase());
    if (metric === undefined) throw new DomainError('invalid_metric', `Invalid metric: ${name}`);
    if (!result.includes(metric)) result.push(metric);
  }
  return result;
}

export type TimelineWindow = {
  start: Date;
  end: Date;
  intervalMs: number;
  interval: string;
  bucketStarts: Date[];
};

/**
 * docs/statistics.md "Timeline": the window starts at begin_send_at floored to the interval
 * (for a broadcast not yet sent, at now − timeframe, floored) and spans the timeframe. The grid
 * is anchored at the Unix epoch, so buckets are the same whoever asks and line up with
 * PostgreSQL's date_bin(interval, t, 'epoch').
 */
export function timelineWindow(input: { timeframe: Timeframe; beginSendAt: Date | null; now: Date }): TimelineWindow {
  const { durationMs, intervalMs, interval } = TIMEFRAMES[input.timeframe];
  const anchor = input.beginSendAt !== null ? input.beginSendAt.getTime() : input.now.getTime() - durationMs;
  const startMs = Math.floor(anchor / intervalMs) * intervalMs;
  const bucketStarts: Date[] = [];
  for (let t = startMs; t < startMs + durationMs; t += intervalMs) bucketStarts.push(new Date(t));
  return {
    start: new Date(startMs),
    end: new Date(startMs + durationMs),
    intervalMs,
    interval,
    bucketStarts,
  };
}

/** Start of the bucket holding `t`, or null outside the half-open window [start, end). */
export function bucketOf(t: Date, window: Pick<TimelineWindow, 'start' | 'end' | 'intervalMs'>): Date | null {
  const ms = t.getTime();
  const start = window.start.getTime();
  if (!(ms >= start && ms < window.end.getTime())) return null;
  return new Date(start + Math.floor((ms - start) / window.intervalMs) * window.intervalMs);
}

export type TimelineSeries = { name: TimelineMetric; data: Record<string, number> };

/**
 * One series per requested metric with a key for every bucket (ISO 8601 UTC) and 0 where
 * nothing happened (docs/statistics.md). Counts are placed with bucketOf, so rows need not be aligned to
 * the grid; rows outside the window or of other metrics are ignored, rows sharing a bucket add up.
 */
export function buildSeries(
  metrics: readonly TimelineMetric[],
  window: TimelineWindow,
  counts: ReadonlyArray<{ metric: string; bucket: Date; count: number }>,
): TimelineSeries[] {
  return metrics.map((name) => {
    const data: Record<string, number> = {};
    for (const b of window.bucketStarts) data[b.toISOString()] = 0;
    for (const row of counts) {
      if (row.metric !== name) continue;
      const bucket = bucketOf(row.bucket, window);
      if (bucket === null) continue;
      const key = bucket.toISOString();
      data[key] = (data[key] ?? 0) + row.count;
    }
    return { name, data };
  });
}

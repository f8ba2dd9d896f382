import fc from 'fast-check';
import {
  DEFAULT_TIMEFRAME,
  TIMEFRAMES,
  TIMELINE_METRICS,
  TIMELINE_METRIC_EVENTS,
  type Timeframe,
  bucketOf,
  buildSeries,
  parseMetrics,
  parseTimeframe,
  timelineWindow,
} from './timeline';
import { errorOf } from './test-support/catch-domain-error';

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('timeframes', () => {
  test.each([
    ['60m', '1m', MIN, 60],
    ['120m', '2m', 2 * MIN, 60],
    ['3h', '5m', 5 * MIN, 36],
    ['6h', '10m', 10 * MIN, 36],
    ['12h', '20m', 20 * MIN, 36],
    ['18h', '30m', 30 * MIN, 36],
    ['24h', '1h', HOUR, 24],
    ['48h', '2h', 2 * HOUR, 24],
    ['72h', '3h', 3 * HOUR, 24],
    ['7d', '6h', 6 * HOUR, 28],
    ['14d', '12h', 12 * HOUR, 28],
  ] as const)('%s: interval %s (%i ms), %i buckets', (tf, interval, intervalMs, buckets) => {
    expect(TIMEFRAMES[tf].interval).toBe(interval);
    expect(TIMEFRAMES[tf].intervalMs).toBe(intervalMs);
    expect(TIMEFRAMES[tf].durationMs / TIMEFRAMES[tf].intervalMs).toBe(buckets);
    expect(parseTimeframe(tf)).toBe(tf);
  });

  test('there are exactly the eleven spec timeframes, default 24h', () => {
    expect(Object.keys(TIMEFRAMES)).toHaveLength(11);
    expect(DEFAULT_TIMEFRAME).toBe('24h');
  });

  test.each([
    [undefined, '24h'],
    ['', '24h'],
    ['  ', '24h'],
    [' 7d ', '7d'],
    ['3H', '3h'],
  ] as const)('parseTimeframe(%j) → %s', (input, expected) => {
    expect(parseTimeframe(input)).toBe(expected);
  });

  test.each(['1h', '30d', '24', 'day', 'toString', '__proto__'])('parseTimeframe(%j) is invalid', (input) => {
    expect(errorOf(() => parseTimeframe(input))).toEqual({
      name: 'DomainError',
      code: 'invalid_timeframe',
      message: 'Invalid timeframe',
    });
  });
});

describe('TIMELINE_METRIC_EVENTS', () => {
  test('each metric counts one event kind (docs/statistics.md: Processed handed to SMTP, Delivered accepted)', () => {
    expect(TIMELINE_METRIC_EVENTS).toEqual({
      Processed: 'processed',
      Delivered: 'delivered',
      Opens: 'opened',
      Clicks: 'clicked',
      Bounces: 'bounced',
      // docs/engagement.md: beyond the spec, only when named.
      HumanOpens: 'human_opened',
      HumanClicks: 'human_clicked',
    });
    expect(parseMetrics(undefined)).toEqual(['Processed', 'Delivered', 'Opens', 'Clicks', 'Bounces']);
    expect(parseMetrics('humanclicks, Opens')).toEqual(['HumanClicks', 'Opens']);
    expect(Object.keys(TIMELINE_METRIC_EVENTS)).toEqual([...TIMELINE_METRICS, 'HumanOpens', 'HumanClicks']);
  });
});

describe('parseMetrics', () => {
  test.each([
    [undefined, ['Processed', 'Delivered', 'Opens', 'Clicks', 'Bounces']],
    ['', ['Processed', 'Delivered', 'Opens', 'Clicks', 'Bounces']],
    ['Opens', ['Opens']],
    ['Clicks,Opens', ['Clicks', 'Opens']],
    [' Opens , Clicks ,', ['Opens', 'Clicks']],
    ['Opens,Opens,opens', ['Opens']],
    ['bounces,PROCESSED', ['Bounces', 'Processed']],
  ] as const)('%j → %j', (input, expected) => {
    expect(parseMetrics(input)).toEqual(expected);
  });

  test('default list is a fresh copy', () => {
    const m = parseMetrics(undefined);
    m.pop();
    expect(parseMetrics(undefined)).toEqual([...TIMELINE_METRICS]);
  });

  test.each([
    ['Opens,Views', 'Invalid metric: Views'],
    ['Sent', 'Invalid metric: Sent'],
  ])('%j is refused', (input, message) => {
    expect(errorOf(() => parseMetrics(input))).toEqual({ name: 'DomainError', code: 'invalid_metric', message });
  });
});

describe('timelineWindow', () => {
  test('starts at begin_send_at floored to the interval', () => {
    const w = timelineWindow({
      timeframe: '24h',
      beginSendAt: new Date('2026-03-01T10:37:12.345Z'),
      now: new Date('2026-03-05T00:00:00Z'),
    });
    expect(w.start.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(w.end.toISOString()).toBe('2026-03-02T10:00:00.000Z');
    expect(w.interval).toBe('1h');
    expect(w.intervalMs).toBe(HOUR);
    expect(w.bucketStarts).toHaveLength(24);
    expect(w.bucketStarts[0]?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(w.bucketStarts[23]?.toISOString()).toBe('2026-03-02T09:00:00.000Z');
  });

  test('grid is anchored at the epoch: 7d buckets fall on 00, 06, 12, 18 UTC', () => {
    const w = timelineWindow({ timeframe: '7d', beginSendAt: new Date('2026-03-01T17:59:59Z'), now: new Date(0) });
    expect(w.start.toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect(w.end.toISOString()).toBe('2026-03-08T12:00:00.000Z');
    expect(w.bucketStarts.slice(0, 3).map((d) => d.toISOString())).toEqual([
      '2026-03-01T12:00:00.000Z',
      '2026-03-01T18:00:00.000Z',
      '2026-03-02T00:00:00.000Z',
    ]);
  });

  test('20-minute grid', () => {
    const w = timelineWindow({ timeframe: '12h', beginSendAt: new Date('2026-03-01T10:39:00Z'), now: new Date(0) });
    expect(w.start.toISOString()).toBe('2026-03-01T10:20:00.000Z');
    expect(w.bucketStarts[1]?.toISOString()).toBe('2026-03-01T10:40:00.000Z');
  });

  test('not yet sent: now minus the timeframe, floored', () => {
    const w = timelineWindow({ timeframe: '60m', beginSendAt: null, now: new Date('2026-03-01T10:30:30Z') });
    expect(w.start.toISOString()).toBe('2026-03-01T09:30:00.000Z');
    expect(w.end.toISOString()).toBe('2026-03-01T10:30:00.000Z');
    expect(w.bucketStarts).toHaveLength(60);
  });

  test('bucketOf: half-open window', () => {
    const w = timelineWindow({ timeframe: '3h', beginSendAt: new Date('2026-03-01T10:00:00Z'), now: new Date(0) });
    expect(bucketOf(new Date('2026-03-01T09:59:59.999Z'), w)).toBeNull();
    expect(bucketOf(new Date('2026-03-01T10:00:00Z'), w)?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(bucketOf(new Date('2026-03-01T10:04:59.999Z'), w)?.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    expect(bucketOf(new Date('2026-03-01T10:05:00Z'), w)?.toISOString()).toBe('2026-03-01T10:05:00.000Z');
    expect(bucketOf(new Date('2026-03-01T12:59:59.999Z'), w)?.toISOString()).toBe('2026-03-01T12:55:00.000Z');
    expect(bucketOf(new Date('2026-03-01T13:00:00Z'), w)).toBeNull();
    expect(bucketOf(new Date(Number.NaN), w)).toBeNull();
  });
});

describe('buildSeries', () => {
  const w = timelineWindow({ timeframe: '3h', beginSendAt: new Date('2026-03-01T10:00:00Z'), now: new Date(0) });

  test('a key for every bucket, zeros where absent, rows placed and summed', () => {
    const series = buildSeries(['Opens', 'Clicks'], w, [
      { metric: 'Opens', bucket: new Date('2026-03-01T10:00:00Z'), count: 3 },
      { metric: 'Opens', bucket: new Date('2026-03-01T10:02:00Z'), count: 2 }, // same bucket
      { metric: 'Opens', bucket: new Date('2026-03-01T12:55:00Z'), count: 1 },
      { metric: 'Opens', bucket: new Date('2026-03-01T13:00:00Z'), count: 100 }, // outside
      { metric: 'Clicks', bucket: new Date('2026-03-01T10:05:00Z'), count: 4 },
      { metric: 'Bounces', bucket: new Date('2026-03-01T10:05:00Z'), count: 9 }, // not requested
    ]);
    expect(series.map((s) => s.name)).toEqual(['Opens', 'Clicks']);
    const [opens, clicks] = series;
    expect(Object.keys(opens?.data ?? {})).toHaveLength(36);
    expect(Object.keys(opens?.data ?? {})[0]).toBe('2026-03-01T10:00:00.000Z');
    expect(opens?.data['2026-03-01T10:00:00.000Z']).toBe(5);
    expect(opens?.data['2026-03-01T12:55:00.000Z']).toBe(1);
    expect(opens?.data['2026-03-01T10:05:00.000Z']).toBe(0);
    expect(clicks?.data['2026-03-01T10:05:00.000Z']).toBe(4);
    expect(Object.values(clicks?.data ?? {}).reduce((a, b) => a + b, 0)).toBe(4);
  });

  test('no metrics, no series', () => {
    expect(buildSeries([], w, [])).toEqual([]);
  });
});

describe('timeline properties', () => {
  const timeframes = Object.keys(TIMEFRAMES) as Timeframe[];
  const arbTimeframe = fc.constantFrom(...timeframes);
  // 2000-01-01 .. 2100-01-01
  const arbInstant = fc.integer({ min: 946_684_800_000, max: 4_102_444_800_000 }).map((ms) => new Date(ms));

  test('number of buckets = timeframe / interval, every start on the epoch grid', () => {
    fc.assert(
      fc.property(arbTimeframe, fc.option(arbInstant, { nil: null }), arbInstant, (timeframe, beginSendAt, now) => {
        const w = timelineWindow({ timeframe, beginSendAt, now });
        const { durationMs, intervalMs } = TIMEFRAMES[timeframe];
        expect(w.bucketStarts).toHaveLength(durationMs / intervalMs);
        expect(w.end.getTime() - w.start.getTime()).toBe(durationMs);
        for (const b of w.bucketStarts) expect(b.getTime() % intervalMs).toBe(0);
        const anchor = beginSendAt ? beginSendAt.getTime() : now.getTime() - durationMs;
        expect(w.start.getTime()).toBeLessThanOrEqual(anchor);
        expect(anchor - w.start.getTime()).toBeLessThan(intervalMs);
      }),
    );
  });

  test('bucket counts sum to the number of events inside the window', () => {
    fc.assert(
      fc.property(
        arbTimeframe,
        arbInstant,
        fc.array(fc.integer({ min: -20 * 86_400_000, max: 20 * 86_400_000 }), { maxLength: 200 }),
        (timeframe, beginSendAt, offsets) => {
          const w = timelineWindow({ timeframe, beginSendAt, now: beginSendAt });
          const events = offsets.map((o) => new Date(beginSendAt.getTime() + o));
          const inside = events.filter((e) => e >= w.start && e < w.end).length;
          const [series] = buildSeries(
            ['Opens'],
            w,
            events.map((bucket) => ({ metric: 'Opens', bucket, count: 1 })),
          );
          const total = Object.values(series?.data ?? {}).reduce((a, b) => a + b, 0);
          expect(total).toBe(inside);
          for (const e of events) {
            const b = bucketOf(e, w);
            if (b !== null) expect(series?.data[b.toISOString()]).toBeGreaterThan(0);
          }
        },
      ),
    );
  });
});

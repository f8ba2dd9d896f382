import { Clock } from '@mailcast/core';
import request from 'supertest';
import { recordControlledSend, type SendScript } from '../../test-support/controlled-send';
import { startApi, type ApiHarness } from '../../test-support/harness';

const D = '2026-03-01T';
const E = '2026-03-02T';

/**
 * Twelve recipients: 0–6 accepted, 7 bounced, 8 delayed then failed after a retry, 9–11
 * skipped. Four links, the fourth never clicked. Every figure below is counted by hand from
 * this script.
 */
const SCRIPT: SendScript = {
  status: 'partial_failure',
  beginSendAt: `${D}10:07:30Z`,
  sentAt: `${D}10:40:05Z`,
  recipients: ['sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'sent', 'bounced', 'failed', 'skipped', 'skipped', 'skipped'],
  links: ['https://example.com/a', 'https://example.com/b', 'https://example.com/c', 'https://example.com/d'],
  events: [
    ...[0, 1, 2, 3, 4, 5, 6, 7, 8].map((recipient) => ({ recipient, kind: 'processed' as const, at: `${D}10:08:00Z` })),
    ...[0, 1, 2, 3, 4, 5, 6].map((recipient) => ({ recipient, kind: 'delivered' as const, at: `${D}10:08:30Z` })),
    { recipient: 7, kind: 'bounced', at: `${D}10:08:40Z` },
    { recipient: 8, kind: 'delayed', at: `${D}10:08:50Z` },
    { recipient: 8, kind: 'processed', at: `${D}10:40:00Z` },
    { recipient: 8, kind: 'failed', at: `${D}10:40:05Z` },
    // Opens: 8 events by 5 recipients (0 three times, 1 twice).
    { recipient: 0, kind: 'opened', at: `${D}10:15:00Z` },
    { recipient: 0, kind: 'opened', at: `${D}10:16:00Z` },
    { recipient: 1, kind: 'opened', at: `${D}10:20:00Z` },
    { recipient: 2, kind: 'opened', at: `${D}10:59:59Z` },
    { recipient: 1, kind: 'opened', at: `${D}11:05:00Z` },
    { recipient: 0, kind: 'opened', at: `${D}12:30:00Z` },
    { recipient: 3, kind: 'opened', at: `${E}09:30:00Z` },
    { recipient: 4, kind: 'opened', at: `${E}11:00:00Z` },
    // Clicks: 8 events by 5 recipients on 3 links; recipients 5 and 6 click without an open.
    { recipient: 0, kind: 'clicked', link: 0, at: `${D}10:17:00Z` },
    { recipient: 0, kind: 'clicked', link: 0, at: `${D}10:18:00Z` },
    { recipient: 0, kind: 'clicked', link: 1, at: `${D}10:19:00Z` },
    { recipient: 1, kind: 'clicked', link: 1, at: `${D}10:21:00Z` },
    { recipient: 0, kind: 'clicked', link: 0, at: `${D}10:25:00Z` },
    { recipient: 5, kind: 'clicked', link: 2, at: `${D}10:30:00Z` },
    { recipient: 6, kind: 'clicked', link: 1, at: `${D}10:45:00Z` },
    { recipient: 2, kind: 'clicked', link: 0, at: `${D}11:00:00Z` },
    { recipient: 3, kind: 'complained', at: `${D}10:50:00Z` },
    // One-click unsubscribe sent twice: one recipient.
    { recipient: 4, kind: 'unsubscribed', at: `${D}10:55:00Z` },
    { recipient: 4, kind: 'unsubscribed', at: `${D}10:56:00Z` },
  ],
};

const NOW = new Date('2026-03-05T12:34:56Z');

/** The keys of every bucket of a window, for comparing with `series[].data`. */
function grid(start: string, count: number, stepMs: number): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.parse(start) + i * stepMs).toISOString());
}

/** A data object: every bucket 0 except the ones given. */
function data(start: string, count: number, stepMs: number, counts: Record<string, number> = {}): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of grid(start, count, stepMs)) out[key] = 0;
  for (const [at, n] of Object.entries(counts)) {
    const key = new Date(at).toISOString();
    if (!(key in out)) throw new Error(`${key} is not a bucket`);
    out[key] = n;
  }
  return out;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

describe('broadcast statistics over HTTP (spec: Statistics, Timeline, Link statistics; docs/statistics.md)', () => {
  let api: ApiHarness;
  let token: string;
  let broadcastId: number;
  let linkIds: number[];
  let draftId: number;
  let theirId: number;

  beforeAll(async () => {
    api = await startApi({ overrides: [{ token: Clock, value: { now: () => NOW } }] });
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    ({ broadcastId, linkIds } = await recordControlledSend(api, tenant.channel.id, SCRIPT));
    draftId = (await api.fixtures.aBroadcast(tenant.channel.id, { name: 'Draft', subject: 'Later' }, new Date('2026-03-04T08:00:00Z'))).id;
    const other = await api.fixtures.aTenant();
    theirId = (await recordControlledSend(api, other.channel.id, SCRIPT)).broadcastId;
  });
  afterAll(() => api.close());

  const get = (path: string, as = token) => request(api.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${as}`);

  describe('GET /broadcasts/:id/statistics', () => {
    it('answers every field of the summary, counted by unique recipient', async () => {
      const res = await get(`/broadcasts/${broadcastId}/statistics`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        broadcast_id: broadcastId,
        broadcast_name: 'Statistics',
        ab_test: null,
        broadcast_subject: 'Numbers',
        status: 'partial_failure',
        total_recipients: 12,
        sent_at: '2026-03-01T10:40:05.000Z',
        begin_send_at: '2026-03-01T10:07:30.000Z',
        created_at: '2026-02-28T09:00:00.000Z',
        tracking: { track_opens: true, track_clicks: true },
        // sent: 0–6 accepted; failed: 7 bounced + 8 failed; 7 / 12 recipients.
        delivery: { sent: 7, failed: 2, delivery_rate: 58.33 },
        engagement: {
          opens: { count: 5, rate: 71.43 }, // 0–4 opened; 5 / 7 sent
          clicks: { count: 5, rate: 71.43 }, // 0, 1, 2, 5, 6 clicked; a click is not an open
          unique_links_clicked: 3,
          // Seeded without a classification: neither human nor machine (docs/engagement.md).
          human_opens: { count: 0, rate: 0 },
          human_clicks: { count: 0, rate: 0 },
        },
        issues: {
          bounces: { count: 1, rate: 14.29 },
          complaints: { count: 1, rate: 14.29 },
          unsubscribes: { count: 1, rate: 14.29 },
        },
      });
    });

    it('answers zeros, never NaN, for a broadcast with nothing sent', async () => {
      const res = await get(`/broadcasts/${draftId}/statistics`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        broadcast_id: draftId,
        broadcast_name: 'Draft',
        ab_test: null,
        broadcast_subject: 'Later',
        status: 'draft',
        total_recipients: 0,
        sent_at: null,
        begin_send_at: null,
        created_at: '2026-03-04T08:00:00.000Z',
        tracking: { track_opens: true, track_clicks: true },
        delivery: { sent: 0, failed: 0, delivery_rate: 0 },
        engagement: {
          opens: { count: 0, rate: 0 },
          clicks: { count: 0, rate: 0 },
          unique_links_clicked: 0,
          human_opens: { count: 0, rate: 0 },
          human_clicks: { count: 0, rate: 0 },
        },
        issues: {
          bounces: { count: 0, rate: 0 },
          complaints: { count: 0, rate: 0 },
          unsubscribes: { count: 0, rate: 0 },
        },
      });
    });
  });

  describe('GET /broadcasts/:id/statistics/timeline', () => {
    it('defaults to 24h by the hour from begin_send_at floored, every metric, a key for every bucket', async () => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/timeline`);
      expect(res.status).toBe(200);
      const start = `${D}10:00:00.000Z`;
      expect(res.body).toEqual({
        broadcast_id: broadcastId,
        timeframe: '24h',
        interval: '1h',
        start_time: start,
        end_time: `${E}10:00:00.000Z`,
        series: [
          // The retry's second hand-over counts: Processed is events.
          { name: 'Processed', data: data(start, 24, HOUR, { [`${D}10:00Z`]: 10 }) },
          { name: 'Delivered', data: data(start, 24, HOUR, { [`${D}10:00Z`]: 7 }) },
          // Opens at 10:15, 10:16, 10:20, 10:59:59 | 11:05 | 12:30 | next day 09:30; 11:00 next day is outside.
          {
            name: 'Opens',
            data: data(start, 24, HOUR, { [`${D}10:00Z`]: 4, [`${D}11:00Z`]: 1, [`${D}12:00Z`]: 1, [`${E}09:00Z`]: 1 }),
          },
          { name: 'Clicks', data: data(start, 24, HOUR, { [`${D}10:00Z`]: 7, [`${D}11:00Z`]: 1 }) },
          { name: 'Bounces', data: data(start, 24, HOUR, { [`${D}10:00Z`]: 1 }) },
        ],
      });
    });

    it('60m: by the minute from 10:07, the metrics filter in the caller’s order', async () => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/timeline?timeframe=60m&metrics=Clicks,Opens,Bounces`);
      expect(res.status).toBe(200);
      const start = `${D}10:07:00.000Z`;
      const minutes = (...hm: string[]) => Object.fromEntries(hm.map((t) => [`${D}${t}Z`, 1]));
      expect(res.body).toEqual({
        broadcast_id: broadcastId,
        timeframe: '60m',
        interval: '1m',
        start_time: start,
        end_time: `${D}11:07:00.000Z`,
        series: [
          { name: 'Clicks', data: data(start, 60, MIN, minutes('10:17', '10:18', '10:19', '10:21', '10:25', '10:30', '10:45', '11:00')) },
          { name: 'Opens', data: data(start, 60, MIN, minutes('10:15', '10:16', '10:20', '10:59', '11:05')) },
          { name: 'Bounces', data: data(start, 60, MIN, minutes('10:08')) },
        ],
      });
    });

    it('3h: five-minute buckets from 10:05', async () => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/timeline?timeframe=3h&metrics=Opens,Processed`);
      const start = `${D}10:05:00.000Z`;
      expect(res.body.start_time).toBe(start);
      expect(res.body.end_time).toBe(`${D}13:05:00.000Z`);
      expect(res.body.interval).toBe('5m');
      expect(res.body.series).toEqual([
        {
          name: 'Opens',
          data: data(start, 36, 5 * MIN, {
            [`${D}10:15Z`]: 2,
            [`${D}10:20Z`]: 1,
            [`${D}10:55Z`]: 1,
            [`${D}11:05Z`]: 1,
            [`${D}12:30Z`]: 1,
          }),
        },
        { name: 'Processed', data: data(start, 36, 5 * MIN, { [`${D}10:05Z`]: 9, [`${D}10:40Z`]: 1 }) },
      ]);
    });

    it('48h and 7d: hour rollups summed into 2h and 6h buckets on the epoch grid', async () => {
      const twoDays = await get(`/broadcasts/${broadcastId}/statistics/timeline?timeframe=48h&metrics=Opens`);
      const s48 = `${D}10:00:00.000Z`;
      expect(twoDays.body).toMatchObject({ interval: '2h', start_time: s48, end_time: '2026-03-03T10:00:00.000Z' });
      expect(twoDays.body.series).toEqual([
        { name: 'Opens', data: data(s48, 24, 2 * HOUR, { [`${D}10:00Z`]: 5, [`${D}12:00Z`]: 1, [`${E}08:00Z`]: 1, [`${E}10:00Z`]: 1 }) },
      ]);
      const week = await get(`/broadcasts/${broadcastId}/statistics/timeline?timeframe=7d&metrics=Opens,Clicks`);
      const s7 = `${D}06:00:00.000Z`;
      expect(week.body).toMatchObject({ interval: '6h', start_time: s7, end_time: '2026-03-08T06:00:00.000Z' });
      expect(week.body.series).toEqual([
        { name: 'Opens', data: data(s7, 28, 6 * HOUR, { [`${D}06:00Z`]: 5, [`${D}12:00Z`]: 1, [`${E}06:00Z`]: 2 }) },
        { name: 'Clicks', data: data(s7, 28, 6 * HOUR, { [`${D}06:00Z`]: 8 }) },
      ]);
    });

    it.each([
      ['60m', '1m', 60, MIN, '10:07', 8],
      ['120m', '2m', 60, 2 * MIN, '10:06', 8],
      ['3h', '5m', 36, 5 * MIN, '10:05', 8],
      ['6h', '10m', 36, 10 * MIN, '10:00', 8],
      ['12h', '20m', 36, 20 * MIN, '10:00', 8],
      ['18h', '30m', 36, 30 * MIN, '10:00', 8],
      ['24h', '1h', 24, HOUR, '10:00', 8],
      ['48h', '2h', 24, 2 * HOUR, '10:00', 8],
      ['72h', '3h', 24, 3 * HOUR, '09:00', 8],
      ['7d', '6h', 28, 6 * HOUR, '06:00', 8],
      ['14d', '12h', 28, 12 * HOUR, '00:00', 8],
    ])('%s: interval %s, %i buckets of %i ms from %s, clicks summing to %i', async (timeframe, interval, buckets, stepMs, from, clicks) => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/timeline?timeframe=${timeframe}&metrics=Clicks`);
      expect(res.status).toBe(200);
      const start = `${D}${from}:00.000Z`;
      expect(res.body).toMatchObject({ timeframe, interval, start_time: start });
      expect(Date.parse(res.body.end_time) - Date.parse(start)).toBe(buckets * stepMs);
      const series = res.body.series as Array<{ name: string; data: Record<string, number> }>;
      expect(series.map((s) => s.name)).toEqual(['Clicks']);
      expect(Object.keys(series[0]!.data)).toEqual(grid(start, buckets, stepMs));
      expect(Object.values(series[0]!.data).reduce((a, b) => a + b, 0)).toBe(clicks);
    });

    it('a broadcast not yet sent: the window ends now (floored) and is all zeros', async () => {
      const res = await get(`/broadcasts/${draftId}/statistics/timeline?timeframe=60m&metrics=Delivered`);
      expect(res.status).toBe(200);
      const start = '2026-03-05T11:34:00.000Z'; // 12:34:56 − 60 min, floored to the minute
      expect(res.body).toEqual({
        broadcast_id: draftId,
        timeframe: '60m',
        interval: '1m',
        start_time: start,
        end_time: '2026-03-05T12:34:00.000Z',
        series: [{ name: 'Delivered', data: data(start, 60, MIN) }],
      });
      const day = await get(`/broadcasts/${draftId}/statistics/timeline`);
      expect(day.body).toMatchObject({ start_time: '2026-03-04T12:00:00.000Z', end_time: '2026-03-05T12:00:00.000Z' });
    });

    it.each([
      ['timeframe=1h', 'Invalid timeframe'],
      ['timeframe=30d', 'Invalid timeframe'],
      ['metrics=Views', 'Invalid metric: Views'],
      ['metrics=Opens,Sent', 'Invalid metric: Sent'],
      ['timeframe=24h&timeframe=48h', 'timeframe must be a string'],
      ['metrics[a]=Opens', 'metrics must be a string'],
    ])('answers %s with 422 {error}', async (query, message) => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/timeline?${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: message });
    });
  });

  describe('GET /broadcasts/:id/statistics/links', () => {
    // Link a: 4 clicks by 0 (×3) and 2; b: 3 clicks by 0, 1, 6; c: 1 by 5; d: none. Sent = 7.
    const item = (i: number) =>
      [
        {
          identifier: 'l1',
          url: 'https://example.com/a',
          clicks: 4,
          total_clicks: 4,
          unique_clicks: 2,
          human_clicks: 0,
          click_rate: 28.57,
          first_clicked_at: '2026-03-01T10:17:00.000Z',
          last_clicked_at: '2026-03-01T11:00:00.000Z',
        },
        {
          identifier: 'l2',
          url: 'https://example.com/b',
          clicks: 3,
          total_clicks: 3,
          unique_clicks: 3,
          human_clicks: 0,
          click_rate: 42.86,
          first_clicked_at: '2026-03-01T10:19:00.000Z',
          last_clicked_at: '2026-03-01T10:45:00.000Z',
        },
        {
          identifier: 'l3',
          url: 'https://example.com/c',
          clicks: 1,
          total_clicks: 1,
          unique_clicks: 1,
          human_clicks: 0,
          click_rate: 14.29,
          first_clicked_at: '2026-03-01T10:30:00.000Z',
          last_clicked_at: '2026-03-01T10:30:00.000Z',
        },
        {
          identifier: 'l4',
          url: 'https://example.com/d',
          clicks: 0,
          total_clicks: 0,
          unique_clicks: 0,
          human_clicks: 0,
          click_rate: 0,
          first_clicked_at: null,
          last_clicked_at: null,
        },
      ].map((l, n) => ({ id: linkIds[n], ...l }))[i];

    it('defaults to total clicks, descending, every field of the link item', async () => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/links`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        broadcast_id: broadcastId,
        total_links: 4,
        total_clicks: 8,
        links: [item(0), item(1), item(2), item(3)],
      });
    });

    it.each([
      ['sort=total&order=desc', [0, 1, 2, 3]],
      ['sort=total&order=asc', [3, 2, 1, 0]],
      ['sort=unique', [1, 0, 2, 3]],
      ['sort=unique&order=asc', [3, 2, 0, 1]],
      ['order=asc&limit=2', [3, 2]],
      ['sort=unique&limit=1', [1]],
      ['limit=501', [0, 1, 2, 3]],
      ['limit=100000', [0, 1, 2, 3]],
    ])('%s → links %j, totals over every link', async (query, order) => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/links?${query}`);
      expect(res.status).toBe(200);
      expect(res.body.total_links).toBe(4);
      expect(res.body.total_clicks).toBe(8);
      expect(res.body.links).toEqual(order.map(item));
    });

    it('a broadcast without links', async () => {
      const res = await get(`/broadcasts/${draftId}/statistics/links`);
      expect(res.body).toEqual({ broadcast_id: draftId, total_links: 0, total_clicks: 0, links: [] });
    });

    it.each([
      ['sort=clicks', 'Invalid sort'],
      ['order=up', 'Invalid order'],
      ['limit=0', 'Invalid limit'],
      ['limit=-1', 'Invalid limit'],
      ['limit=ten', 'Invalid limit'],
      ['limit=2.5', 'Invalid limit'],
      ['limit=1&limit=2', 'limit must be a string'],
    ])('answers %s with 422 {error}', async (query, message) => {
      const res = await get(`/broadcasts/${broadcastId}/statistics/links?${query}`);
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: message });
    });
  });

  describe('scope and permission', () => {
    const paths = ['statistics', 'statistics/timeline', 'statistics/links'];

    it.each(paths)("%s: another channel's broadcast, an unknown or malformed id is 404 Broadcast not found", async (path) => {
      for (const id of [theirId, 999999, 'abc', 0]) {
        const res = await get(`/broadcasts/${id}/${path}`);
        expect([id, res.status, res.body]).toEqual([id, 404, { error: 'Broadcast not found' }]);
      }
    });

    it.each(paths)('%s: 404 comes before judging the query', async (path) => {
      const res = await get(`/broadcasts/${theirId}/${path}?timeframe=nope&sort=nope`);
      expect(res.status).toBe(404);
    });

    it.each(paths)('%s: needs broadcasts_read', async (path) => {
      const channelId = (await api.database.db('broadcasts').where({ id: broadcastId }).first('channel_id')).channel_id as number;
      const writeOnly = await api.fixtures.aToken(channelId, ['broadcasts_write']);
      const res = await get(`/broadcasts/${broadcastId}/${path}`, writeOnly);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'Unauthorized' });
      const readOnly = await api.fixtures.aToken(channelId, ['broadcasts_read']);
      expect((await get(`/broadcasts/${broadcastId}/${path}`, readOnly)).status).toBe(200);
    });
  });
});

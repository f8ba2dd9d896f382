import { Clock, PruneOldRows, RetentionPolicy } from '@mailcast/core';
import request from 'supertest';
import { recordControlledSend, type SendScript } from '../../api/src/test-support/controlled-send';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { retentionConfig } from './config';

const D = '2026-03-01T';
const DAY = 24 * 60 * 60 * 1000;

/** A small send with every kind of statistic: deliveries, a bounce, opens, clicks on two links. */
const SCRIPT: SendScript = {
  status: 'partial_failure',
  beginSendAt: `${D}10:00:00Z`,
  sentAt: `${D}10:30:00Z`,
  recipients: ['sent', 'sent', 'sent', 'bounced'],
  links: ['https://example.com/a', 'https://example.com/b'],
  events: [
    ...[0, 1, 2, 3].map((recipient) => ({ recipient, kind: 'processed' as const, at: `${D}10:01:00Z` })),
    ...[0, 1, 2].map((recipient) => ({ recipient, kind: 'delivered' as const, at: `${D}10:02:00Z` })),
    { recipient: 3, kind: 'bounced', at: `${D}10:02:30Z` },
    { recipient: 0, kind: 'opened', at: `${D}10:15:00Z` },
    { recipient: 0, kind: 'opened', at: `${D}11:15:00Z` },
    { recipient: 1, kind: 'opened', at: `${D}12:00:00Z` },
    { recipient: 0, kind: 'clicked', link: 0, at: `${D}10:16:00Z` },
    { recipient: 1, kind: 'clicked', link: 1, at: `${D}12:01:00Z` },
    { recipient: 2, kind: 'unsubscribed', at: `${D}13:00:00Z` },
  ],
};

/**
 * Retention (docs/retention.md) with the clock moved through the Clock port: rows past their
 * table's period are pruned, in batches, and nothing else; the statistics answer exactly as
 * before, because they are read from aggregates, never from the raw rows.
 */
describe('retention: old rows pruned, statistics unchanged', () => {
  let now = new Date('2026-03-05T00:00:00Z');
  let api: ApiHarness;
  const policy = { ...retentionConfig({}).policy, batchSize: 2 };

  beforeAll(async () => {
    api = await startApi({
      overrides: [
        { token: Clock, value: { now: () => now } },
        { token: RetentionPolicy, value: policy },
      ],
    });
  });
  afterAll(() => api.close());

  it('deletes what is older than its period, keeps what still waits, and the statistics do not move', async () => {
    const db = api.database.db;
    const { channel, token } = await api.fixtures.aTenant();
    const { broadcastId } = await recordControlledSend(api, channel.id, SCRIPT);
    const endpoint = (
      await db('webhook_endpoints')
        .insert({ channel_id: channel.id, url: 'https://hooks.example.com/in', event_types: ['email.sent'], secret: 'x' })
        .returning('id')
    )[0].id as number;
    const old = new Date('2026-03-01T10:00:00Z');
    const event = async (dispatched: boolean, createdAt = old) =>
      (
        await db('events')
          .insert({ channel_id: channel.id, type: 'email.sent', data: {}, created_at: createdAt, dispatched_at: dispatched ? createdAt : null })
          .returning('id')
      )[0].id as number;
    const delivery = (eventId: number, status: string, createdAt = old) =>
      db('webhook_deliveries').insert({
        channel_id: channel.id,
        event_id: eventId,
        webhook_endpoint_id: endpoint,
        event_type: 'email.sent',
        status,
        created_at: createdAt,
        updated_at: createdAt,
      });
    // Old and done: five events whose deliveries finished one way or another, or that had none.
    const done = [await event(true), await event(true), await event(true), await event(true), await event(true)];
    await delivery(done[0]!, 'succeeded');
    await delivery(done[1]!, 'failed');
    await delivery(done[2]!, 'cancelled');
    // Old but still waiting: an event not yet fanned out, and one whose delivery is pending.
    const undispatched = await event(false);
    const waiting = await event(true);
    await delivery(waiting, 'pending');
    await db('idempotency_keys').insert([
      // Idempotency keys live 24 hours: this one an hour so far, the other a minute at the end.
      { token_id: 1, key: 'old', fingerprint: 'f', created_at: new Date(now.getTime() - 60 * 60_000) },
      { token_id: 1, key: 'fresh', fingerprint: 'f', created_at: new Date(Date.parse('2026-04-01T12:00:00Z') + 400 * DAY - 60_000) },
    ]);
    const emailEvents = await db('email_events').where({ broadcast_id: broadcastId }).count({ n: '*' });
    expect(Number(emailEvents[0]!.n)).toBe(SCRIPT.events.length);

    const get = async (path: string) => {
      const res = await request(api.app).get(`/api/v1/broadcasts/${broadcastId}${path}`).set('Authorization', `Bearer ${token}`);
      expect(res.status).toBe(200);
      return res.body as unknown;
    };
    const statistics = () =>
      Promise.all([
        get('/statistics'),
        get('/statistics/timeline?timeframe=24h&interval=1h&metrics=Processed,Delivered,Opens,Clicks,Bounces'),
        get('/statistics/links'),
      ]);
    const before = await statistics();
    expect(before[0]).toMatchObject({ delivery: { sent: 3, failed: 1 }, engagement: { opens: { count: 2 }, clicks: { count: 2 } } });
    const prune = () => api.container.resolve(PruneOldRows).execute();
    const count = async (table: string) => Number((await db(table).where({ channel_id: channel.id }).count({ n: '*' }))[0]!.n);

    // Four days on: nothing has reached its period yet.
    expect(await prune()).toEqual({ webhook_deliveries: 0, events: 0, email_events: 0, idempotency_keys: 0, audit_log: 0 });

    // 31 days after the send: deliveries and outbox events go; raw email events (180 days) stay.
    now = new Date('2026-04-01T12:00:00Z');
    expect(await prune()).toEqual({ webhook_deliveries: 3, events: 5, email_events: 0, idempotency_keys: 1, audit_log: 0 });
    expect(await db('webhook_deliveries').where({ channel_id: channel.id }).pluck('event_id')).toEqual([waiting]);
    expect((await db('events').where({ channel_id: channel.id }).pluck('id')).sort()).toEqual([undispatched, waiting].sort());
    expect(await count('email_events')).toBe(SCRIPT.events.length);

    // 400 days on: every raw email event goes too, in batches of two; the fresh key stays.
    now = new Date(now.getTime() + 400 * DAY);
    expect(await prune()).toEqual({ webhook_deliveries: 0, events: 0, email_events: SCRIPT.events.length, idempotency_keys: 0, audit_log: 0 });
    expect(await count('email_events')).toBe(0);
    expect(await db('idempotency_keys').pluck('key')).toEqual(['fresh']);
    // What still waits is never pruned, however old.
    expect(await count('webhook_deliveries')).toBe(1);
    expect(await count('events')).toBe(2);

    expect(await statistics()).toEqual(before);
  });

  it('reads the periods from the environment; 0 keeps a table for ever; a bad value is refused', () => {
    const settings = retentionConfig({ MAILCAST_RETENTION_EVENTS_DAYS: '7', MAILCAST_RETENTION_EMAIL_EVENTS_DAYS: '0' });
    expect(settings.policy.keepMs).toEqual({ webhook_deliveries: 30 * DAY, events: 7 * DAY, email_events: null, idempotency_keys: DAY, audit_log: 365 * DAY });
    expect(retentionConfig({ MAILCAST_RETENTION_AUDIT_LOG_DAYS: '730' }).policy.keepMs.audit_log).toBe(730 * DAY);
    expect(settings.intervalMs).toBe(60 * 60 * 1000);
    expect(() => retentionConfig({ MAILCAST_RETENTION_WEBHOOK_DELIVERIES_DAYS: '-1' })).toThrow(
      '"MAILCAST_RETENTION_WEBHOOK_DELIVERIES_DAYS" must be an integer of at least 0',
    );
  });
});

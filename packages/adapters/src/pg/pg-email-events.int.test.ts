import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { PgEmailEvents } from './pg-email-events';

describe('PgEmailEvents: one row per occurrence, first occurrence per recipient told apart', () => {
  let database: TestDatabase;
  let events: PgEmailEvents;
  let ids: { channelId: number; broadcastId: number; recipients: number[]; subscribers: number[]; links: number[] };

  beforeAll(async () => {
    database = await createTestDatabase();
    events = new PgEmailEvents(database.db);
    const db = database.db;
    const [channel] = await db('channels').insert({ name: 'c' }).returning('id');
    const channelId = (channel as { id: number }).id;
    const [broadcast] = await db('broadcasts')
      .insert({ channel_id: channelId, subject: 's', track_opens: true, track_clicks: true })
      .returning('id');
    const broadcastId = (broadcast as { id: number }).id;
    const subscribers = (
      await db('subscribers').insert([{ channel_id: channelId, email: 'a@example.com' }, { channel_id: channelId, email: 'b@example.com' }]).returning('id')
    ).map((r: { id: number }) => r.id);
    const recipients = (
      await db('broadcast_recipients')
        .insert(subscribers.map((s, i) => ({ broadcast_id: broadcastId, subscriber_id: s, message_id: `<m${i}@t>` })))
        .returning('id')
    ).map((r: { id: number }) => r.id);
    const links = (
      await db('broadcast_links')
        .insert([{ broadcast_id: broadcastId, identifier: 'l1', url: 'https://a.example/' }, { broadcast_id: broadcastId, identifier: 'l2', url: 'https://b.example/' }])
        .returning('id')
    ).map((r: { id: number }) => r.id);
    ids = { channelId, broadcastId, recipients, subscribers, links };
  });
  afterAll(() => database.drop());

  const at = new Date('2026-11-22T10:00:00Z');
  const record = (recipient: 0 | 1, kind: 'opened' | 'clicked', link?: 0 | 1) =>
    events.record({
      channelId: ids.channelId,
      broadcastId: ids.broadcastId,
      recipientId: ids.recipients[recipient]!,
      subscriberId: ids.subscribers[recipient]!,
      kind,
      linkId: link === undefined ? null : ids.links[link]!,
      occurredAt: at,
      data: { user_agent: 'test' },
    });

  it('marks the first open of each recipient, and only the first', async () => {
    expect((await record(0, 'opened')).firstForRecipient).toBe(true);
    expect((await record(0, 'opened')).firstForRecipient).toBe(false);
    expect((await record(1, 'opened')).firstForRecipient).toBe(true);
    const rows = await database.db('email_events').where({ broadcast_id: ids.broadcastId, type: 'opened' }).select('occurred_at', 'data');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toEqual({ occurred_at: at, data: { user_agent: 'test' } });
  });

  it('tells first clicks apart per link', async () => {
    expect((await record(0, 'clicked', 0)).firstForRecipient).toBe(true);
    expect((await record(0, 'clicked', 1)).firstForRecipient).toBe(true);
    expect((await record(0, 'clicked', 0)).firstForRecipient).toBe(false);
  });
});

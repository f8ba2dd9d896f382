import { createTestDatabase, eventually, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import type { Broadcast } from '@mailcast/core';
import { parseSegmentDefinition, type SegmentDefinition } from '@mailcast/domain';
import { PgRecipientStore } from './pg-recipient-store';

const definition = (rules: unknown[]): SegmentDefinition => {
  const parsed = parseSegmentDefinition('all', rules);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
};

describe('PgRecipientStore queueing (docs/segments.md, Queueing)', () => {
  let database: TestDatabase;
  let store: PgRecipientStore;
  let channelId: number;
  let otherChannelId: number;

  const subscriber = async (channel: number, email: string, extra: Record<string, unknown> = {}) =>
    (
      await database
        .db('subscribers')
        .insert({ channel_id: channel, email, tags: ['vip'], ...extra })
        .returning('id')
    )[0].id as number;
  const aBroadcast = async (segmentIds: number[]): Promise<Broadcast> => {
    const [{ id }] = await database
      .db('broadcasts')
      .insert({
        channel_id: channelId,
        name: 'b',
        subject: 's',
        body: 'b',
        track_opens: false,
        track_clicks: false,
        status: 'queueing',
        segment_ids: segmentIds,
      })
      .returning('id');
    return (await store.findBroadcast(id))!;
  };
  const recipients = async (broadcastId: number) =>
    (
      await database
        .db('broadcast_recipients as r')
        .join('subscribers as s', 's.id', 'r.subscriber_id')
        .where({ 'r.broadcast_id': broadcastId })
        .orderBy('s.email')
        .select('s.email', 'r.status')
    ).map((r: { email: string; status: string }) => `${r.email} ${r.status}`);
  const vipOrNamed = [
    definition([{ field: 'tags', operator: 'includes', value: 'vip' }]),
    definition([{ field: 'email', operator: 'equals', value: 'plain@q.test' }]),
  ];
  const audience = { definitions: vipOrNamed, now: new Date() };

  beforeAll(async () => {
    database = await createTestDatabase();
    store = new PgRecipientStore(database.db, throwawaySecretBox());
    [{ id: channelId }, { id: otherChannelId }] = await database
      .db('channels')
      .insert([{ name: 'queueing' }, { name: 'other' }])
      .returning('id');
    await subscriber(channelId, 'member@q.test');
    await subscriber(channelId, 'plain@q.test', { tags: [] });
    await subscriber(channelId, 'outsider@q.test', { tags: [] });
    await subscriber(channelId, 'inactive@q.test', { is_active: false });
    await subscriber(channelId, 'unconfirmed@q.test', { requires_confirmation: true });
    await subscriber(channelId, 'confirmed@q.test', { requires_confirmation: true, confirmed_at: new Date() });
    await subscriber(channelId, 'redacted@q.test', { redacted_at: new Date() });
    await subscriber(channelId, 'suppressed-here@q.test');
    await subscriber(channelId, 'suppressed-twice@q.test');
    await subscriber(channelId, 'suppressed-elsewhere@q.test');
    await subscriber(otherChannelId, 'member@q.test');
    await database.db('suppressions').insert([
      { channel_id: channelId, email: 'suppressed-here@q.test', reason: 'manual' },
      { channel_id: channelId, email: 'suppressed-twice@q.test', reason: 'manual' },
      { channel_id: null, email: 'suppressed-twice@q.test', reason: 'bounce' },
      { channel_id: otherChannelId, email: 'suppressed-elsewhere@q.test', reason: 'manual' },
    ]);
  });
  afterAll(() => database.drop());

  const expected = [
    'confirmed@q.test pending',
    'member@q.test pending',
    'plain@q.test pending',
    'suppressed-elsewhere@q.test pending',
    'suppressed-here@q.test skipped',
    'suppressed-twice@q.test skipped',
  ];

  it('queues the sendable members of the segments once each, suppressed ones as skipped; a rerun adds nobody', async () => {
    const broadcast = await aBroadcast([1, 2]);
    expect(await store.materializeAudience(broadcast, 'x@q.test', audience)).toBe(expected.length);
    expect(await recipients(broadcast.id)).toEqual(expected);
    expect(await store.materializeAudience(broadcast, 'y@q.test', audience)).toBe(0);
    expect(await recipients(broadcast.id)).toEqual(expected);
  });

  it('a rerun after a partial queueing adds only the missing members', async () => {
    const broadcast = await aBroadcast([1]);
    const member = await database.db('subscribers').where({ channel_id: channelId, email: 'member@q.test' }).first('id');
    await database.db('broadcast_recipients').insert({ broadcast_id: broadcast.id, subscriber_id: member.id, message_id: '<earlier@q.test>' });
    expect(await store.materializeAudience(broadcast, 'x@q.test', audience)).toBe(expected.length - 1);
    expect(await recipients(broadcast.id)).toEqual(expected);
  });

  it('two queueings of one broadcast at once insert each member once', async () => {
    const broadcast = await aBroadcast([1, 2]);
    // Both are held at the insert until both are under way, so they overlap for certain.
    const blocker = await database.db.transaction();
    await blocker.raw('LOCK TABLE broadcast_recipients IN SHARE MODE');
    const running = Promise.all([store.materializeAudience(broadcast, 'a@q.test', audience), store.materializeAudience(broadcast, 'b@q.test', audience)]);
    await eventually(async () => {
      const { rows } = await database.db.raw(
        `SELECT count(*) AS waiting FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      return Number(rows[0].waiting) === 2 ? true : undefined;
    });
    await blocker.commit();
    expect((await running).sort()).toEqual([0, expected.length]);
    expect(await recipients(broadcast.id)).toEqual(expected);
  });

  it('no segment left queues nobody', async () => {
    const broadcast = await aBroadcast([9]);
    expect(await store.materializeAudience(broadcast, 'x@q.test', { definitions: [], now: new Date() })).toBe(0);
    expect(await recipients(broadcast.id)).toEqual([]);
  });

  it('refreshes the statistics when the queued rows are more than a tenth of those they describe', async () => {
    const reltuples = async () =>
      Number((await database.db.raw(`SELECT reltuples FROM pg_class WHERE oid = 'broadcast_recipients'::regclass`)).rows[0].reltuples);
    const fill = (broadcastId: number, rows: number) =>
      database.db.raw(
        `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id) SELECT ?, g, '<' || ? || '.' || g || '@q.test>' FROM generate_series(1, ?) g`,
        [broadcastId, broadcastId, rows],
      );
    expect(await store.refreshStatistics(0)).toBe(false);
    await fill((await aBroadcast([])).id, 200);
    await database.db.raw('ANALYZE broadcast_recipients');
    const described = await reltuples();
    expect(described).toBeGreaterThanOrEqual(200);
    await fill((await aBroadcast([])).id, described * 20);
    expect(await store.refreshStatistics(Math.floor(described / 10))).toBe(false);
    expect(await reltuples()).toBe(described);
    expect(await store.refreshStatistics(Math.floor(described / 10) + 1)).toBe(true);
    expect(await reltuples()).toBe(described * 21);
  });
});

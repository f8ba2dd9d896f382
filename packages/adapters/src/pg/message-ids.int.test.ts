import { createTestDatabase, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import type { Broadcast } from '@mailcast/core';
import { messageIdRecipient, parseSegmentDefinition, type SegmentDefinition } from '@mailcast/domain';
import { PgRecipientStore } from './pg-recipient-store';

const everyone = (): SegmentDefinition => {
  const parsed = parseSegmentDefinition('all', [{ field: 'email', operator: 'ends_with', value: '@m.test' }]);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  return parsed.definition;
};

/**
 * Issue 34, "also seen": a broadcast's recipients shared one Message-ID suffix, so any recipient
 * could write down another's Message-ID (`<broadcast.subscriber.suffix>`, subscriber ids being
 * sequential) and forge a bounce report about it. Each recipient's random part is now its own
 * (docs/bounces.md, Matching).
 */
describe('recipient Message-IDs', () => {
  let database: TestDatabase;
  let store: PgRecipientStore;
  let channelId: number;

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
  const messageIds = async (broadcastId: number): Promise<string[]> =>
    (await database.db('broadcast_recipients').where({ broadcast_id: broadcastId }).orderBy('subscriber_id').select('message_id')).map(
      (r: { message_id: string }) => r.message_id,
    );

  /** Each is `<broadcast.subscriber.random@host>`, found by its ids, and no two share a random part. */
  const expectOwnRandomParts = (ids: string[], broadcastId: number) => {
    expect(ids).toHaveLength(20);
    const parts = ids.map((id) => {
      const m = /^<(\d+)\.(\d+)\.([0-9a-f]{32})@m\.test>$/.exec(id);
      expect(m).not.toBeNull();
      expect(messageIdRecipient(id)).toEqual({ broadcastId, subscriberId: Number(m![2]) });
      return m![3];
    });
    expect(new Set(parts).size).toBe(ids.length);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    store = new PgRecipientStore(database.db, throwawaySecretBox());
    [{ id: channelId }] = await database.db('channels').insert({ name: 'message ids' }).returning('id');
    await database.db('subscribers').insert(Array.from({ length: 20 }, (_, i) => ({ channel_id: channelId, email: `r${i}@m.test` })));
  });
  afterAll(() => database.drop());

  it('a whole-channel broadcast gives every recipient a random part of its own', async () => {
    const broadcast = await aBroadcast([]);
    const range = (await store.subscriberIdRange(channelId))!;
    expect(await store.materialize(broadcast, range.min - 1, range.max, 100, '@m.test')).toEqual({ last: range.max, count: 20 });
    expectOwnRandomParts(await messageIds(broadcast.id), broadcast.id);
  });

  it('a segment broadcast does too', async () => {
    const broadcast = await aBroadcast([1]);
    expect(await store.materializeAudience(broadcast, '@m.test', { definitions: [everyone()], now: new Date() })).toBe(20);
    expectOwnRandomParts(await messageIds(broadcast.id), broadcast.id);
  });
});

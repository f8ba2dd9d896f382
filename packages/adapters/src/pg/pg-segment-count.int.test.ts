import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { parseSegmentDefinition, type SegmentDefinition } from '@mailcast/domain';
import { audienceChanges, CountCache } from './count-cache';
import { PgSegmentRepository, SEGMENT_COUNT_ALWAYS_EXACT_UP_TO, SEGMENT_COUNT_TTL_MS } from './pg-segment.repository';

describe('PgSegmentRepository.countMembers (docs/segments.md, subscribers_count)', () => {
  let database: TestDatabase;
  let now = 0;
  let segments: PgSegmentRepository;
  let channelId: number;

  const taggedWith = (tag: string): SegmentDefinition => {
    const parsed = parseSegmentDefinition('all', [{ field: 'tags', operator: 'includes', value: tag }]);
    if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
    return parsed.definition;
  };
  const add = (count: number, prefix: string, tag: string) =>
    database.db.raw(`INSERT INTO subscribers (channel_id, email, tags) SELECT ?, ? || g || '@segments.test', ARRAY[?] FROM generate_series(1, ?) g`, [
      channelId,
      prefix,
      tag,
      count,
    ]);

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'segments' }).returning('id');
    segments = new PgSegmentRepository(database.db, new CountCache(SEGMENT_COUNT_TTL_MS, 100, () => now));
  });
  afterAll(() => database.drop());

  it('counts a small segment again on every read', async () => {
    await add(SEGMENT_COUNT_ALWAYS_EXACT_UP_TO, 'small', 'small');
    expect(await segments.countMembers(channelId, taggedWith('small'), new Date())).toBe(SEGMENT_COUNT_ALWAYS_EXACT_UP_TO);
    await add(3, 'small-more', 'small');
    expect(await segments.countMembers(channelId, taggedWith('small'), new Date())).toBe(SEGMENT_COUNT_ALWAYS_EXACT_UP_TO + 3);
  });

  it('keeps a larger exact count for the time-to-live; countNow always asks the database', async () => {
    await add(1200, 'large', 'large');
    expect(await segments.countMembers(channelId, taggedWith('large'), new Date())).toBe(1200);
    await add(7, 'large-more', 'large');
    now += SEGMENT_COUNT_TTL_MS - 1;
    expect(await segments.countMembers(channelId, taggedWith('large'), new Date())).toBe(1200);
    expect(await segments.countNow(channelId, taggedWith('large'), new Date())).toBe(1207);
    now += 1;
    expect(await segments.countMembers(channelId, taggedWith('large'), new Date())).toBe(1207);
  });

  describe('with the audience change counter', () => {
    let kept: PgSegmentRepository;
    beforeAll(() => {
      kept = new PgSegmentRepository(database.db, new CountCache(SEGMENT_COUNT_TTL_MS, 100, () => now, audienceChanges(database.db)));
    });

    it('counts a committed change of subscribers at the next read, within the time-to-live', async () => {
      await add(1500, 'changing', 'changing');
      expect(await kept.countMembers(channelId, taggedWith('changing'), new Date())).toBe(1500);
      await add(2, 'changing-more', 'changing');
      expect(await kept.countMembers(channelId, taggedWith('changing'), new Date())).toBe(1502);
      await database.db('subscribers').where({ email: 'changing-more1@segments.test' }).update({ redacted_at: new Date() });
      expect(await kept.countMembers(channelId, taggedWith('changing'), new Date())).toBe(1501);
      await database.db('subscribers').where({ email: 'changing-more2@segments.test' }).delete();
      expect(await kept.countMembers(channelId, taggedWith('changing'), new Date())).toBe(1500);
    });

    it('keeps the count while nothing changes, and reads a change the counter missed after the time-to-live', async () => {
      await add(1100, 'quiet', 'quiet');
      expect(await kept.countMembers(channelId, taggedWith('quiet'), new Date())).toBe(1100);
      // A change the counter cannot see (one that commits while a count runs): the kept count
      // stands until its time-to-live ends.
      await database.db.raw('ALTER TABLE subscribers DISABLE TRIGGER subscribers_audience_change');
      try {
        await add(4, 'quiet-more', 'quiet');
      } finally {
        await database.db.raw('ALTER TABLE subscribers ENABLE TRIGGER subscribers_audience_change');
      }
      expect(await kept.countMembers(channelId, taggedWith('quiet'), new Date())).toBe(1100);
      now += SEGMENT_COUNT_TTL_MS;
      expect(await kept.countMembers(channelId, taggedWith('quiet'), new Date())).toBe(1104);
    });

    it("counts a recipient's first click at the next read of a clicked-broadcast segment", async () => {
      const [{ id: broadcastId }] = await database
        .db('broadcasts')
        .insert({ channel_id: channelId, name: 'clicked', subject: 's', body: 'b', track_opens: true, track_clicks: true, status: 'sent' })
        .returning('id');
      await database.db.raw(
        `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id, status, sent_at, clicked_at)
         SELECT ?, id, '<c' || id || '@segments.test>', 'sent', now(), CASE WHEN email LIKE 'quiet%' THEN now() END
           FROM subscribers WHERE channel_id = ? AND (email LIKE 'quiet%' OR email LIKE 'small1@%')`,
        [broadcastId, channelId],
      );
      const parsed = parseSegmentDefinition('all', [{ field: 'clicked_broadcast', operator: 'equals', value: broadcastId }]);
      if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
      expect(await kept.countMembers(channelId, parsed.definition, new Date())).toBe(1104);
      await database
        .db('broadcast_recipients')
        .where({ broadcast_id: broadcastId })
        .whereNull('clicked_at')
        .update({ clicked_at: database.db.raw('COALESCE(clicked_at, now())') });
      expect(await kept.countMembers(channelId, parsed.definition, new Date())).toBe(1105);
    });
  });
});

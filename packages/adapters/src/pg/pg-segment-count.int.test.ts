import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { parseSegmentDefinition, type SegmentDefinition } from '@mailcast/domain';
import { CountCache } from './count-cache';
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
});

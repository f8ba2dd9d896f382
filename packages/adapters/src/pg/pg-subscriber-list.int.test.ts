import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { audienceChanges, CountCache } from './count-cache';
import { LIST_COUNT_ALWAYS_EXACT_UP_TO, LIST_COUNT_TTL_MS, PgSubscriberRepository, subscriberPageQuery } from './pg-subscriber.repository';

describe('PgSubscriberRepository.list totals (docs/subscribers.md, List totals)', () => {
  let database: TestDatabase;
  let now = 0;
  let repository: PgSubscriberRepository;
  let channelId: number;
  const page = { limit: 250, offset: 0 };

  const add = async (count: number, prefix: string, tags: string[] = []) => {
    await database.db.raw(
      `INSERT INTO subscribers (channel_id, email, tags) SELECT ?, ? || g || '@totals.test', ?::text[] FROM generate_series(1, ?) g`,
      [channelId, prefix, tags, count],
    );
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'totals' }).returning('id');
    repository = new PgSubscriberRepository(database.db, new CountCache(LIST_COUNT_TTL_MS, 100, () => now));
  });
  afterAll(() => database.drop());

  it('a total up to the always-exact limit is counted on every full page', async () => {
    await add(LIST_COUNT_ALWAYS_EXACT_UP_TO - 10, 'small', ['small']);
    expect((await repository.list(channelId, { tags: ['small'] }, page)).total).toBe(LIST_COUNT_ALWAYS_EXACT_UP_TO - 10);
    await add(5, 'small-more', ['small']);
    expect((await repository.list(channelId, { tags: ['small'] }, page)).total).toBe(LIST_COUNT_ALWAYS_EXACT_UP_TO - 5);
  });

  it('a larger total is an exact count kept for the time-to-live, then counted again', async () => {
    await add(1500, 'large', ['large']);
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1500);
    await add(20, 'large-more', ['large']);
    now += LIST_COUNT_TTL_MS - 1;
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1500);
    // Another filter is counted on its own.
    expect((await repository.list(channelId, { tags: ['large'], emailContains: 'large-more' }, page)).total).toBe(20);
    now += 1;
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1520);
  });

  it('a short page proves its total at once, kept count or not', async () => {
    const last = { limit: 250, offset: 1500 };
    await add(1, 'late', ['large']);
    const result = await repository.list(channelId, { tags: ['large'] }, last);
    expect([result.items.length, result.total]).toEqual([21, 1521]);
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1521);
  });

  it('a page past the end keeps the counted total, not its offset', async () => {
    const far = { limit: 250, offset: 250 * 100 };
    const result = await repository.list(channelId, { tags: ['large'] }, far);
    expect([result.items.length, result.total]).toEqual([0, 1521]);
  });

  it('with a small total known, finds the matches first and sorts them: the same rows in the same order', async () => {
    await database.db.raw(
      `INSERT INTO subscribers (channel_id, email, tags, created_at)
       SELECT ?, 'few' || g || '@totals.test', ARRAY['few'], TIMESTAMPTZ '2026-01-01' + (g % 5) * INTERVAL '1 day' FROM generate_series(1, 300) g`,
      [channelId],
    );
    const emails = async (offset: number) => (await repository.list(channelId, { tags: ['few'] }, { limit: 250, offset })).items.map((s) => s.email);
    now += LIST_COUNT_TTL_MS; // nothing kept for this filter yet
    const before = [await emails(0), await emails(250)]; // the first page counts, 300 is now known
    const after = [await emails(0), await emails(250)];
    expect(after).toEqual(before);
    expect(before[0]).toHaveLength(250);
    expect(before[1]).toHaveLength(50);
    // Newest first, then the highest id: five days of sign-ups, 60 a day.
    expect(before[0]!.slice(0, 2)).toEqual(['few299@totals.test', 'few294@totals.test']);
    const sql = (few: boolean) => subscriberPageQuery(database.db, channelId, { tags: ['few'] }, { limit: 250, offset: 0 }, few).toSQL().sql;
    expect([sql(false).includes('materialized'), sql(true).includes('materialized')]).toEqual([false, true]);
  });

  it('with the audience change counter, a committed change moves a kept total at the next request', async () => {
    const current = new PgSubscriberRepository(database.db, new CountCache(LIST_COUNT_TTL_MS, 100, () => now, audienceChanges(database.db)));
    await add(1300, 'moving', ['moving']);
    expect((await current.list(channelId, { tags: ['moving'] }, page)).total).toBe(1300);
    expect((await current.list(channelId, { tags: ['moving'] }, page)).total).toBe(1300);
    await add(3, 'moving-more', ['moving']);
    expect((await current.list(channelId, { tags: ['moving'] }, page)).total).toBe(1303);
  });
});

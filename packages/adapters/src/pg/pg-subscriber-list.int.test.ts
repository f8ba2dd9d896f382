import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { audienceChanges } from './count-cache';
import { PgSubscriberRepository } from './pg-subscriber.repository';
import { listCaches, LIST_COUNT_ALWAYS_EXACT_UP_TO, LIST_COUNT_TTL_MS, SubscriberLists, subscriberPageQuery } from './subscriber-list';

describe('PgSubscriberRepository.list totals and kept matches (docs/subscribers.md, List totals, Kept matches)', () => {
  let database: TestDatabase;
  let now = 0;
  let channelId: number;
  const clock = () => now;
  const page = { limit: 250, offset: 0 };
  /** The queries the database was sent, to tell which way a page was read. */
  const sent: string[] = [];

  const add = async (count: number, prefix: string, tags: string[] = []) => {
    await database.db.raw(`INSERT INTO subscribers (channel_id, email, tags) SELECT ?, ? || g || '@totals.test', ?::text[] FROM generate_series(1, ?) g`, [
      channelId,
      prefix,
      tags,
      count,
    ]);
  };
  /** A repository as production builds it: caches keyed by the audience change counter. */
  const current = (maxMatches?: number) =>
    new PgSubscriberRepository(database.db, new SubscriberLists(database.db, listCaches(audienceChanges(database.db), clock), maxMatches));
  /** One that never sees a change: only the time-to-live ends what it keeps. */
  const blind = () =>
    new PgSubscriberRepository(
      database.db,
      new SubscriberLists(
        database.db,
        listCaches(async () => 'never', clock),
      ),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'totals' }).returning('id');
    database.db.on('query', (q: { sql: string }) => sent.push(q.sql));
  });
  afterAll(() => database.drop());
  beforeEach(() => (sent.length = 0));

  it('a committed change moves a kept total at the next request', async () => {
    const repository = current();
    await add(1300, 'moving', ['moving']);
    expect((await repository.list(channelId, { tags: ['moving'] }, page)).total).toBe(1300);
    expect((await repository.list(channelId, { tags: ['moving'] }, page)).total).toBe(1300);
    await add(3, 'moving-more', ['moving']);
    const moved = await repository.list(channelId, { tags: ['moving'] }, page);
    expect(moved.total).toBe(1303);
    expect(moved.items[0]!.email).toBe('moving-more3@totals.test');
    await database.db('subscribers').where('email', 'moving-more3@totals.test').delete();
    expect((await repository.list(channelId, { tags: ['moving'] }, page)).total).toBe(1302);
  });

  it('with nothing changed, finds the matches once and reads every later page by primary key', async () => {
    const repository = current();
    await add(1200, 'kept', ['kept']);
    await repository.list(channelId, { tags: ['kept'] }, page);
    const finds = () => sent.filter((sql) => sql.includes('limit')).length;
    expect(finds()).toBe(1);
    for (const offset of [250, 500, 1000]) await repository.list(channelId, { tags: ['kept'] }, { limit: 250, offset });
    expect(finds()).toBe(1);
    expect(sent.filter((sql) => sql.includes('= ANY('))).toHaveLength(4);
  });

  it('a page read once is served again without a query until the subscribers change', async () => {
    const repository = current();
    await add(1150, 'again', ['again']);
    const first = await repository.list(channelId, { tags: ['again'] }, page);
    sent.length = 0;
    const second = await repository.list(channelId, { tags: ['again'] }, page);
    expect(second).toEqual(first);
    expect(sent.filter((sql) => !sql.includes('audience_changes'))).toEqual([]);
    await database.db('subscribers').where('id', first.items[0]!.id).update({ first_name: 'Renamed' });
    const third = await repository.list(channelId, { tags: ['again'] }, page);
    expect(third.items[0]!.firstName).toBe('Renamed');
    expect(third.items.slice(1)).toEqual(first.items.slice(1));
  });

  it('a small list of matches is found again on every request, so it is current even when a change goes unseen', async () => {
    const repository = blind();
    await add(LIST_COUNT_ALWAYS_EXACT_UP_TO - 10, 'small', ['small']);
    expect((await repository.list(channelId, { tags: ['small'] }, page)).total).toBe(LIST_COUNT_ALWAYS_EXACT_UP_TO - 10);
    await add(5, 'small-more', ['small']);
    expect((await repository.list(channelId, { tags: ['small'] }, page)).total).toBe(LIST_COUNT_ALWAYS_EXACT_UP_TO - 5);
  });

  it('a larger list a change went unseen by is kept at most the time-to-live', async () => {
    const repository = blind();
    await add(1500, 'large', ['large']);
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1500);
    await add(20, 'large-more', ['large']);
    now += LIST_COUNT_TTL_MS - 1;
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1500);
    // Another filter is found on its own.
    expect((await repository.list(channelId, { tags: ['large'], emailContains: 'large-more' }, page)).total).toBe(20);
    now += 1;
    expect((await repository.list(channelId, { tags: ['large'] }, page)).total).toBe(1520);
  });

  it('a kept match that no longer matches when its page is first read is left out, not shown', async () => {
    const repository = blind();
    await add(1100, 'turning', ['turning']);
    await repository.list(channelId, { tags: ['turning'] }, page); // keeps the matches
    const second = { limit: 250, offset: 250 };
    const rows = (await subscriberPageQuery(database.db, channelId, { tags: ['turning'] }, second)) as Array<{ id: number }>;
    const turned = rows[3]!.id;
    await database
      .db('subscribers')
      .where('id', turned)
      .update({ tags: ['other'] });
    const after = await repository.list(channelId, { tags: ['turning'] }, second);
    expect(after.items.map((s) => s.id)).toEqual(rows.map((r) => r.id).filter((id) => id !== turned));
    expect(after.total).toBe(1100);
  });

  it('a page past the end is empty and keeps the total', async () => {
    const far = { limit: 250, offset: 250 * 100 };
    const result = await current().list(channelId, { tags: ['large'] }, far);
    expect([result.items.length, result.total]).toEqual([0, 1520]);
  });

  it('kept matches list the same rows in the same order as the order index, ties on created_at included', async () => {
    await database.db.raw(
      `INSERT INTO subscribers (channel_id, email, tags, created_at)
       SELECT ?, 'few' || g || '@totals.test', ARRAY['few'], TIMESTAMPTZ '2026-01-01' + (g % 5) * INTERVAL '1 day' FROM generate_series(1, 1300) g`,
      [channelId],
    );
    const repository = current();
    for (const offset of [0, 250, 1250]) {
      const viaMatches = (await repository.list(channelId, { tags: ['few'] }, { limit: 250, offset })).items.map((s) => s.email);
      const viaOrder = ((await subscriberPageQuery(database.db, channelId, { tags: ['few'] }, { limit: 250, offset })) as Array<{ email: string }>).map(
        (r) => r.email,
      );
      expect(viaMatches).toEqual(viaOrder);
      expect(viaMatches).toHaveLength(offset === 1250 ? 50 : 250);
    }
    // Newest first, then the highest id: five days of sign-ups, 260 a day.
    expect((await repository.list(channelId, { tags: ['few'] }, page)).items.slice(0, 2).map((s) => s.email)).toEqual([
      'few1299@totals.test',
      'few1294@totals.test',
    ]);
  });

  it('a filter that matches more than can be kept reads the order index and counts, and is not searched again for the time-to-live', async () => {
    const repository = current(1000);
    await add(1600, 'broad', ['broad']);
    const first = await repository.list(channelId, { tags: ['broad'] }, page);
    expect(first.total).toBe(1600);
    expect(first.items[0]!.email).toBe('broad1600@totals.test');
    expect(sent.some((sql) => sql.includes('count('))).toBe(true);
    sent.length = 0;
    const second = await repository.list(channelId, { tags: ['broad'] }, { limit: 250, offset: 1500 });
    expect([second.items.length, second.total]).toEqual([100, 1600]);
    expect(sent.filter((sql) => sql.includes('= ANY(') || sql.includes('"m"'))).toEqual([]);
  });
});

import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { audienceChanges } from './count-cache';
import { PgSubscriberRepository } from './pg-subscriber.repository';
import {
  domainOfFragment,
  likeLiteral,
  listCaches,
  SubscriberLists,
  subscriberCountQuery,
  subscriberMatchesQuery,
  subscriberPageQuery,
} from './subscriber-list';

describe('an address fragment that starts with @ is read on the domain index (docs/subscribers.md, A domain)', () => {
  let database: TestDatabase;
  let channelId: number;
  let otherChannelId: number;
  const page = { limit: 250, offset: 0 };
  const ADDRESSES = [
    'ann@d1.test',
    'bob@d1.test',
    'cy@d1.testing.example',
    'dee@d10.test',
    'eve@sub.d1.test',
    'fay@d1_test.example',
    'gus@d1xtest.example',
    'hal@a%b.example',
    'ivy@axb.example',
    'jo@d1.test.example',
    'kim.d1.test@elsewhere.example',
    'redacted-7@redacted.invalid',
  ];

  beforeAll(async () => {
    database = await createTestDatabase();
    [{ id: channelId }] = await database.db('channels').insert({ name: 'domains' }).returning('id');
    [{ id: otherChannelId }] = await database.db('channels').insert({ name: 'elsewhere' }).returning('id');
    await database.db('subscribers').insert(ADDRESSES.map((email, i) => ({ channel_id: channelId, email, tags: i % 2 === 0 ? ['even'] : [] })));
    await database.db('subscribers').insert({ channel_id: otherChannelId, email: 'zed@d1.test' });
  });
  afterAll(() => database.drop());

  /** What the fragment matched before: the trigram LIKE on the whole address. */
  const byLike = async (fragment: string) =>
    (
      await database
        .db('subscribers')
        .where('channel_id', channelId)
        .whereRaw('email LIKE ?', [`%${likeLiteral(fragment.toLowerCase())}%`])
        .orderBy('email')
        .select('email')
    ).map((r: { email: string }) => r.email);

  it.each(['@d1.test', '@D1.TEST', '@d1', '@d1.test.', '@d1_test', '@a%b', '@sub.d1', '@', '@x@y', 'd1.test', '.test@'])(
    '%s finds exactly what the whole-address LIKE finds, on every path of the list',
    async (fragment) => {
      const expected = await byLike(fragment);
      const lists = new PgSubscriberRepository(database.db, new SubscriberLists(database.db, listCaches(audienceChanges(database.db))));
      const listed = (await lists.list(channelId, { emailContains: fragment }, page)).items.map((s) => s.email).sort();
      const paged = ((await subscriberPageQuery(database.db, channelId, { emailContains: fragment }, page)) as Array<{ email: string }>)
        .map((r) => r.email)
        .sort();
      const counted = Number((await subscriberCountQuery(database.db, channelId, { emailContains: fragment }))[0]!.count);
      expect(listed).toEqual(expected);
      expect(paged).toEqual(expected);
      expect(counted).toBe(expected.length);
    },
  );

  it('names the domain only for @ and the start of a domain', () => {
    expect(domainOfFragment('@D1.Test')).toBe('d1.test');
    expect(domainOfFragment('@a%b')).toBe('a%b');
    expect([domainOfFragment('@'), domainOfFragment('@x@y'), domainOfFragment('ann@d1'), domainOfFragment('d1.test')]).toEqual([null, null, null, null]);
  });

  it('combines with the other filters and stays in the channel', async () => {
    const lists = new SubscriberLists(database.db, listCaches(audienceChanges(database.db)));
    const { rows, total } = await lists.list<{ email: string }>(channelId, { emailContains: '@d1.test', tags: ['even'] }, page);
    expect(rows.map((r) => r.email).sort()).toEqual(['ann@d1.test', 'cy@d1.testing.example']);
    expect(total).toBe(2);
  });

  it('the matches of a domain are found on subscribers_email_domain, not the trigram index', async () => {
    // Enough other addresses, and statistics, for the planner to weigh the indexes as it would on a real list.
    await database.db.raw(
      `INSERT INTO subscribers (channel_id, email) SELECT ?, 'filler' || g || '@f' || (g % 50) || '.example' FROM generate_series(1, 5000) g`,
      [channelId],
    );
    await database.db.raw('ANALYZE subscribers');
    const { sql, bindings } = subscriberMatchesQuery(database.db, channelId, { emailContains: '@d1.test' }, 100_001).toSQL();
    // A dozen rows would be read whole; without the sequential scan the planner shows which index serves the condition.
    const plan = await database.db.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      return (await trx.raw(`EXPLAIN ${sql}`, [...bindings])).rows.map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('subscribers_email_domain');
    expect(plan).not.toContain('subscribers_email_trgm');
  });
});

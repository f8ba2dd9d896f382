import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { KeptResults } from './count-cache';
import { PgTopicRepository, TOPIC_COUNTS_ALWAYS_EXACT_UP_TO } from './pg-topic.repository';

/**
 * A topic's counts run over every subscriber of the channel; above 1,000 subscribers they are
 * kept until the subscribers change (docs/topics.md, "Kept counts"), so the dashboard's topics
 * page does not count a million rows per topic on every visit.
 */
describe('PgTopicRepository.counts', () => {
  let database: TestDatabase;
  let channelId: number;
  beforeAll(async () => {
    database = await createTestDatabase();
    const [channel] = await database.db('channels').insert({ name: 'topics' }).returning('id');
    channelId = Number((channel as { id: number }).id);
  });
  afterAll(() => database.drop());

  async function topic(repository: PgTopicRepository, key: string, unsetReceives = false) {
    const now = new Date();
    const [row] = await database
      .db('topics')
      .insert({
        channel_id: channelId,
        name: key,
        storage: 'custom_data',
        custom_data_key: key,
        unset_receives: unsetReceives,
        created_at: now,
        updated_at: now,
      })
      .returning('id');
    return (await repository.findById(channelId, Number((row as { id: number }).id)))!;
  }

  it('keeps counts over more than 1,000 subscribers until a subscriber changes, and counts small channels every time', async () => {
    const db = database.db;
    let queries = 0;
    const counting = (query: { sql: string }) => {
      if (query.sql.includes('topic_value(')) queries++;
    };
    db.on('query', counting);
    try {
      const repository = new PgTopicRepository(db);
      const news = await topic(repository, 'news');
      await db.raw(
        `INSERT INTO subscribers (channel_id, email, custom_data) SELECT ?, 's' || g || '@example.com', '{"news": true}' FROM generate_series(1, ?) g`,
        [channelId, TOPIC_COUNTS_ALWAYS_EXACT_UP_TO],
      );
      // At 1,000: counted each time.
      expect(await repository.counts(news)).toEqual({ yes: 1000, no: 0, unset: 0, receiving: 1000 });
      expect(await repository.counts(news)).toEqual({ yes: 1000, no: 0, unset: 0, receiving: 1000 });
      expect(queries).toBe(2);

      await db('subscribers').insert({ channel_id: channelId, email: 'late@example.com', custom_data: { news: false } });
      expect(await repository.counts(news)).toEqual({ yes: 1000, no: 1, unset: 0, receiving: 1000 });
      expect(await repository.counts(news)).toEqual({ yes: 1000, no: 1, unset: 0, receiving: 1000 });
      expect(queries).toBe(3); // the second one was kept

      // A change to any subscriber is counted at the next read.
      await db('subscribers')
        .where({ channel_id: channelId, email: 'late@example.com' })
        .update({ custom_data: { news: true } });
      expect(await repository.counts(news)).toEqual({ yes: 1001, no: 0, unset: 0, receiving: 1001 });
      expect(queries).toBe(4);

      // The topic's definition is part of what is kept: another unset rule is another count.
      const digest = await topic(repository, 'digest', true);
      expect(await repository.counts(digest)).toEqual({ yes: 0, no: 0, unset: 1001, receiving: 1001 });
      await db('topics').where({ id: digest.id }).update({ unset_receives: false });
      expect(await repository.counts((await repository.findById(channelId, digest.id))!)).toEqual({ yes: 0, no: 0, unset: 1001, receiving: 0 });
      expect(queries).toBe(6);
    } finally {
      db.off('query', counting);
    }
  });

  it('is kept for at most the time-to-live even when nothing moves the change counter', async () => {
    let now = 0;
    const repository = new PgTopicRepository(
      database.db,
      new KeptResults(
        30_000,
        1000,
        { size: (c) => c.yes + c.no + c.unset, weigh: () => 1 },
        () => now,
        async () => 'still',
      ),
    );
    const news = (await repository.findById(channelId, Number((await database.db('topics').where({ channel_id: channelId, name: 'news' }).first('id')).id)))!;
    const first = await repository.counts(news);
    // A change the counter is not told of (the counter here never moves).
    await database
      .db('subscribers')
      .where({ channel_id: channelId, email: 's1@example.com' })
      .update({ custom_data: { news: false } });
    expect(await repository.counts(news)).toEqual(first);
    now += 30_000;
    expect(await repository.counts(news)).toEqual({ ...first, yes: first.yes - 1, no: first.no + 1, receiving: first.receiving - 1 });
  });
});

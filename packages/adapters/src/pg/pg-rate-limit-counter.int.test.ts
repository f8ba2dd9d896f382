import { createBoss } from '../queue/boss';
import { createTestDatabase, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { PgRateLimitCounter } from './pg-rate-limit-counter';

describe('PgRateLimitCounter (one row per token, reset in place)', () => {
  let database: TestDatabase;
  let counter: PgRateLimitCounter;
  let tokenId: number;
  const minute = (m: number) => new Date(Date.UTC(2026, 10, 22, 10, m));

  beforeAll(async () => {
    database = await createTestDatabase();
    counter = new PgRateLimitCounter(database.db);
    const fixtures = new Fixtures(database.db, createBoss(database.url, 'api'));
    await fixtures.aToken((await fixtures.aChannel()).id);
    tokenId = (await database.db('api_tokens').first('id')).id;
  });
  afterAll(() => database.drop());

  it('counts up within a window and starts at 1 in the next', async () => {
    expect(await counter.hit(tokenId, minute(1))).toBe(1);
    expect(await counter.hit(tokenId, minute(1))).toBe(2);
    expect(await counter.hit(tokenId, minute(1))).toBe(3);
    expect(await counter.hit(tokenId, minute(2))).toBe(1);
    expect(await database.db('rate_limit_windows').where({ token_id: tokenId })).toEqual([{ token_id: tokenId, window_start: minute(2), count: 1 }]);
  });

  it('never lets a request stamped with an older window (a lagging replica clock) move the row back', async () => {
    expect(await counter.hit(tokenId, minute(2))).toBe(2);
    expect(await counter.hit(tokenId, minute(1))).toBe(1);
    expect(await database.db('rate_limit_windows').where({ token_id: tokenId }).first()).toEqual({
      token_id: tokenId,
      window_start: minute(2),
      count: 2,
    });
  });
});

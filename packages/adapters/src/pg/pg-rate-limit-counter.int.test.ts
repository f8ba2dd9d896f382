import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';
import { PgRateLimitCounter, RATE_LIMIT_TABLE } from './pg-rate-limit-counter';

describe('PgRateLimitCounter (rate-limiter-flexible, one row per token and window)', () => {
  let database: TestDatabase;
  let counter: PgRateLimitCounter;
  const tokenId = 7;
  const minute = (m: number) => new Date(Date.UTC(2026, 10, 22, 10, m));

  beforeAll(async () => {
    database = await createTestDatabase();
    counter = new PgRateLimitCounter(database.db);
  });
  afterAll(() => database.drop());

  it('counts up within a window and starts at 1 in the next, in the table the migration made', async () => {
    expect(await counter.hit(tokenId, minute(1))).toBe(1);
    expect(await counter.hit(tokenId, minute(1))).toBe(2);
    expect(await counter.hit(tokenId, minute(1))).toBe(3);
    expect(await counter.hit(tokenId, minute(2))).toBe(1);
    const rows = await database.db(RATE_LIMIT_TABLE).orderBy('key').select('key', 'points');
    expect(rows).toEqual([
      { key: `token:${tokenId}:${minute(1).getTime()}`, points: 3 },
      { key: `token:${tokenId}:${minute(2).getTime()}`, points: 1 },
    ]);
  });

  it('counts a request stamped with an older window (a lagging replica clock) in that window, never in the newer one', async () => {
    expect(await counter.hit(tokenId, minute(1))).toBe(4);
    expect(await counter.hit(tokenId, minute(2))).toBe(2);
  });

  it('keeps tokens apart and admits concurrent requests one count each', async () => {
    const counts = await Promise.all(Array.from({ length: 12 }, () => counter.hit(8, minute(3))));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(await counter.hit(9, minute(3))).toBe(1);
  });
});

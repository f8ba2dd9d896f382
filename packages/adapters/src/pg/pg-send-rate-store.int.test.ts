import { FRESH_SEND_RATE_STATE } from '@mailcast/domain';
import { createBoss } from '../queue/boss';
import { createTestDatabase, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { PgSendRateStore } from './pg-send-rate-store';

describe('PgSendRateStore (shared sending state on the database clock)', () => {
  let database: TestDatabase;
  let serverId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    const fixtures = new Fixtures(database.db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    const [server] = await database
      .db('email_servers')
      .insert({ channel_id: channel.id, host: 'smtp.example.com', port: 587, username: 'u', password: 'p' })
      .returning('id');
    serverId = Number(server.id);
  });
  afterAll(() => database.drop());

  // The database runs on this machine, so its clock is this process's: the true offset is 0 and
  // every measured offset must lie within the uncertainty the store claims for it. A loopback
  // trip reads as 0 ms on Date.now(), so a claim of half the trip read (0) would be broken by the
  // sub-millisecond part of clock_timestamp().
  it('claims an uncertainty that covers its measured offset on every round trip', async () => {
    const store = new PgSendRateStore(database.db);
    const misses: Array<{ offsetMs: number; uncertaintyMs: number }> = [];
    for (let i = 0; i < 200; i++) {
      const { offsetMs, uncertaintyMs } = await store.change(serverId, (state, now) => ({
        state: { ...state, tat: now },
        result: null,
      }));
      if (Math.abs(offsetMs) > uncertaintyMs) misses.push({ offsetMs, uncertaintyMs });
    }
    expect(misses).toEqual([]);
  });

  it('writes the state it was given, and a second store reads it', async () => {
    const store = new PgSendRateStore(database.db);
    await store.change(serverId, () => ({ state: { ...FRESH_SEND_RATE_STATE, tat: 12_345, longTat: 678 }, result: null }));
    const seen = await new PgSendRateStore(database.db).change(serverId, (state) => ({ state: null, result: [state.tat, state.longTat] }));
    expect(seen.result).toEqual([12_345, 678]);
  });
});

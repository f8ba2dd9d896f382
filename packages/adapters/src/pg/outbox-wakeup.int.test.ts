import { createTestDatabase, eventually, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import pg from 'pg';
import { createBoss } from '../queue/boss';
import { JOBS_CHANNEL } from '../queue/job-notifications';
import { OUTBOX_WAKE, OutboxWakeup } from './outbox-wakeup';
import { PgTransactor } from './pg-transactor';

/** docs/webhooks.md, "Waking the relay": a NOTIFY after the commit of a transaction that wrote events. */
describe('OutboxWakeup and the transactor', () => {
  let database: TestDatabase;
  let listener: pg.Client;
  const heard: string[] = [];
  const wakes = () => heard.filter((p) => p === OUTBOX_WAKE).length;

  beforeAll(async () => {
    database = await createTestDatabase();
    listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    listener.on('notification', (n) => heard.push(n.payload ?? ''));
    await listener.query(`LISTEN ${JOBS_CHANNEL}`);
  });
  afterAll(async () => {
    await listener.end();
    await database.drop();
  });

  it('coalesces a burst of pokes into one NOTIFY at once and one for the rest', async () => {
    const wakeup = new OutboxWakeup(database.db, 10);
    const before = wakes();
    for (let i = 0; i < 50; i++) wakeup.poke();
    await eventually(async () => (wakes() >= before + 2 ? true : undefined), 10_000, 5);
    expect(wakes()).toBe(before + 2);
    // Idle again: the next poke is sent at once.
    wakeup.poke();
    await eventually(async () => (wakes() >= before + 3 ? true : undefined), 10_000, 5);
    expect(wakes()).toBe(before + 3);
  });

  it('the transactor wakes after a commit that recorded events, and not otherwise', async () => {
    class Counted extends OutboxWakeup {
      pokes = 0;
      override poke(): void {
        this.pokes += 1;
        super.poke();
      }
    }
    const wakeup = new Counted(database.db);
    const transactor = new PgTransactor(database.db, createBoss(database.url, 'api'), throwawaySecretBox(), wakeup);
    const channel = await transactor.run((r) => r.channels.create({ name: 'wake' }));
    expect(wakeup.pokes).toBe(0);
    // Rolled back: its event never existed, and nobody is told of it.
    await expect(
      transactor.run(async (r) => {
        await r.outbox.record({ channelId: channel.id, type: 'subscriber.created', data: {}, createdAt: new Date() });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(wakeup.pokes).toBe(0);
    // Committed: one poke for the transaction, however many events, once run() has committed.
    const start = wakes();
    const events = await transactor.run(async (r) => [
      await r.outbox.record({ channelId: channel.id, type: 'subscriber.created', data: {}, createdAt: new Date() }),
      await r.outbox.record({ channelId: channel.id, type: 'subscriber.updated', data: {}, createdAt: new Date() }),
    ]);
    expect(wakeup.pokes).toBe(1);
    await eventually(async () => (wakes() > start ? true : undefined), 10_000, 5);
    expect(await database.db('events').where({ channel_id: channel.id }).orderBy('id').pluck('id')).toEqual(events.map((e) => e.id));
  });
});

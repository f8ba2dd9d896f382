import { createTestDatabase, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import { createBoss } from '../queue/boss';
import { PgTransactor } from './pg-transactor';

/**
 * docs/operations.md, "How a change happens". A change, the event it emits (outbox) and the job it
 * triggers commit together or not at all.
 */
describe('PgTransactor: change, outbox event and job in one transaction', () => {
  let database: TestDatabase;
  let boss: PgBoss;
  let transactor: PgTransactor;

  beforeAll(async () => {
    database = await createTestDatabase();
    boss = createBoss(database.url, 'api');
    await boss.start();
    transactor = new PgTransactor(database.db, boss, throwawaySecretBox());
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true, wait: true });
    await database.drop();
  });

  const jobsIn = async (queue: string) =>
    (await database.db.raw('SELECT id, data FROM pgboss.job WHERE name = ?', [queue])).rows as Array<{
      id: string;
      data: unknown;
    }>;

  it('commits the change, the event and the job together', async () => {
    const { channelId, eventId, jobId } = await transactor.run(async (r) => {
      const channel = await r.channels.create({ name: 'committed' });
      const event = await r.outbox.record({
        channelId: channel.id,
        type: 'subscriber.created',
        data: { subscriber_id: 1 },
        createdAt: new Date('2026-11-22T00:00:00Z'),
      });
      const job = await r.jobs.send('webhooks.deliver', { deliveryId: event.id, endpointId: 1, attempt: 1 });
      return { channelId: channel.id, eventId: event.id, jobId: job };
    });

    expect(await database.db('channels').where({ id: channelId }).first()).toMatchObject({ name: 'committed' });
    const event = await database.db('events').where({ id: eventId }).first();
    expect(event).toMatchObject({ channel_id: channelId, type: 'subscriber.created', data: { subscriber_id: 1 } });
    expect(event.created_at.toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(await jobsIn('webhooks.deliver')).toEqual([{ id: jobId, data: { deliveryId: eventId, endpointId: 1, attempt: 1 } }]);
  });

  it('rolls all three back when the work fails', async () => {
    const before = {
      channels: (await database.db('channels').count({ n: '*' }).first())?.n,
      events: (await database.db('events').count({ n: '*' }).first())?.n,
      jobs: (await jobsIn('webhooks.deliver')).length,
    };
    await expect(
      transactor.run(async (r) => {
        const channel = await r.channels.create({ name: 'rolled back' });
        const event = await r.outbox.record({ channelId: channel.id, type: 'subscriber.created', data: {}, createdAt: new Date() });
        await r.jobs.send('webhooks.deliver', { deliveryId: event.id, endpointId: 1, attempt: 1 });
        throw new Error('the use case changed its mind');
      }),
    ).rejects.toThrow('the use case changed its mind');

    expect((await database.db('channels').count({ n: '*' }).first())?.n).toBe(before.channels);
    expect((await database.db('events').count({ n: '*' }).first())?.n).toBe(before.events);
    expect((await jobsIn('webhooks.deliver')).length).toBe(before.jobs);
    expect(await database.db('channels').where({ name: 'rolled back' })).toEqual([]);
  });

  it('sends jobs with retryLimit 0 and honours startAfter', async () => {
    const at = new Date(Date.now() + 3_600_000);
    const id = await transactor.run((r) => r.jobs.send('webhooks.deliver', { deliveryId: 42, endpointId: 1, attempt: 1 }, { startAfter: at }));
    const row = (await database.db.raw('SELECT retry_limit, start_after FROM pgboss.job WHERE id = ?', [id])).rows[0] as {
      retry_limit: number;
      start_after: Date;
    };
    expect(row.retry_limit).toBe(0);
    expect(Math.abs(row.start_after.getTime() - at.getTime())).toBeLessThan(1000);
  });
});

import { createBoss, loadConfig } from '@mailcast/adapters';
import { CancelSchedule, ScheduleBroadcast, SweepDueBroadcasts, UpdateBroadcast, type Principal } from '@mailcast/core';
import { PERMISSIONS } from '@mailcast/domain';
import { createTestDatabase, eventually, Fixtures, memoryLogger, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer } from '../container';
import { startSweeper } from '../workers/sweeper';
import { broadcastDueHandler } from './broadcast-due.handler';
import { startWorkers, type JobWorkers } from '../workers/job-workers';
import { HANDLERS, type JobHandler } from './index';

/**
 * docs/broadcasts-and-sending.md: at the scheduled time the dispatcher moves the broadcast on. The due
 * job fires at its time; the sweep catches a broadcast whose job was lost; a cancelled or
 * rescheduled schedule never fires on its old job. Real PostgreSQL, real pg-boss workers.
 */
describe('scheduled broadcasts in the dispatcher', () => {
  let database: TestDatabase;
  let boss: PgBoss;
  let container: DependencyContainer;
  let fixtures: Fixtures;
  let caller: Principal;
  let workers: JobWorkers;

  beforeAll(async () => {
    database = await createTestDatabase();
    boss = createBoss(database.url, 'dispatcher');
    await boss.start();
    container = buildContainer({
      config: loadConfig({ DATABASE_URL: database.url }),
      logger: memoryLogger().logger,
      db: database.db,
      boss,
    });
    fixtures = new Fixtures(database.db, boss);
    const channel = await fixtures.aChannel();
    caller = { tokenId: 0, channelId: channel.id, permissions: PERMISSIONS };
    // Only the due handler: the sending pipeline's own handler is tested on its own.
    workers = startWorkers(boss, container, [broadcastDueHandler as unknown as JobHandler]);
  });
  afterAll(async () => {
    await workers.stop();
    await boss.stop({ graceful: false, close: true, wait: true });
    await database.drop();
  });

  const row = (id: number) =>
    database.db('broadcasts').where({ id }).first<{ status: string; version: number; updated_at: Date }>('status', 'version', 'updated_at');
  const jobs = async (queue: string, id: number) =>
    (await database.db.raw(`SELECT data, state FROM pgboss.job WHERE name = ? AND (data->>'broadcastId')::bigint = ? ORDER BY created_on`, [queue, id]))
      .rows as Array<{ data: Record<string, unknown>; state: string }>;
  const events = async (id: number) =>
    (await database.db('events').whereRaw("(data->>'broadcast_id')::bigint = ?", [id]).orderBy('id').select('type', 'data')).map(
      (e: { type: string; data: { status: string } }) => [e.type, e.data.status],
    );
  const schedule = (id: number, at: Date) =>
    container.resolve(ScheduleBroadcast).execute(caller, { id, scheduledSendAt: at.toISOString(), scheduledTimezone: 'UTC' });

  it('works the due queue, with no pg-boss cron schedule: the safety net is the sweep timer', async () => {
    expect(HANDLERS.map((h) => h.queue)).toContain('broadcasts.due');
    expect(HANDLERS.map((h) => h.queue)).not.toContain('broadcasts.sweep');
    expect((await database.db.raw('SELECT name FROM pgboss.schedule')).rows).toEqual([]);
    // pg-boss's cron clock, had the dispatcher's client started it, would have made its queue.
    expect((await database.db.raw(`SELECT name FROM pgboss.queue WHERE name LIKE '\\_\\_pgboss\\_\\_%'`)).rows).toEqual([]);
  });

  it('starts a scheduled broadcast at its time: scheduled, broadcast.scheduled, a send job', async () => {
    const b = await fixtures.aBroadcast(caller.channelId);
    const at = new Date(Date.now() + 1500);
    await schedule(b.id, at);
    expect((await row(b.id))?.status).toBe('future_scheduled');

    const started = await eventually(
      async () => {
        const current = await row(b.id);
        return current?.status === 'scheduled' ? current : undefined;
      },
      10_000,
      50,
    );
    // Not before its time (the row's updated_at is the dispatcher's clock at the move).
    expect(started.updated_at.getTime()).toBeGreaterThanOrEqual(at.getTime());
    expect(started.version).toBe(2);
    expect(await jobs('broadcasts.send', b.id)).toEqual([{ data: { broadcastId: b.id }, state: 'created' }]);
    expect(await events(b.id)).toEqual([
      ['broadcast.scheduled', 'future_scheduled'],
      ['broadcast.scheduled', 'scheduled'],
    ]);
    expect((await jobs('broadcasts.due', b.id)).map((j) => j.state)).toEqual(['completed']);
  });

  it('never fires a cancelled schedule, nor the old job of a rescheduled one', async () => {
    const cancelled = await fixtures.aBroadcast(caller.channelId);
    const moved = await fixtures.aBroadcast(caller.channelId);
    const soon = new Date(Date.now() + 800);
    await schedule(cancelled.id, soon);
    await schedule(moved.id, soon);
    await container.resolve(CancelSchedule).execute(caller, { id: cancelled.id });
    const later = new Date(Date.now() + 60_000);
    await container.resolve(UpdateBroadcast).execute(caller, {
      id: moved.id,
      changes: { scheduledSendAt: later.toISOString() },
    });

    // Both old jobs run (and find a stale version); nothing moves.
    await eventually(
      async () => {
        const states = [...(await jobs('broadcasts.due', cancelled.id)), ...(await jobs('broadcasts.due', moved.id))];
        return states.filter((j) => j.state === 'completed').length === 2 ? true : undefined;
      },
      10_000,
      50,
    );
    expect((await row(cancelled.id))?.status).toBe('draft');
    expect((await row(moved.id))?.status).toBe('future_scheduled');
    expect(await jobs('broadcasts.send', cancelled.id)).toEqual([]);
    expect(await jobs('broadcasts.send', moved.id)).toEqual([]);
    expect(await events(cancelled.id)).toEqual([['broadcast.scheduled', 'future_scheduled']]);
    expect((await jobs('broadcasts.due', moved.id)).map((j) => [j.data.version, j.state])).toEqual([
      [1, 'completed'],
      [2, 'created'],
    ]);
  });

  it("the dispatcher's sweep starts a due broadcast whose job was lost, exactly once", async () => {
    const b = await fixtures.aBroadcast(caller.channelId);
    await schedule(b.id, new Date(Date.now() + 3_600_000));
    await database.db.raw(`DELETE FROM pgboss.job WHERE name = 'broadcasts.due' AND (data->>'broadcastId')::bigint = ?`, [b.id]);
    await database
      .db('broadcasts')
      .where({ id: b.id })
      .update({ scheduled_send_at: new Date(Date.now() - 1000) });

    const log = memoryLogger();
    const stopSweeper = startSweeper(container, 100, log.logger);
    try {
      await eventually(async () => ((await row(b.id))?.status === 'scheduled' ? true : undefined), 10_000, 50);
    } finally {
      stopSweeper();
    }
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'info', message: 'started due broadcasts whose job was lost', broadcastIds: [b.id] }));
    expect(await jobs('broadcasts.send', b.id)).toEqual([{ data: { broadcastId: b.id }, state: 'created' }]);
    expect(await events(b.id)).toEqual([
      ['broadcast.scheduled', 'future_scheduled'],
      ['broadcast.scheduled', 'scheduled'],
    ]);

    // Another sweep finds nothing left to do.
    expect(await container.resolve(SweepDueBroadcasts).execute()).toEqual([]);
    expect(await jobs('broadcasts.send', b.id)).toHaveLength(1);
  });

  it('several sweeps at once move each due broadcast once', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 30; i++) {
      const b = await fixtures.aBroadcast(caller.channelId);
      await schedule(b.id, new Date(Date.now() + 3_600_000));
      ids.push(b.id);
    }
    await database.db.raw(`DELETE FROM pgboss.job WHERE name = 'broadcasts.due' AND (data->>'broadcastId')::bigint = ANY(?)`, [ids]);
    await database
      .db('broadcasts')
      .whereIn('id', ids)
      .update({ scheduled_send_at: new Date(Date.now() - 1000) });

    const sweeps = await Promise.all([1, 2, 3, 4].map(() => container.resolve(SweepDueBroadcasts).execute()));
    const moved = sweeps.flat();
    expect([...moved].sort((a, b) => a - b)).toEqual(ids);
    const sendJobs = (
      await database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'broadcasts.send' AND (data->>'broadcastId')::bigint = ANY(?)`, [ids])
    ).rows[0].n;
    expect(sendJobs).toBe(30);
    const scheduledEvents = await database
      .db('events')
      .whereRaw("(data->>'broadcast_id')::bigint = ANY(?) AND data->>'status' = 'scheduled'", [ids])
      .count<{ n: string }[]>({ n: '*' });
    expect(Number(scheduledEvents[0]?.n)).toBe(30);
  });

  it('a due job that fires before its time waits again instead of starting early', async () => {
    const b = await fixtures.aBroadcast(caller.channelId);
    const at = new Date(Date.now() + 3_600_000);
    await schedule(b.id, at);
    // As if the database clock ran ahead: a second job with the current version, due now.
    await boss.send('broadcasts.due', { broadcastId: b.id, version: 1 }, { retryLimit: 0 });
    await eventually(
      async () => {
        const all = await jobs('broadcasts.due', b.id);
        return all.length === 3 ? all : undefined;
      },
      10_000,
      50,
    );
    expect((await row(b.id))?.status).toBe('future_scheduled');
    const { rows } = await database.db.raw(
      `SELECT start_after FROM pgboss.job WHERE name = 'broadcasts.due' AND state = 'created' AND (data->>'broadcastId')::bigint = ?`,
      [b.id],
    );
    expect(rows.map((r: { start_after: Date }) => r.start_after.toISOString())).toEqual([at.toISOString(), at.toISOString()]);
  });
});

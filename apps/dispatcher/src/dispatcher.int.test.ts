import { createBoss } from '@mailcast/adapters';
import { createTestDatabase, eventually, freePort, spawnBuilt, withAdmin, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import { container } from 'tsyringe';
import type { JobHandler } from './handlers';
import { observedBoss } from './test-support/observed-boss';
import { startWorkers, type JobWorkers } from './workers/job-workers';

const jobStates = async (database: TestDatabase, ids: readonly string[]) =>
  (await database.db.raw('SELECT id, data, state, output, completed_on FROM pgboss.job WHERE id = ANY(?)', [[...ids]])).rows as Array<{
    id: string;
    data: { deliveryId: number };
    state: string;
    output: unknown;
    completed_on: Date | null;
  }>;

const sendJobs = (boss: PgBoss, deliveryIds: readonly number[]) =>
  Promise.all(
    deliveryIds.map(async (deliveryId) => {
      const id = await boss.send('webhooks.deliver', { deliveryId, endpointId: 1, attempt: 1 }, { retryLimit: 0 });
      if (id === null) throw new Error('job not queued');
      return id;
    }),
  );

describe('dispatcher', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  describe('startWorkers', () => {
    let boss: PgBoss;
    let workers: JobWorkers | undefined;
    beforeAll(async () => {
      boss = createBoss(database.url, 'dispatcher');
      // The outage test cuts this client's connections too; it reconnects.
      boss.on('error', () => undefined);
      await boss.start();
    });
    afterEach(async () => {
      await workers?.stop();
      workers = undefined;
    });
    afterAll(() => boss.stop({ graceful: false, close: true, wait: true }));

    it('hands each job of a queue to its handler once, and a failure is not retried by pg-boss', async () => {
      const seen: number[] = [];
      const handler: JobHandler<'webhooks.deliver'> = {
        queue: 'webhooks.deliver',
        batchSize: 5,
        async handle(_container, job) {
          seen.push(job.data.deliveryId);
          if (job.data.deliveryId === 3) throw new Error('try again later');
        },
      };
      const ids = await sendJobs(boss, [1, 2, 3]);
      const failures: Array<{ queue: string; jobId: string; message: string }> = [];
      workers = startWorkers(boss, container, [handler as unknown as JobHandler], {
        onJobFailed: (queue, jobId, error) => failures.push({ queue, jobId, message: (error as Error).message }),
      });
      const states = await eventually(async () => {
        const rows = await jobStates(database, ids);
        return rows.every((r) => r.state === 'completed' || r.state === 'failed') ? rows : undefined;
      });
      expect(Object.fromEntries(states.map((r) => [r.data.deliveryId, r.state]))).toEqual({
        1: 'completed',
        2: 'completed',
        3: 'failed',
      });
      expect([...seen].sort()).toEqual([1, 2, 3]);
      expect(failures).toEqual([{ queue: 'webhooks.deliver', jobId: ids[2], message: 'try again later' }]);
      expect(states.find((r) => r.id === ids[2])?.output).toEqual({ message: 'try again later' });
    });

    it('ends a job whose handler finishes while the database refuses connections, once it is back', async () => {
      // pg-boss's own `work` writes these ends without awaiting them: the rejections reached
      // nobody (Node ends a process on that) and the jobs stayed active for pg-boss's 15 minutes.
      await withAdmin(async (admin) => {
        const allow = (yes: boolean) => admin.query(`ALTER DATABASE ${database.name} ALLOW_CONNECTIONS ${yes}`);
        let cut: Promise<void> | undefined;
        let backAt: Promise<Date> | undefined;
        let refusedEnds = 0;
        const outage = async () => {
          await allow(false);
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [database.name]);
          // Away until both ends were refused once: the handlers' ends met the outage.
          backAt = eventually(async () => (refusedEnds >= 2 ? true : undefined), 15_000, 10)
            .then(() => allow(true))
            .then(async () => (await admin.query<{ now: Date }>('SELECT now()')).rows[0]!.now);
        };
        try {
          const ids = await sendJobs(boss, [11, 12]);
          const handled: number[] = [];
          const handler: JobHandler<'webhooks.deliver'> = {
            queue: 'webhooks.deliver',
            batchSize: 2,
            async handle(_container, job) {
              await (cut ??= outage());
              handled.push(job.data.deliveryId);
              if (job.data.deliveryId === 12) throw new Error('try again later');
            },
          };
          const errors: unknown[] = [];
          const observed = observedBoss(boss, { onEndRefused: () => refusedEnds++ });
          workers = startWorkers(observed, container, [handler as unknown as JobHandler], { onError: (error) => errors.push(error) });
          const states = await eventually(
            async () => {
              const rows = await jobStates(database, ids).catch(() => []);
              return rows.length === 2 && rows.every((r) => r.state === 'completed' || r.state === 'failed') ? rows : undefined;
            },
            15_000,
            100,
          );
          expect([...handled].sort()).toEqual([11, 12]);
          expect(Object.fromEntries(states.map((r) => [r.data.deliveryId, r.state]))).toEqual({ 11: 'completed', 12: 'failed' });
          // Both ends were written after the database came back: the first tries met the outage.
          const back = await backAt!;
          for (const r of states) expect(r.completed_on!.getTime()).toBeGreaterThanOrEqual(back.getTime());
          expect(errors).toEqual([]);
        } finally {
          await backAt?.catch(() => undefined);
          await allow(true);
        }
      });
    });
  });

  it('runs as a process: health on DISPATCHER_METRICS_PORT, clean exit on SIGTERM', async () => {
    const port = await freePort();
    const dispatcher = spawnBuilt('apps/dispatcher/dist/main.js', {
      ...process.env,
      DATABASE_URL: database.url,
      DISPATCHER_METRICS_PORT: String(port),
      LOG_LEVEL: 'info',
    });
    const health = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return { status: res.status, body: await res.json() };
    });
    expect(health).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    expect({ status: ready.status, body: await ready.json() }).toEqual({
      status: 200,
      body: { status: 'ready', checks: { database: true, migrations: true } },
    });
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`);
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^mailcast_process_resident_memory_bytes\{service="dispatcher"\} \d+/m);

    dispatcher.child.kill('SIGTERM');
    expect(await dispatcher.exited).toBe(0);
    expect(dispatcher.output()).toContain('dispatcher stopped');
  });

  it('refuses to start on a bad configuration, naming the variable', async () => {
    const dispatcher = spawnBuilt('apps/dispatcher/dist/main.js', {
      ...process.env,
      DATABASE_URL: database.url,
      WEBHOOK_RETRY_SCHEDULE: 'often',
    });
    expect(await dispatcher.exited).toBe(1);
    expect(dispatcher.output()).toContain('failed to start: Invalid configuration: "WEBHOOK_RETRY_SCHEDULE" must be comma-separated durations');
    expect(dispatcher.output()).not.toMatch(/\n\s+at /); // no stack trace
  });
});

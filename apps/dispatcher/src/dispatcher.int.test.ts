import { createBoss } from '@mailcast/adapters';
import { createTestDatabase, eventually, freePort, spawnBuilt, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import { container } from 'tsyringe';
import { startWorkers, type JobHandler } from './handlers/registry';



describe('dispatcher', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  describe('startWorkers', () => {
    let boss: PgBoss;
    beforeAll(async () => {
      boss = createBoss(database.url, 'dispatcher');
      await boss.start();
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
      const ids = await Promise.all(
        [1, 2, 3].map(async (eventId) => {
          const id = await boss.send('webhooks.deliver', { deliveryId: eventId, endpointId: 1, attempt: 1 }, { retryLimit: 0 });
          if (id === null) throw new Error('job not queued');
          return id;
        }),
      );
      const failures: Array<{ queue: string; jobId: string; message: string }> = [];
      await startWorkers(boss, container, [handler as unknown as JobHandler], {
        onJobFailed: (queue, jobId, error) => failures.push({ queue, jobId, message: (error as Error).message }),
      });
      const states = await eventually(async () => {
        const rows = (await database.db.raw('SELECT data, state FROM pgboss.job WHERE id = ANY(?)', [ids])).rows as Array<{
          data: { deliveryId: number };
          state: string;
        }>;
        return rows.every((r) => r.state === 'completed' || r.state === 'failed') ? rows : undefined;
      });
      expect(Object.fromEntries(states.map((r) => [r.data.deliveryId, r.state]))).toEqual({
        1: 'completed',
        2: 'completed',
        3: 'failed',
      });
      expect([...seen].sort()).toEqual([1, 2, 3]);
      expect(failures).toEqual([{ queue: 'webhooks.deliver', jobId: ids[2], message: 'try again later' }]);
      const output = (await database.db.raw('SELECT output FROM pgboss.job WHERE id = ?', [ids[2]!])).rows[0].output;
      expect(output).toEqual({ message: 'try again later' });
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
    expect(dispatcher.output()).toContain(
      'failed to start: Invalid configuration: "WEBHOOK_RETRY_SCHEDULE" must be comma-separated durations',
    );
    expect(dispatcher.output()).not.toMatch(/\n\s+at /); // no stack trace
  });
});

import { createBoss } from '@mailcast/adapters';
import { createTestDatabase, eventually, freePort, type TestDatabase } from '@mailcast/testkit';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type PgBoss from 'pg-boss';
import { container } from 'tsyringe';
import { startWorkers, type JobHandler } from './handlers/registry';

const ROOT = path.resolve(__dirname, '../../..');



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
      const handler: JobHandler<'events.fanout'> = {
        queue: 'events.fanout',
        batchSize: 5,
        async handle(_container, job) {
          seen.push(job.data.eventId);
          if (job.data.eventId === 3) throw new Error('try again later');
        },
      };
      const ids = await Promise.all(
        [1, 2, 3].map(async (eventId) => {
          const id = await boss.send('events.fanout', { eventId }, { retryLimit: 0 });
          if (id === null) throw new Error('job not queued');
          return id;
        }),
      );
      await startWorkers(boss, container, [handler as unknown as JobHandler]);
      const states = await eventually(async () => {
        const rows = (await database.db.raw('SELECT data, state FROM pgboss.job WHERE id = ANY(?)', [ids])).rows as Array<{
          data: { eventId: number };
          state: string;
        }>;
        return rows.every((r) => r.state === 'completed' || r.state === 'failed') ? rows : undefined;
      });
      expect(Object.fromEntries(states.map((r) => [r.data.eventId, r.state]))).toEqual({
        1: 'completed',
        2: 'completed',
        3: 'failed',
      });
      expect([...seen].sort()).toEqual([1, 2, 3]);
    });
  });

  it('runs as a process: health on DISPATCHER_METRICS_PORT, clean exit on SIGTERM', async () => {
    expect(existsSync(path.join(ROOT, 'apps/dispatcher/dist/main.js'))).toBe(true);
    const port = await freePort();
    const child = spawn(process.execPath, ['apps/dispatcher/dist/main.js'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, DISPATCHER_METRICS_PORT: String(port), LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));

    const health = await eventually(async () => {
      const res = await fetch(`http://127.0.0.1:${port}/healthz`);
      return { status: res.status, body: await res.json() };
    });
    expect(health).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404);

    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(output).toContain('dispatcher stopped');
  });

  it('refuses to start on a bad configuration, naming the variable', async () => {
    const child = spawn(process.execPath, ['apps/dispatcher/dist/main.js'], {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: database.url, WEBHOOK_RETRY_SCHEDULE: 'often' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(output).toContain('failed to start: Invalid configuration: "WEBHOOK_RETRY_SCHEDULE" must be comma-separated durations');
    expect(output).not.toMatch(/\n\s+at /); // no stack trace
  });
});

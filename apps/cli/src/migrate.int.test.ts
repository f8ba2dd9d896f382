import { createBoss, RENAMED_MIGRATIONS } from '@mailcast/adapters';
import { QUEUES, RETIRED_QUEUES } from '@mailcast/core';
import { createTestDatabase, REPO_ROOT, spawnBuilt, type TestDatabase } from '@mailcast/testkit';
import { readdirSync } from 'node:fs';
import path from 'node:path';

/** Every migration file, in the order knex applies them (by name). */
const MIGRATIONS = readdirSync(path.join(REPO_ROOT, 'migrations'))
  .filter((f) => f.endsWith('.js'))
  .sort();

/** docs/operations.md: `npm run migrate` applies the knex migrations and pg-boss's schema to DATABASE_URL. */
describe('npm run migrate', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase({ empty: true });
  });
  afterAll(() => database.drop());

  const migrate = async () => {
    const run = spawnBuilt('apps/cli/dist/migrate.js', { ...process.env, DATABASE_URL: database.url });
    return { code: await run.exited, output: run.output() };
  };

  it('brings an empty database to the current schema, then finds nothing to do', async () => {
    const first = await migrate();
    expect(first.code).toBe(0);
    expect(first.output).toBe(`applied ${MIGRATIONS.length} migration(s):
${MIGRATIONS.map(
  (m) => `  ${m}
`,
).join('')}`);
    expect(MIGRATIONS.slice(0, 2)).toEqual(['20261122000000_foundation.js', '20261122000100_rate_limits.js']);

    const tables = (await database.db.raw(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`)).rows.map(
      (r: { table_name: string }) => r.table_name,
    );
    expect(tables).toEqual(
      expect.arrayContaining([
        'api_tokens',
        'broadcast_links',
        'broadcast_recipients',
        'broadcasts',
        'channels',
        'email_events',
        'email_servers',
        'events',
        'rate_limit_counts',
        'segment_memberships',
        'segments',
        'subscriber_confirmations',
        'subscribers',
        'suppressions',
        'templates',
        'webhook_deliveries',
        'webhook_endpoints',
      ]),
    );
    const queues = (await database.db.raw('SELECT name, retry_limit FROM pgboss.queue ORDER BY name')).rows;
    // Every queue the code names, each with pg-boss retries off (the schedules are ours).
    expect(queues).toEqual([...QUEUES].sort().map((name) => ({ name, retry_limit: 0 })));
    expect(QUEUES).toEqual(expect.arrayContaining(['webhooks.deliver', 'subscribers.confirmation', 'broadcasts.due', 'broadcasts.send']));
    expect(QUEUES).not.toContain('broadcasts.sweep');

    const second = await migrate();
    expect(second).toEqual({ code: 0, output: 'database is up to date\n' });
  });

  it('tells a database that applied migrations under their old names the new ones, and runs none of them again', async () => {
    expect((await migrate()).code).toBe(0);
    // As an installation upgraded from before the renaming has them recorded.
    for (const [before, after] of Object.entries(RENAMED_MIGRATIONS)) {
      expect(MIGRATIONS).toContain(after);
      await database.db('knex_migrations').where({ name: after }).update({ name: before });
    }
    expect(await migrate()).toEqual({ code: 0, output: 'database is up to date\n' });
    const names = await database.db('knex_migrations').orderBy('id').pluck('name');
    expect(names).toEqual(MIGRATIONS);
  });

  it('names every migration in one scheme: a UTC timestamp to the second, then what it does', () => {
    for (const name of MIGRATIONS) expect(name).toMatch(/^\d{14}_[a-z0-9_]+\.js$/);
  });

  it("removes what an earlier version's queues left: the due-broadcast sweep's queue, its jobs and its cron schedule", async () => {
    expect(RETIRED_QUEUES).toEqual(['broadcasts.sweep']);
    const boss = createBoss(database.url, 'api');
    await boss.start();
    try {
      await boss.createQueue('broadcasts.sweep', { name: 'broadcasts.sweep', retryLimit: 0 });
      await boss.schedule('broadcasts.sweep', '* * * * *', {});
      await boss.send('broadcasts.sweep', {}, { retryLimit: 0 });
    } finally {
      await boss.stop({ graceful: false, close: true, wait: true });
    }

    expect(await migrate()).toEqual({ code: 0, output: 'database is up to date\n' });
    const queues = (await database.db.raw('SELECT name FROM pgboss.queue ORDER BY name')).rows.map((r: { name: string }) => r.name);
    expect(queues).toEqual([...QUEUES].sort());
    expect((await database.db.raw('SELECT name FROM pgboss.schedule')).rows).toEqual([]);
    expect((await database.db.raw(`SELECT id FROM pgboss.job WHERE name = 'broadcasts.sweep'`)).rows).toEqual([]);
  });

  it('fails with a clear message and exit 1 when the database cannot be reached', async () => {
    const run = spawnBuilt('apps/cli/dist/migrate.js', {
      ...process.env,
      DATABASE_URL: 'postgres://nobody:wrong@127.0.0.1:1/none',
    });
    expect(await run.exited).toBe(1);
    expect(run.output()).toMatch(/^migrate failed: /);
    expect(run.output()).not.toMatch(/\n\s+at /);
  });
});

import { QUEUES, RETIRED_QUEUES } from '@mailcast/core';
import path from 'node:path';
import PgBoss from 'pg-boss';
import type { Database } from './database';

/** The repository's top-level migrations/ folder, from src/pg or dist/pg alike. */
export const MIGRATIONS_DIRECTORY = path.resolve(__dirname, '../../../../migrations');

export const PG_BOSS_SCHEMA = 'pgboss';

export interface MigrationResult {
  applied: string[];
}

/**
 * Brings a database to the current schema: the knex migrations, then pg-boss's own schema and
 * the queues the dispatcher works (and none it no longer works). Idempotent, and safe to run
 * while the app runs.
 */
export async function migrate(db: Database, connectionString: string): Promise<MigrationResult> {
  const [, applied] = (await db.migrate.latest({
    directory: MIGRATIONS_DIRECTORY,
    loadExtensions: ['.js'],
  })) as [number, string[]];
  const boss = new PgBoss({
    connectionString,
    schema: PG_BOSS_SCHEMA,
    max: 2,
    migrate: true,
    supervise: false,
    schedule: false,
  });
  boss.on('error', () => undefined);
  await boss.start();
  try {
    for (const name of QUEUES) {
      // createQueue is idempotent in pg-boss 10. retryLimit is explicit: its default is not 0,
      // and our jobs decide their own retries.
      await boss.createQueue(name, { name, retryLimit: 0 });
    }
    for (const name of RETIRED_QUEUES) {
      await boss.unschedule(name);
      // pg-boss 10 deletes a queue only once no job refers to it (its purgeQueue keeps jobs
      // that ran): whatever is left of a retired queue goes with it.
      await db.raw('DELETE FROM ??.job WHERE name = ?', [PG_BOSS_SCHEMA, name]);
      await boss.deleteQueue(name);
    }
  } finally {
    await boss.stop({ graceful: false, close: true, wait: true });
  }
  return { applied };
}

/** True when no knex migration is waiting (the api's readiness). */
export async function migrationsAreCurrent(db: Database): Promise<boolean> {
  const [, pending] = (await db.migrate.list({ directory: MIGRATIONS_DIRECTORY, loadExtensions: ['.js'] })) as [
    unknown[],
    unknown[],
  ];
  return pending.length === 0;
}

/**
 * Readiness of a process (api or dispatcher): the database answers and every migration is
 * applied. Never throws: an unreachable database is `database: false`.
 */
export async function readiness(db: Database): Promise<{ database: boolean; migrations: boolean }> {
  const checks = { database: false, migrations: false };
  try {
    await db.raw('SELECT 1');
    checks.database = true;
    checks.migrations = await migrationsAreCurrent(db);
  } catch {
    // reported as not ready; the cause is in the database's own logs
  }
  return checks;
}

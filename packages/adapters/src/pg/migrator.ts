import { QUEUES, RETIRED_QUEUES, SINGLETON_QUEUES } from '@mailcast/core';
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
 * Migrations renamed into the one naming scheme, `YYYYMMDDHHMMSS_name.js` (docs/operations.md,
 * "Migrations"). A database that applied them under their old names is told the new ones before
 * knex compares the folder with what was applied, so nothing runs twice.
 */
export const RENAMED_MIGRATIONS: Readonly<Record<string, string>> = {
  '2026112501000001_webhook_attempt_leases.js': '20261125010001_webhook_attempt_leases.js',
  '2026112502000001_engagement_window.js': '20261125020001_engagement_window.js',
  '2026112504000001_segment_rules.js': '20261125040001_segment_rules.js',
  '2026112505000001_suppressions.js': '20261125050001_suppressions.js',
  '2026112505000002_templates.js': '20261125050002_templates.js',
  '2026112505000003_transactionals.js': '20261125050003_transactionals.js',
  '2026112507000000_send_limits.js': '20261125070000_send_limits.js',
  '2026112510000001_confirmation_cap.js': '20261125100001_confirmation_cap.js',
  '2026112601000001_bounce_notifications.js': '20261126010001_bounce_notifications.js',
  '2026112602000001_retention_indexes.js': '20261126020001_retention_indexes.js',
  '2026112603000001_transactional_attempts.js': '20261126030001_transactional_attempts.js',
  '2026112605000001_send_permits.js': '20261126050001_send_permits.js',
  '2026112607000001_transactional_unsubscribe_secret.js': '20261126070001_transactional_unsubscribe_secret.js',
  '2026112608000001_audience_changes.js': '20261126080001_audience_changes.js',
  '2026112809000001_admin_tokens.js': '20261128090001_admin_tokens.js',
  '2026112810000001_unquote_addresses.js': '20261128100001_unquote_addresses.js',
};

/** Applied migrations recorded under an old name take their new one (idempotent). */
async function renameApplied(db: Database): Promise<void> {
  if (!(await db.schema.hasTable('knex_migrations'))) return;
  await db.transaction(async (trx) => {
    for (const [before, after] of Object.entries(RENAMED_MIGRATIONS)) {
      await trx('knex_migrations').where({ name: before }).update({ name: after });
    }
  });
}

/**
 * Brings a database to the current schema: the knex migrations, then pg-boss's own schema and
 * the queues the dispatcher works (and none it no longer works). Idempotent, and safe to run
 * while the app runs.
 */
export async function migrate(db: Database, connectionString: string): Promise<MigrationResult> {
  await renameApplied(db);
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
      await boss.createQueue(name, { name, retryLimit: 0, ...(SINGLETON_QUEUES.includes(name) ? { policy: 'short' } : {}) });
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
  const [, pending] = (await db.migrate.list({ directory: MIGRATIONS_DIRECTORY, loadExtensions: ['.js'] })) as [unknown[], unknown[]];
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

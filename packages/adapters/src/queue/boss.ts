import PgBoss from 'pg-boss';
import { PG_BOSS_SCHEMA } from '../pg/migrator';

/**
 * The api only enqueues: no supervision. The dispatcher owns maintenance. Neither runs pg-boss's
 * cron clock: it works its queue through pg-boss's `work`, whose unawaited writes can end the
 * process when the database goes away, so the dispatcher's safety nets run on a timer of its
 * own. Neither migrates: `npm run migrate` does (so many processes can start at once).
 */
export function createBoss(connectionString: string, role: 'api' | 'dispatcher'): PgBoss {
  return new PgBoss({
    connectionString,
    schema: PG_BOSS_SCHEMA,
    application_name: `mailcast-${role}-queue`,
    max: role === 'api' ? 4 : 10,
    migrate: false,
    supervise: role === 'dispatcher',
    schedule: false,
    retryLimit: 0,
  });
}

import PgBoss from 'pg-boss';
import { PG_BOSS_SCHEMA } from '../pg/migrator';

/**
 * The api only enqueues: no supervision, no cron clock. The dispatcher owns maintenance and
 * schedules. Neither migrates: `npm run migrate` does (so many processes can start at once).
 */
export function createBoss(connectionString: string, role: 'api' | 'dispatcher'): PgBoss {
  return new PgBoss({
    connectionString,
    schema: PG_BOSS_SCHEMA,
    application_name: `mailcast-${role}-queue`,
    max: role === 'api' ? 4 : 10,
    migrate: false,
    supervise: role === 'dispatcher',
    schedule: role === 'dispatcher',
    retryLimit: 0,
  });
}

import { createDatabase, type Database } from '@mailcast/adapters';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ADMIN_URL_ENV, TEMPLATE_ENV } from './env';

export interface TestDatabase {
  name: string;
  url: string;
  db: Database;
  drop(): Promise<void>;
}

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through jest (global setup)`);
  return value;
}

/** A connection as the run's superuser, to the maintenance database, for the length of `work`. */
export async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: env(ADMIN_URL_ENV) });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A private, migrated database cloned from the run's template (or an empty one). */
export async function createTestDatabase(options: { empty?: boolean } = {}): Promise<TestDatabase> {
  const name = `mailcast_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(async (client) => {
    if (options.empty) {
      await client.query(`CREATE DATABASE ${name}`);
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${env(TEMPLATE_ENV)}`);
        return;
      } catch (error) {
        // 55006: the template is briefly in use by a concurrent clone; try again.
        if ((error as { code?: string }).code !== '55006' || attempt === 20) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
  });
  const url = new URL(env(ADMIN_URL_ENV));
  url.pathname = `/${name}`;
  const db = createDatabase(url.toString(), { poolMax: 5 });
  return {
    name,
    url: url.toString(),
    db,
    async drop() {
      await db.destroy();
      await withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * Closes `name` to new connections and ends the open ones, as if its server had stopped; the
 * returned function opens it again.
 */
export async function cutOffDatabase(name: string): Promise<() => Promise<void>> {
  await withAdmin(async (client) => {
    await client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  });
  return () => withAdmin(async (client) => void (await client.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`)));
}

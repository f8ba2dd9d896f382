import path from 'node:path';
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres';
import { dataDirectory, embeddedPort } from './paths';

/**
 * docs/operations.md: DATABASE_URL when set, else the embedded instance under `.data/` — attached to
 * when `npm start` already runs it, started (and later stopped) by this process otherwise.
 */
export async function resolveDatabase(databaseUrl: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<EmbeddedDatabase> {
  if (databaseUrl !== undefined) {
    return { url: databaseUrl, adminUrl: databaseUrl, owned: false, stop: async () => undefined };
  }
  return startEmbeddedPostgres({ dataDir: path.join(dataDirectory(env), 'postgres'), port: embeddedPort(env) });
}

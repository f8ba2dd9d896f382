import path from 'node:path';
import { DEFAULT_EMBEDDED_PORT } from './embedded-postgres';

/** The repository root, from src/ or dist/ of this package alike. */
export const REPO_ROOT = path.resolve(__dirname, '../../..');

/** Where `npm start` keeps its state: the embedded database, captured mail, the dev token. */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.MAILCAST_DATA_DIR ?? path.join(REPO_ROOT, '.data'));
}

/** The embedded cluster's port (development and tests; production sets DATABASE_URL). */
export function embeddedPort(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.MAILCAST_EMBEDDED_PG_PORT;
  return raw !== undefined && /^\d{1,5}$/.test(raw) ? Number(raw) : DEFAULT_EMBEDDED_PORT;
}

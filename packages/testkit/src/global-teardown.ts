import pg from 'pg';
import { ADMIN_URL_ENV, TEMPLATE_ENV } from './env';

export default async function globalTeardown(): Promise<void> {
  const cluster = globalThis.__MAILCAST_TEST_PG__;
  if (cluster) {
    await cluster.stop(); // a temporary cluster: stopping removes its directory
    return;
  }
  // A shared server (DATABASE_URL): leave it as found.
  const admin = new pg.Client({ connectionString: process.env[ADMIN_URL_ENV] });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${process.env[TEMPLATE_ENV] ?? 'none'}`);
  await admin.end();
}

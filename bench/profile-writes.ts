/**
 * Where the api's write path spends its CPU (issue 21): the built api and the bare node:http + pg
 * handler each take the same fixed number of subscriber creates (and updates), and the CPU
 * seconds each process used are read from /proc, which a loaded machine disturbs far less than
 * requests/s. With PROFILE_DIR set the api runs under `node --cpu-prof`, writing its profile
 * there. Options and use: docs/write-path.md, "Measuring".
 */
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import { seedLoadDatabase, startProcess, stop, writeRequests } from './api-load.bench';
import { cpuSeconds } from './harness';
import { startEmbeddedPostgres } from '@mailcast/devkit';
import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { freePort, openBenchPostgres, round } from './harness';

const REQUESTS = Number(process.env.PROFILE_REQUESTS ?? 5000);
const CONNECTIONS = 50;

async function measure(child: ChildProcess, url: string, method: 'POST' | 'PATCH', headers: Record<string, string>, tag: string) {
  const before = cpuSeconds(child.pid!);
  const result = await autocannon({
    url,
    method,
    headers,
    connections: CONNECTIONS,
    amount: REQUESTS,
    requests: writeRequests(method === 'POST' ? 'create' : 'update', tag),
  });
  const cpu = cpuSeconds(child.pid!) - before;
  return {
    cpuMsPerRequest: round((cpu * 1000) / REQUESTS, 3),
    rps: round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
  };
}

/** The statements each database saw per request of the measured rounds, from pg_stat_statements. */
async function statementsPerRequest(url: string, requests: number): Promise<Array<{ calls: number; perRequest: number; query: string }>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ calls: string; query: string }>(
      `SELECT calls, query FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) ORDER BY calls DESC LIMIT 20`,
    );
    return rows.map((r) => ({ calls: Number(r.calls), perRequest: round(Number(r.calls) / requests, 2), query: r.query.replace(/\s+/g, ' ').slice(0, 120) }));
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  // A cluster of its own, with pg_stat_statements loaded, so every statement is counted.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-profile-pg-'));
  const cluster = await startEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    persistent: false,
    database: 'postgres',
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'all' },
  });
  process.env.DATABASE_URL = cluster.adminUrl;
  const postgres = await openBenchPostgres();
  try {
    const { url, channelId, token } = await seedLoadDatabase(postgres.context((m) => console.error(m)));
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const apiPort = await freePort();
    const barePort = await freePort();
    const profile = process.env.PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.PROFILE_DIR}`] : [];
    const api = await startProcess(
      'apps/api/dist/main.js',
      { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: process.env.PROFILE_LOG_LEVEL ?? 'warn' },
      apiPort,
      profile,
    );
    const bare = await startProcess('bench/bare-pg-writes.mjs', { DATABASE_URL: url, CHANNEL_ID: String(channelId) }, barePort);
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    try {
      const methods = (process.env.PROFILE_METHODS ?? 'POST,PATCH').split(',') as Array<'POST' | 'PATCH'>;
      for (const method of methods) {
        // A warm-up round each, so both are measured with their code optimised and pools full.
        for (const round of ['warm-up', 'measured']) {
          await admin.query('SELECT pg_stat_statements_reset()');
          const bareFigures = await measure(bare, `http://127.0.0.1:${barePort}/subscribers`, method, headers, `bare${round}`);
          const apiFigures = await measure(api, `http://127.0.0.1:${apiPort}/api/v1/subscribers.json`, method, headers, `api${round}`);
          console.log(JSON.stringify({ method, round, bare: bareFigures, api: apiFigures, load: os.loadavg().map((l) => l.toFixed(2)) }));
          // Both processes' statements together: per request of the two (2 x REQUESTS).
          if (round === 'measured') console.log(JSON.stringify(await statementsPerRequest(url, 2 * REQUESTS), null, 1));
        }
      }
    } finally {
      await admin.end();
      await stop(api);
      await stop(bare);
    }
  } finally {
    await postgres.close();
    await cluster.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

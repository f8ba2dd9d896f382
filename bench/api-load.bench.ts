import { createBoss, createLogger, loadConfig, pgRepositories, secretBoxFor } from '@mailcast/adapters';
import { issueApiToken } from '@mailcast/core';
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuSeconds, freePort, round, type Bench, type BenchContext, type BenchFigure } from './harness';

const REPO_ROOT = path.resolve(__dirname, '..');
const DURATION_S = Number(process.env.BENCH_LOAD_SECONDS ?? 8);
const CONNECTIONS = 20;
/** Issue 21: the write path is measured with 50 connections against a bare node:http + pg handler. */
const WRITE_CONNECTIONS = 50;
const SEEDED_SUBSCRIBERS = 10_000;
const WRITE_TARGET_RATIO = 0.7;
const WRITE_TARGET_P99_MS = 30;

export async function startProcess(script: string, env: NodeJS.ProcessEnv, port: number, execArgv: string[] = []): Promise<ChildProcess> {
  const child = fork(path.join(REPO_ROOT, script), [], { env: { ...process.env, ...env, PORT: String(port) }, stdio: 'pipe', execArgv });
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  // 60 s: a loaded machine takes longer than 10 s to load the api's modules.
  for (let i = 0; i < 600; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/healthz`);
      return child;
    } catch {
      if (child.exitCode !== null) throw new Error(`${script} exited: ${output}`);
      await sleep(100);
    }
  }
  throw new Error(`${script} did not start: ${output}`);
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export interface Load {
  rps: number;
  p99: number;
  errors: number;
  /** Requests answered over the run. */
  requests: number;
}

export async function load(options: autocannon.Options): Promise<Load> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, ...options });
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
    requests: result.requests.total,
  };
}

/** A migrated database with one channel, its token, seeded subscribers and a broadcast. */
export async function seedLoadDatabase(context: BenchContext): Promise<{ url: string; channelId: number; token: string; broadcastId: number }> {
  const { url, db } = await context.database();
  const boss = createBoss(url, 'api');
  await boss.start();
  const secrets = secretBoxFor(loadConfig(process.env), createLogger({ level: 'warn', production: false, service: 'bench' }));
  const repositories = pgRepositories(db, boss, secrets);
  const channel = await repositories.channels.create({ name: 'Load' });
  const { token } = await issueApiToken(repositories, { bytes: (n) => randomBytes(n) }, { channelId: channel.id }, [
    'broadcasts_read',
    'subscribers_read',
    'subscribers_write',
  ]);
  await boss.stop({ graceful: false, close: true, wait: true });
  await db.raw(
    `INSERT INTO subscribers (channel_id, email, first_name, tags, custom_data)
     SELECT ?, 'seed' || g || '@example.com', 'Seed ' || g, ARRAY['seed'], jsonb_build_object('n', g)
       FROM generate_series(1, ?) g`,
    [channel.id, SEEDED_SUBSCRIBERS],
  );
  const [broadcast] = await db('broadcasts')
    .insert({ channel_id: channel.id, name: 'Load', subject: 'Hello', body: 'Body', track_opens: true, track_clicks: true })
    .returning('id');
  await db.raw('ANALYZE');
  return { url, channelId: channel.id, token, broadcastId: (broadcast as { id: number }).id };
}

/**
 * Issue 8: autocannon against the running api (subscriber create, list, broadcast get) beside a
 * bare Express handler on the same machine in the same run. The error count must be 0.
 */
export const apiLoadBench: Bench = {
  name: 'api-load',
  async run(context) {
    const { url, channelId, token, broadcastId } = await seedLoadDatabase(context);

    const apiPort = await freePort();
    const barePort = await freePort();
    context.log('starting the api and the bare Express baseline');
    const api = await startProcess('apps/api/dist/main.js', { DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'warn' }, apiPort);
    const bare = await startProcess('bench/bare-express.mjs', {}, barePort);
    const barePgPort = await freePort();
    const barePg = await startProcess('bench/bare-pg-writes.mjs', { DATABASE_URL: url, CHANNEL_ID: String(channelId) }, barePgPort);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const figures: BenchFigure[] = [];
    let totalErrors = 0;
    try {
      const bareGet = await load({ url: `http://127.0.0.1:${barePort}/x` });
      const barePost = await load({
        url: `http://127.0.0.1:${barePort}/x`,
        method: 'POST',
        headers,
        body: JSON.stringify({ subscriber: { email: 'a@example.com' } }),
      });
      let n = 0;
      const scenarios: Array<{ name: string; ceiling: Load; options: autocannon.Options }> = [
        {
          name: 'subscriber create (POST /api/v1/subscribers.json)',
          ceiling: barePost,
          options: {
            url: `http://127.0.0.1:${apiPort}/api/v1/subscribers.json`,
            method: 'POST',
            headers,
            requests: [
              {
                setupRequest: (request) => ({
                  ...request,
                  body: JSON.stringify({ subscriber: { email: `load${process.pid}-${++n}@example.com`, first_name: 'Load', tags: ['load'] } }),
                }),
              },
            ],
          },
        },
        {
          name: 'subscriber list (GET /api/v1/subscribers.json?tags[]=seed)',
          ceiling: bareGet,
          options: { url: `http://127.0.0.1:${apiPort}/api/v1/subscribers.json?tags%5B%5D=seed`, headers },
        },
        {
          name: 'broadcast get (GET /api/v1/broadcasts/:id)',
          ceiling: bareGet,
          options: { url: `http://127.0.0.1:${apiPort}/api/v1/broadcasts/${broadcastId}`, headers },
        },
      ];
      for (const scenario of scenarios) {
        context.log(scenario.name);
        const result = await load(scenario.options);
        totalErrors += result.errors;
        figures.push(
          { metric: `${scenario.name}: requests/s`, value: result.rps, unit: 'req/s', ceiling: scenario.ceiling.rps },
          { metric: `${scenario.name}: p99 latency`, value: result.p99, unit: 'ms', ceiling: scenario.ceiling.p99 },
          { metric: `${scenario.name}: errors`, value: result.errors, unit: '', target: '0', met: result.errors === 0 },
        );
      }
      totalErrors += bareGet.errors + barePost.errors;
      context.log('write path against the bare node:http + pg handler');
      const writes = await writePath({ process: api, port: apiPort }, { process: barePg, port: barePgPort }, headers);
      figures.push(...writes.figures);
      totalErrors += writes.errors;
    } finally {
      await stop(api);
      await stop(bare);
      await stop(barePg);
    }
    return {
      title: 'API under load (autocannon)',
      setup:
        `${CONNECTIONS} connections for ${DURATION_S} s per scenario, against the built api process (rate limit off, ` +
        `${SEEDED_SUBSCRIBERS.toLocaleString('en')} seeded subscribers) and, as the ceiling, a bare Express app ` +
        '(JSON parsing and a small JSON answer, no auth and no database) on the same machine. The write ' +
        `path (issue 21): ${WRITE_CONNECTIONS} connections, against a bare node:http + pg Pool (10 connections, ` +
        'as the api) handler making the same writes in one transaction (subscriber row + outbox event) to ' +
        'the same tables of the same database; creates use unique addresses, updates cycle through the ' +
        "seeded subscribers; their CPU per request is the serving process's user + system CPU (/proc) over " +
        'the run divided by the requests answered. Error = connection error, time-out or non-2xx answer.',
      figures,
      notes: [
        `errors over the whole run: ${totalErrors}`,
        `list pages hold 250 subscribers of ${round(SEEDED_SUBSCRIBERS)}`,
        `load average at the end: ${os
          .loadavg()
          .map((l) => round(l, 2))
          .join(', ')} (${os.cpus().length} cores)`,
      ],
    };
  },
};

/** Bodies with a fresh address each (create) or the next seeded subscriber (update). */
export function writeRequests(kind: 'create' | 'update', tag: string): autocannon.Options['requests'] {
  let n = 0;
  const body =
    kind === 'create'
      ? () => ({ subscriber: { email: `${tag}${process.pid}-${++n}@example.com`, first_name: 'Load', tags: ['load'] } })
      : () => ({ email: `seed${(n++ % SEEDED_SUBSCRIBERS) + 1}@example.com`, subscriber: { first_name: `${tag} ${n}`, tags: ['seed', tag] } });
  return [{ setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }) }];
}

/**
 * Issue 21: POST (create, unique addresses) and PATCH (update) of subscribers through the api and
 * through the bare node:http + pg handler, one after the other, with the same connections.
 */
async function writePath(
  api: { process: ChildProcess; port: number },
  bare: { process: ChildProcess; port: number },
  headers: Record<string, string>,
): Promise<{ figures: BenchFigure[]; errors: number }> {
  const figures: BenchFigure[] = [];
  let errors = 0;
  for (const [kind, method, label] of [
    ['create', 'POST', 'subscriber create'],
    ['update', 'PATCH', 'subscriber update'],
  ] as const) {
    const options = { method, headers, connections: WRITE_CONNECTIONS };
    const ceiling = await measured(bare.process, { ...options, url: `http://127.0.0.1:${bare.port}/subscribers`, requests: writeRequests(kind, 'bare') });
    const result = await measured(api.process, {
      ...options,
      url: `http://127.0.0.1:${api.port}/api/v1/subscribers.json`,
      requests: writeRequests(kind, 'api'),
    });
    errors += ceiling.errors + result.errors;
    const name = `${label} (${method} /api/v1/subscribers.json, ${WRITE_CONNECTIONS} connections) vs bare node:http + pg`;
    figures.push(
      {
        metric: `${name}: requests/s`,
        value: result.rps,
        unit: 'req/s',
        ceiling: ceiling.rps,
        target: `>= ${WRITE_TARGET_RATIO}x ceiling`,
        met: result.rps >= WRITE_TARGET_RATIO * ceiling.rps,
      },
      {
        metric: `${name}: p99 latency`,
        value: result.p99,
        unit: 'ms',
        ceiling: ceiling.p99,
        target: `< ${WRITE_TARGET_P99_MS} ms`,
        met: result.p99 < WRITE_TARGET_P99_MS,
      },
      // CPU of the serving process per answered request: steadier than requests/s on a shared machine.
      { metric: `${name}: CPU per request (server process)`, value: result.cpuMsPerRequest, unit: 'ms', ceiling: ceiling.cpuMsPerRequest },
      { metric: `${name}: errors (api + bare)`, value: result.errors + ceiling.errors, unit: '', target: '0', met: result.errors + ceiling.errors === 0 },
    );
  }
  return { figures, errors };
}

/** load(), with the serving process's CPU milliseconds per request over the run. */
async function measured(server: ChildProcess, options: autocannon.Options): Promise<Load & { cpuMsPerRequest: number }> {
  const before = cpuSeconds(server.pid!);
  const result = await load(options);
  return { ...result, cpuMsPerRequest: result.requests > 0 ? ((cpuSeconds(server.pid!) - before) * 1000) / result.requests : Number.NaN };
}

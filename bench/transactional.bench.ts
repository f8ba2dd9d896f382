import { createBoss, pgRepositories, SecretBox } from '@mailcast/adapters';
import { issueApiToken } from '@mailcast/core';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { load, startProcess, stop } from './api-load.bench';
import { freePort, percentile, round, type Bench, type BenchFigure } from './harness';

const REPO_ROOT = path.resolve(__dirname, '..');
const PROBES = Number(process.env.TRANSACTIONAL_BENCH_PROBES ?? 200);
const BROADCAST = Number(process.env.TRANSACTIONAL_BENCH_RECIPIENTS ?? 100_000);
const DURATION_S = Number(process.env.BENCH_LOAD_SECONDS ?? 8);

/**
 * An SMTP server in its own process that accepts everything and prints one line per probe
 * (recipients `probe…`) at the instant it accepts it, with how many broadcast messages it had
 * accepted by then.
 */
const SINK = `
const { SMTPServer } = require('smtp-server');
const { performance } = require('node:perf_hooks');
let bulk = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, size: 0,
  onData(stream, session, cb) {
    stream.on('data', () => {});
    stream.on('end', () => {
      const to = session.envelope.rcptTo[0] ? session.envelope.rcptTo[0].address : '';
      if (to.startsWith('probe')) console.log(JSON.stringify({ to, at: performance.timeOrigin + performance.now(), bulk }));
      else bulk++;
      cb();
    });
  },
});
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.server.address().port })));
`;

interface Accepted {
  at: number;
  bulk: number;
}

function startSink(): { child: ChildProcess; port: Promise<number>; accepted: Map<string, Accepted>; waiters: Map<string, () => void> } {
  const child = spawn(process.execPath, ['-e', SINK], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const accepted = new Map<string, Accepted>();
  const waiters = new Map<string, () => void>();
  let buffer = '';
  let gotPort: (port: number) => void;
  const port = new Promise<number>((resolve) => (gotPort = resolve));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const line = JSON.parse(buffer.slice(0, nl)) as { port?: number; to?: string; at?: number; bulk?: number };
      buffer = buffer.slice(nl + 1);
      if (line.port !== undefined) gotPort(line.port);
      else {
        accepted.set(line.to!, { at: line.at!, bulk: line.bulk! });
        waiters.get(line.to!)?.();
      }
    }
  });
  return { child, port, accepted, waiters };
}

const now = () => performance.timeOrigin + performance.now();

/**
 * Issue 18: a transactional's latency from the api's 201 to the SMTP server's acceptance, idle and
 * during a large broadcast, with the api, the dispatcher and the SMTP server each a process of
 * their own; then the api's throughput for transactional creates beside a bare handler doing the
 * same inserts.
 */
export const transactionalBench: Bench = {
  name: 'transactional',
  async run(context) {
    const { url, db } = await context.database();
    const boss = createBoss(url, 'api');
    await boss.start();
    // One secret key for this process and the two it starts, so all open what the others sealed.
    const secretKey = randomBytes(32);
    const repositories = pgRepositories(db, boss, new SecretBox(secretKey));
    const channel = await repositories.channels.create({ name: 'Transactional' });
    const { token } = await issueApiToken(repositories, { bytes: (n) => randomBytes(n) }, { channelId: channel.id }, [
      'transactionals_write',
      'transactionals_read',
    ]);
    const sink = startSink();
    const smtpPort = await sink.port;
    await db('email_servers').insert({ channel_id: channel.id, host: '127.0.0.1', port: smtpPort, tls: 'none', from_email: 'news@bench.test' });

    const apiPort = await freePort();
    const env = {
      DATABASE_URL: url,
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      PUBLIC_URL: 'http://bench.test',
      MAILCAST_SECRET_KEY: secretKey.toString('base64'),
      SMTP_ALLOW_PRIVATE: 'true',
    };
    const api = await startProcess('apps/api/dist/main.js', env, apiPort);
    const dispatcherPort = await freePort();
    let dispatcher: ChildProcess | undefined = await startProcess(
      'apps/dispatcher/dist/main.js',
      { ...env, DISPATCHER_METRICS_PORT: String(dispatcherPort) },
      dispatcherPort,
    );
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const figures: BenchFigure[] = [];
    const notes: string[] = [];
    let probe = 0;

    /** One transactional: ms from the 201 (body read) to the SMTP server's acceptance. */
    const measure = async (): Promise<{ ms: number; bulk: number }> => {
      const to = `probe${++probe}@bench.test`;
      const arrived = new Promise<void>((resolve) => sink.waiters.set(to, resolve));
      const res = await fetch(`http://127.0.0.1:${apiPort}/api/v1/transactionals.json`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ to, subject: 'Your code {{ data.code }}', body: 'Code {{ data.code }}', data: { code: probe } }),
      });
      await res.text();
      const answeredAt = now();
      if (res.status !== 201) throw new Error(`transactional create answered ${res.status}`);
      await Promise.race([arrived, new Promise((_, reject) => setTimeout(() => reject(new Error(`${to} not received in 30 s`)), 30_000))]);
      sink.waiters.delete(to);
      const accepted = sink.accepted.get(to)!;
      return { ms: accepted.at - answeredAt, bulk: accepted.bulk };
    };
    const report = (label: string, samples: number[], p99Target: number) => {
      const p50 = percentile(samples, 50);
      const p99 = percentile(samples, 99);
      context.log(`${label}: p50 ${round(p50)} ms, p99 ${round(p99)} ms, max ${round(Math.max(...samples))} ms (${samples.length} probes)`);
      figures.push(
        { metric: `${label}: p50 latency, 201 → SMTP acceptance`, value: p50, unit: 'ms' },
        { metric: `${label}: p99 latency, 201 → SMTP acceptance`, value: p99, unit: 'ms', target: `p99 < ${p99Target} ms`, met: p99 < p99Target },
      );
    };

    try {
      // --- 1. Idle ------------------------------------------------------------------------------
      for (let i = 0; i < 10; i++) await measure(); // warm: connections, JIT
      const idle: number[] = [];
      for (let i = 0; i < PROBES; i++) idle.push((await measure()).ms);
      report('idle', idle, 250);
      notes.push(
        `Load average after the idle probes: ${os
          .loadavg()
          .map((l) => round(l))
          .join(', ')}.`,
      );

      // --- 2. During a broadcast ------------------------------------------------------------------
      context.log(`seeding ${BROADCAST} subscribers for the broadcast`);
      await db.raw(`INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'u' || g || '@bulk.test', 'U' || g FROM generate_series(1, ?) g`, [
        channel.id,
        BROADCAST,
      ]);
      await db.raw('VACUUM ANALYZE subscribers');
      const [broadcast] = await db('broadcasts')
        .insert({
          channel_id: channel.id,
          name: 'bench',
          subject: 'Hello {{ subscriber.first_name }}',
          body: 'News for {{ subscriber.first_name }} https://example.com/a',
          track_opens: true,
          track_clicks: true,
          status: 'scheduled',
        })
        .returning('id');
      const started = now();
      await boss.send('broadcasts.send', { broadcastId: broadcast.id }, { retryLimit: 0 });
      const status = async () => ((await db('broadcasts').where({ id: broadcast.id }).first('status')) as { status: string }).status;
      while ((await status()) !== 'sending') await new Promise((resolve) => setTimeout(resolve, 100));
      const during: number[] = [];
      let after = 0;
      while (during.length < PROBES) {
        const sample = await measure();
        if (sample.bulk >= BROADCAST) {
          after++;
          break;
        }
        during.push(sample.ms);
      }
      while (!['sent', 'partial_failure', 'failed'].includes(await status())) await new Promise((resolve) => setTimeout(resolve, 500));
      const broadcastSeconds = (now() - started) / 1000;
      const outcomes = (
        await db.raw('SELECT status, min(error) AS error, count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ? GROUP BY status', [broadcast.id])
      ).rows as Array<{ status: string; error: string | null; n: number }>;
      notes.push(`Broadcast outcomes: ${outcomes.map((o) => `${o.status} ${o.n}${o.error ? ` (e.g. "${o.error}")` : ''}`).join(', ')}.`);
      report(`during a ${BROADCAST.toLocaleString('en')}-recipient broadcast`, during, 1_000);
      notes.push(
        `The broadcast took ${round(broadcastSeconds, 1)} s (${round(BROADCAST / broadcastSeconds)} msg/s, status ${await status()}); ${during.length} probes were accepted while it was still going out${after > 0 ? ', and the probe that arrived after its last message was left out' : ''}. Load average then: ${os
          .loadavg()
          .map((l) => round(l))
          .join(', ')}.`,
      );

      // --- 3. Throughput of creates -----------------------------------------------------------------
      await stop(dispatcher);
      dispatcher = undefined;
      const barePort = await freePort();
      const bare = await startProcess('bench/bare-transactional.mjs', { DATABASE_URL: url, CHANNEL_ID: String(channel.id) }, barePort);
      try {
        let n = 0;
        const creates = (port: number, pathName: string) => ({
          url: `http://127.0.0.1:${port}${pathName}`,
          method: 'POST' as const,
          headers,
          requests: [
            { setupRequest: (request: object) => ({ ...request, body: JSON.stringify({ to: `load${++n}@load.test`, subject: 'Receipt', body: 'Thanks' }) }) },
          ],
        });
        context.log('throughput: bare handler');
        const bareLoad = await load(creates(barePort, '/x'));
        context.log('throughput: api');
        const apiLoad = await load(creates(apiPort, '/api/v1/transactionals.json'));
        figures.push(
          { metric: 'transactional creates: requests/s', value: apiLoad.rps, unit: 'req/s', ceiling: bareLoad.rps },
          { metric: 'transactional creates: p99 latency', value: apiLoad.p99, unit: 'ms', ceiling: bareLoad.p99 },
          {
            metric: 'transactional creates: errors',
            value: apiLoad.errors + bareLoad.errors,
            unit: '',
            target: '0',
            met: apiLoad.errors + bareLoad.errors === 0,
          },
        );
      } finally {
        await stop(bare);
      }
    } finally {
      if (dispatcher) await stop(dispatcher);
      await stop(api);
      sink.child.kill('SIGTERM');
      await boss.stop({ graceful: false, close: true, wait: true });
    }
    return {
      title: 'Transactional email (issue 18)',
      setup:
        `The built api and dispatcher, each a process of its own, and an SMTP server accepting everything in a third. Latency: ${PROBES} transactionals sent one after another ` +
        `(after 10 unmeasured), from the client's receipt of the 201 to the SMTP server's acceptance of the message (both clocks performance.timeOrigin + now()), ` +
        `first idle, then while a ${BROADCAST.toLocaleString('en')}-recipient broadcast goes out through the same server. Throughput: autocannon, 20 connections for ${DURATION_S} s, ` +
        'creates to new addresses with the dispatcher stopped, beside a bare Express handler doing the same inserts (subscriber, transactional row, pg-boss job, NOTIFY) in one transaction. ' +
        'Sizes: TRANSACTIONAL_BENCH_PROBES, TRANSACTIONAL_BENCH_RECIPIENTS, BENCH_LOAD_SECONDS.',
      figures,
      notes,
    };
  },
};

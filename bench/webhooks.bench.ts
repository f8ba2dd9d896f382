import 'reflect-metadata';
import { createBoss, loadConfig, pgRepositories, secretBoxFor, type Infrastructure } from '@mailcast/adapters';
import { CreateWebhookEndpoint, Transactor, webhookBody, type Principal } from '@mailcast/core';
import { PERMISSIONS, signedHeaders } from '@mailcast/domain';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import winston from 'winston';
import { buildContainer } from '../apps/dispatcher/dist/container';
import { percentile, round, type Bench, type BenchFigure } from './harness';

const EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 1_000);
/** Events per second of the steady case: traffic that arrives, rather than a backlog drained. */
const PACED_RATE = Number(process.env.BENCH_WEBHOOK_PACED_RATE ?? 30);
const PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_PACED_SECONDS ?? 20);
const ENDPOINTS = 10;
const PER_ENDPOINT_CONCURRENCY = 8;
/** The dispatcher never has more POSTs in flight than this; the bare loop uses the same. */
const CONCURRENCY = ENDPOINTS * PER_ENDPOINT_CONCURRENCY;
const EVENTS_PER_TRANSACTION = 100;

// The receiver runs in its own process, as a real one would: it answers 200 at once and
// remembers (event id, arrival time) per endpoint path, handed over when asked.
const RECEIVER = `
const http = require('node:http');
let seen = [];
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    seen.push([req.url, Number(req.headers['broadcast-webhook-id']), Date.now()]);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', (m) => {
  if (m === 'dump') { process.send({ seen }); seen = []; }
  if (m === 'stop') server.close(() => process.exit(0));
});
`;

interface Receiver {
  port: number;
  dump(): Promise<Array<[string, number, number]>>;
  count(): Promise<number>;
  stop(): Promise<void>;
}

async function startReceiverProcess(): Promise<Receiver> {
  const file = path.join(os.tmpdir(), `mailcast-bench-receiver-${process.pid}.js`);
  writeFileSync(file, RECEIVER);
  const child: ChildProcess = fork(file, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve) => child.once('message', (m: { port: number }) => resolve(m.port)));
  let buffered: Array<[string, number, number]> = [];
  const dump = () =>
    new Promise<Array<[string, number, number]>>((resolve) => {
      child.once('message', (m: { seen: Array<[string, number, number]> }) => resolve(m.seen));
      child.send('dump');
    });
  return {
    port,
    async dump() {
      const all = buffered.concat(await dump());
      buffered = [];
      return all;
    },
    async count() {
      buffered = buffered.concat(await dump());
      return buffered.length;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send('stop');
      }),
  };
}

/** The ceiling: got alone, the same bodies and headers, the same concurrency, the same receiver. */
async function bareGotLoop(posts: Array<{ url: string; body: string; headers: Record<string, string> }>): Promise<number> {
  const { default: got } = await import('got');
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < posts.length) {
        const post = posts[next++]!;
        await got.post(post.url, {
          body: post.body,
          headers: { 'content-type': 'application/json', 'user-agent': 'Mailcast-Webhooks/1.0', ...post.headers },
          timeout: { request: 30_000 },
          followRedirect: false,
          throwHttpErrors: false,
          retry: { limit: 0 },
        });
      }
    }),
  );
  return posts.length / ((performance.now() - started) / 1000);
}

const until = async (done: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error('benchmark did not finish in time');
    await new Promise((r) => setTimeout(r, 100));
  }
};

/**
 * The built dispatcher as production runs it, a process of its own (BENCH_WEBHOOK_DISPATCHER_ARGS:
 * extra node flags, e.g. --cpu-prof). Resolves once it logs that it works its queues.
 */
async function startDispatcherProcess(env: NodeJS.ProcessEnv): Promise<{ stop(): Promise<void> }> {
  const flags = (process.env.BENCH_WEBHOOK_DISPATCHER_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...flags, 'apps/dispatcher/dist/main.js'], {
    cwd: path.resolve(__dirname, '..'),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr!.on('data', (c: Buffer) => (out = (out + c.toString()).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out = (out + c.toString()).slice(-4000);
      if (out.includes('dispatcher working')) resolve();
    });
    void exited.then((code) => reject(new Error(`dispatcher exited (${code}): ${out}`)));
  });
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export const webhooksBench: Bench = {
  name: 'webhooks',
  async run(context) {
    const { url, db } = await context.database();
    const receiver = await startReceiverProcess();
    const boss = createBoss(url, 'api');
    boss.on('error', (e: Error) => context.log(`queue error: ${e.message}`));
    await boss.start();
    // The bench writes as the api would; the dispatcher it spawns shares the key and database.
    const env = {
      ...process.env,
      DATABASE_URL: url,
      WEBHOOK_ALLOW_PRIVATE: 'true',
      MAILCAST_SECRET_KEY: randomBytes(32).toString('base64'),
      PUBLIC_URL: 'http://bench.test',
      LOG_LEVEL: 'info',
    };
    const logger = winston.createLogger({ level: 'error', transports: [new winston.transports.Console()] });
    const infra: Infrastructure = { config: loadConfig(env), logger, db, boss };
    const container = buildContainer(infra);
    const channel = await pgRepositories(db, boss, secretBoxFor(infra.config, logger)).channels.create({ name: 'bench' });
    const caller: Principal = { tokenId: 0, channelId: channel.id, permissions: PERMISSIONS };
    const endpoints = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      endpoints.push(
        await container.resolve(CreateWebhookEndpoint).execute(caller, {
          url: `http://127.0.0.1:${receiver.port}/e${i}`,
          eventTypes: ['email.sent'],
        }),
      );
    }
    const data = (i: number) => ({
      receipt_id: i,
      email: `r${i}@example.com`,
      identifier: `<${i}@bench>`,
      receipted_type: 'Broadcast',
      receipted_id: 1,
      delivered: false,
      opened: false,
      clicked: false,
      bounced: false,
      complaint: false,
      unsubscribed: false,
      opened_at: null,
      clicked_at: null,
      bounced_reason: null,
      complaint_reason: null,
    });

    // Ceiling first: the same bodies the dispatcher will send, signed the same way.
    context.log(`ceiling: bare got, ${EVENTS * ENDPOINTS} POSTs at concurrency ${CONCURRENCY}, half now, half after`);
    const now = new Date();
    const posts = [];
    for (let i = 0; i < EVENTS; i++) {
      for (const e of endpoints) {
        const body = webhookBody({ eventId: i + 1, eventType: 'email.sent', eventCreatedAt: now, eventData: data(i) });
        const headers = signedHeaders({ eventId: i + 1, secret: e.secret, timestamp: Math.floor(now.getTime() / 1000), rawBody: body });
        posts.push({ url: e.url, body, headers: { ...headers } });
      }
    }
    // The machine may be shared, so the ceiling is measured on either side of the pipeline, each
    // on half the bodies, and the higher of the two is the one compared against.
    const half = Math.ceil(posts.length / 2);
    const ceilingBefore = await bareGotLoop(posts.slice(0, half));
    await receiver.dump();
    context.log(`ceiling (before): ${round(ceilingBefore)} POSTs/s`);
    let ceilingAfter = 0;
    // The bare loop's time for every body (the higher rate of the two halves, over all of them).
    const bareMs = () => (posts.length / Math.max(ceilingBefore, ceilingAfter)) * 1000;
    const transactor = container.resolve<Transactor>(Transactor);
    const createdAt = new Map<number, number>();
    /** Through the outbox, as the api writes: one transaction, which wakes the relay once committed. */
    const recordBatch = async (from: number, count: number) => {
      const at = new Date();
      const ids = await transactor.run(async (r) => {
        const out: number[] = [];
        for (let i = from; i < from + count; i++) {
          out.push((await r.outbox.record({ channelId: channel.id, type: 'email.sent', data: data(i), createdAt: at })).id);
        }
        return out;
      });
      for (const id of ids) createdAt.set(id, at.getTime());
    };
    // A burst, as a broadcast's sending writes its email events: one INSERT of many rows per
    // transaction, no NOTIFY (the relay's poll finds them).
    const recordBurst = async () => {
      for (let from = 0; from < EVENTS; from += EVENTS_PER_TRANSACTION) {
        const at = new Date();
        const rows = Array.from({ length: Math.min(EVENTS_PER_TRANSACTION, EVENTS - from) }, (_, k) => ({
          channel_id: channel.id,
          type: 'email.sent',
          data: JSON.stringify(data(from + k)),
          created_at: at,
        }));
        const ids = await db.transaction(async (trx) => (await trx('events').insert(rows).returning('id')) as Array<{ id: number }>);
        for (const { id } of ids) createdAt.set(id, at.getTime());
      }
    };
    /** Commits `events` events at `perSecond`: event i is due at start + i / perSecond. */
    const recordPaced = async (events: number, perSecond: number) => {
      const start = Date.now();
      for (let i = 0; i < events;) {
        const due = Math.min(events, Math.floor(((Date.now() - start) * perSecond) / 1000) + 1);
        if (due > i) {
          await recordBatch(i, due - i);
          i = due;
        } else {
          await new Promise((r) => setTimeout(r, 2));
        }
      }
    };
    /** Runs `record` from now, waits for every delivery of its `events` events, measured from its start. */
    const measure = async (phase: string, events: number, record: () => Promise<void>) => {
      const started = Date.now();
      await record();
      const recorded = Date.now();
      await until(async () => (await receiver.count()) >= events * ENDPOINTS, 600_000);
      const seen = await receiver.dump();
      const last = Math.max(...seen.map((s) => s[2]));
      const latencies = seen.map(([, id, at]) => at - createdAt.get(id)!);
      const result = {
        rate: seen.length / ((last - started) / 1000),
        lastMs: last - started,
        recordMs: recorded - started,
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        missing: events * ENDPOINTS - seen.length,
      };
      context.log(`${phase}: ${round(result.rate)} deliveries/s, last after ${result.lastMs} ms, p50 ${result.p50} ms, p99 ${result.p99} ms`);
      createdAt.clear();
      return result;
    };

    const dispatcher = await startDispatcherProcess(env);
    // Unmeasured: a fresh process runs its first thousands of POSTs through cold code; a
    // long-running dispatcher is warm, and so is the ceiling measured after the pipeline.
    const warmUp = await measure('warm-up burst', EVENTS, recordBurst);
    // Burst: the events of a big broadcast land in the outbox of a running (idle) dispatcher; from
    // the first commit's start to the last arrival.
    const burst = await measure('burst', EVENTS, recordBurst);
    // Steady traffic at a fixed rate, well under capacity: the latency is the pipeline's own
    // (commit → relay → POST), not time spent queued behind a backlog.
    const steadyEvents = Math.round(PACED_RATE * PACED_SECONDS);
    const steady = await measure('steady', steadyEvents, () => recordPaced(steadyEvents, PACED_RATE));
    // Paced near capacity: events arrive at 70% of the rate the pipeline drained the burst at, or
    // of the bare loop's rate if that is lower. With its POSTs on a thread of their own the
    // dispatcher can drain a batched burst faster than the bare loop posts, and events committed
    // one by one cost more per delivery than a batch: 70% of such a burst is not under capacity.
    const pacedEventsPerSecond = (0.7 * Math.min(burst.rate, ceilingBefore)) / ENDPOINTS;
    const paced = await measure('paced', EVENTS, () => recordPaced(EVENTS, pacedEventsPerSecond));
    await dispatcher.stop();
    ceilingAfter = await bareGotLoop(posts.slice(half));
    await receiver.dump();
    context.log(`ceiling (after): ${round(ceilingAfter)} POSTs/s`);
    const ceiling = Math.max(ceilingBefore, ceilingAfter);
    const failed = await db('webhook_deliveries').whereNot({ status: 'succeeded' }).count<{ n: number }[]>({ n: '*' }).first();
    await boss.stop({ graceful: false, close: true, wait: true });
    await receiver.stop();

    const figures: BenchFigure[] = [
      {
        metric: `deliveries/s, burst of ${EVENTS} events × ${ENDPOINTS} endpoints`,
        value: burst.rate,
        unit: '/s',
        ceiling,
        target: '>= 0.8× ceiling',
        met: burst.rate >= 0.8 * ceiling,
      },
      {
        metric: 'burst: last delivery after the first commit starts',
        value: burst.lastMs,
        unit: 'ms',
        target: `<= 1.25× bare (${round(bareMs(), 0)} ms) + 1 s`,
        met: burst.lastMs <= 1.25 * bareMs() + 1000,
      },
      { metric: `event → delivery p50, steady ${PACED_RATE} events/s`, value: steady.p50, unit: 'ms', target: '< 100 ms', met: steady.p50 < 100 },
      { metric: `event → delivery p99, steady ${PACED_RATE} events/s`, value: steady.p99, unit: 'ms', target: '< 500 ms', met: steady.p99 < 500 },
      // Issue 21's paced targets hold here too, at 0.7× capacity, not only at the steady rate.
      { metric: 'event → delivery p50, paced at 0.7× capacity', value: paced.p50, unit: 'ms', target: '< 100 ms', met: paced.p50 < 100 },
      { metric: 'event → delivery p99, paced at 0.7× capacity', value: paced.p99, unit: 'ms', target: '< 500 ms', met: paced.p99 < 500 },
      { metric: 'deliveries/s, paced', value: paced.rate, unit: '/s', ceiling },
    ];
    return {
      title: 'Webhooks: outbox → fan-out → signed POST',
      setup:
        `One dispatcher process (the built apps/dispatcher), one receiver process, ${ENDPOINTS} endpoints on it, ` +
        `${PER_ENDPOINT_CONCURRENCY} POSTs in flight per endpoint (${CONCURRENCY} in all); the cases run in this order, after an unmeasured burst like the first that warms the process. ` +
        `Burst: ${EVENTS} email.sent events ` +
        `committed to the outbox (${EVENTS_PER_TRANSACTION} rows per INSERT and transaction, as sending writes them), ` +
        `rate = deliveries / (last arrival − first commit's start). Steady: ${steadyEvents} events committed through the ` +
        `transactor as they come due, ${PACED_RATE} events/s. Paced: ${EVENTS} more at ${round(pacedEventsPerSecond)} events/s ` +
        `(0.7× capacity: the burst's delivery rate or the bare loop's before the pipeline, the lower, ÷ ${ENDPOINTS} endpoints). Ceiling: a bare got loop posting the same ` +
        `${EVENTS * ENDPOINTS} signed bodies to the same receiver at concurrency ${CONCURRENCY}, in the same run: half before ` +
        `the pipeline, half after, the higher rate kept; its time for all of them is the bare time. Latency: event ` +
        `created_at (taken before its transaction) → arrival at the receiver.`,
      figures,
      notes: [
        `Ceiling before the pipeline ${round(ceilingBefore)} POSTs/s, after ${round(ceilingAfter)} POSTs/s; load average at the end ${os
          .loadavg()
          .map((l) => round(l))
          .join(', ')}.`,
        `Burst: committing its ${EVENTS} events took ${burst.recordMs} ms of the ${burst.lastMs} ms. The warm-up burst before it: ${round(warmUp.rate)} deliveries/s, last after ${warmUp.lastMs} ms.`,
        `Deliveries not succeeded at the end: ${Number(failed?.n ?? 0)}; missing arrivals: burst ${burst.missing}, steady ${steady.missing}, paced ${paced.missing}.`,
        'Every POST of the pipeline is a delivery row inserted by the outbox relay (which reads the attempt back in the same statement and hands it to the worker in memory), then updated with its outcome (2xx outcomes in batches), in PostgreSQL, on the same two cores as the receiver and the got loop; retries and deferrals, none here, are pg-boss jobs.',
      ],
    };
  },
};

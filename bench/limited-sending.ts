import { createBoss } from '@mailcast/adapters';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Knex } from 'knex';
import type { BenchContext, BenchFigure } from './harness';
import { round } from './harness';

const REPO_ROOT = path.resolve(__dirname, '..');
const LIMIT = Number(process.env.LIMITED_BENCH_RATE ?? 500);
const RECIPIENTS = Number(process.env.LIMITED_BENCH_RECIPIENTS ?? 20_000);

/**
 * An SMTP sink, in its own process, that stamps each accepted message on its own clock and, on
 * SIGTERM, prints how many came, the rate from first to last, and the busiest one-second window.
 */
const STAMPING_SINK = `
const { SMTPServer } = require('smtp-server');
const { performance } = require('node:perf_hooks');
const at = [];
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, size: 0,
  onData(stream, _s, cb) { stream.on('data', () => {}); stream.on('end', () => { at.push(performance.now()); cb(); }); },
});
server.listen(0, '127.0.0.1', () => console.log(String(server.server.address().port)));
process.on('SIGTERM', () => {
  at.sort((a, b) => a - b);
  let busiest = 0;
  for (let i = 0, j = 0; i < at.length; i++) { while (at[i] - at[j] >= 1000) j++; busiest = Math.max(busiest, i - j + 1); }
  const rate = at.length > 1 ? (at.length - 1) / ((at[at.length - 1] - at[0]) / 1000) : 0;
  console.log(JSON.stringify({ count: at.length, rate, busiest }));
  process.exit(0);
});
`;

function lines(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  let buffer = '';
  let err = '';
  const waiting: Array<() => void> = [];
  child.stdout!.on('data', (c: Buffer) => {
    buffer += c.toString();
    for (let nl = buffer.indexOf('\n'); nl !== -1; nl = buffer.indexOf('\n')) {
      out.push(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      waiting.splice(0).forEach((wake) => wake());
    }
  });
  child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = async (n: number): Promise<string> => {
    while (out.length <= n) {
      if (child.exitCode !== null) throw new Error(`process exited (${child.exitCode}) before line ${n + 1}: ${err.slice(-2000)}`);
      await new Promise<void>((resolve) => {
        waiting.push(resolve);
        void exited.then(() => resolve());
      });
    }
    return out[n]!;
  };
  return { child, line, exited };
}

/**
 * Sending under a per-second limit: RECIPIENTS messages through a dispatcher to a server limited to
 * LIMIT per second, judged at the sink (docs/sending-limits.md).
 */
export async function limitedSending(context: BenchContext, url: string, db: Knex): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const sink = lines(['-e', STAMPING_SINK], process.env);
  const port = Number(await sink.line(0));
  const [channel] = await db('channels').insert({ name: 'bench-limited', from_email: 'news@bench.test' }).returning('id');
  await db('email_servers').insert({ channel_id: channel.id, host: '127.0.0.1', port, tls: 'none', max_per_second: LIMIT });
  await db.raw(`INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'l' || g || '@bench.test', 'L' || g FROM generate_series(1, ?) g`, [
    channel.id,
    RECIPIENTS,
  ]);
  const [broadcast] = await db('broadcasts')
    .insert({
      channel_id: channel.id,
      name: 'bench-limited',
      subject: 'Hello {{ subscriber.first_name }}',
      body: 'News for {{ subscriber.first_name }}',
      track_opens: false,
      track_clicks: false,
      status: 'scheduled',
    })
    .returning('id');
  const boss = createBoss(url, 'api');
  await boss.start();
  const dispatcher = lines(['apps/dispatcher/dist/main.js'], {
    ...process.env,
    DATABASE_URL: url,
    PUBLIC_URL: 'http://bench.test',
    LOG_LEVEL: 'info',
    SMTP_ALLOW_PRIVATE: 'true',
  });
  await dispatcher.line(0);
  context.log(`limited: ${RECIPIENTS} recipients through a server limited to ${LIMIT}/s`);
  await boss.send('broadcasts.send', { broadcastId: broadcast.id }, { retryLimit: 0 });
  let status = 'scheduled';
  while (!['sent', 'partial_failure', 'failed'].includes(status)) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    status = (await db('broadcasts').where({ id: broadcast.id }).first('status')).status;
  }
  dispatcher.child.kill('SIGTERM');
  await dispatcher.exited;
  await boss.stop({ graceful: false, close: true, wait: true });
  sink.child.kill('SIGTERM');
  const stats = JSON.parse(await sink.line(1)) as { count: number; rate: number; busiest: number };
  await sink.exited;
  context.log(`limited: ${round(stats.rate)} msg/s at the sink, busiest second ${stats.busiest}, status ${status}`);
  return {
    figures: [
      {
        metric: `sending limited to ${LIMIT}/s (${RECIPIENTS} recipients)`,
        value: stats.rate,
        unit: 'msg/s',
        target: `${LIMIT * 0.96}-${LIMIT} msg/s`,
        met: stats.rate >= LIMIT * 0.96 && stats.rate <= LIMIT,
      },
      { metric: 'busiest one-second window at the limited sink', value: stats.busiest, unit: 'msgs', target: `<= ${LIMIT}`, met: stats.busiest <= LIMIT },
    ],
    notes: [
      `Limited sending: ${stats.count} messages (status ${status}) from one spawned dispatcher to a sink in its own process whose clock stamps each acceptance; the rate runs from the first acceptance to the last, and every sliding one-second window is checked (LIMITED_BENCH_RATE, LIMITED_BENCH_RECIPIENTS).`,
    ],
  };
}

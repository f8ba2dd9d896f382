import {
  createBoss,
  createLogger,
  DEFAULT_CONNECTIONS_PER_SERVER,
  loadConfig,
  secretBoxFor,
  composeMessage,
  CryptoRandom,
  Htmlparser2Reader,
  LiquidTemplates,
  nodemailerMessage,
  PgSegmentRepository,
  PgTransactor,
  pgRepositories,
  SystemClock,
} from '@mailcast/adapters';
import { BroadcastRenderer, defaultSendingOptions, InProcessBroadcastRendering, QueueRecipients } from '@mailcast/core';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { smtpThreads } from '../apps/dispatcher/src/config';
import type { Bench, BenchSection } from './harness';
import { limitedSending } from './limited-sending';
import { rawSmtpLoop } from './raw-smtp';
import { DISCARDING_SINK, memoryKb, nodeProcess as node, sinkAccepted, threadCpuSeconds, threadShares } from './processes';
import { benchSubscribers, cpuSeconds, parentPid, round, treeCpuSeconds } from './harness';

const MESSAGES = Number(process.env.SENDING_BENCH_MESSAGES ?? 100_000);
const MATERIALIZE = benchSubscribers(1_000_000, 'SENDING_BENCH_RECIPIENTS');
const PUBLIC_URL = 'http://bench.test';
// The dispatcher's own settings, read from the code so both sides follow them when they change.
const MAX_CONNECTIONS = Number(process.env.MAILCAST_SMTP_CONNECTIONS || DEFAULT_CONNECTIONS_PER_SERVER);
const CONCURRENCY = defaultSendingOptions(PUBLIC_URL, MAX_CONNECTIONS).concurrency;
// SENDING_BENCH_WEBHOOKS: event types (e.g. "email.sent,email.delivered") a webhook endpoint of
// the sending channel subscribes to, so the dispatcher posts webhooks while it sends; unset, none.
const WEBHOOK_TYPES = (process.env.SENDING_BENCH_WEBHOOKS ?? '').split(',').filter(Boolean);
/** Sessions of the raw SMTP loop, the ceiling issue 41 names (10). */
const RAW_SESSIONS = Number(process.env.SENDING_BENCH_RAW_SESSIONS ?? 10);

/** A webhook receiver in the benchmark's process, answering 200 at once and counting POSTs. */
async function webhookReceiver(): Promise<{ url: string; received(): number; close(): Promise<void> }> {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * The ceiling: nodemailer's pooled transport in a loop, same pool size and concurrency, sending
 * the pipeline's own messages (read from MESSAGES_FILE line by line as they are sent). RAW=1 composes
 * each message to a buffer and hands it over raw, as the dispatcher's mailer does; otherwise
 * plain sendMail.
 */
const BARE = `
const nodemailer = require('nodemailer');
const MailComposer = require('nodemailer/lib/mail-composer');
const readline = require('node:readline');
const port = Number(process.env.PORT), concurrency = Number(process.env.CONCURRENCY);
const t = nodemailer.createTransport({ pool: true, host: '127.0.0.1', port, secure: false,
  maxConnections: Number(process.env.MAX_CONNECTIONS), maxMessages: Infinity });
const send = process.env.RAW === '1'
  ? async (m) => t.sendMail({ envelope: { from: m.from, to: [m.to] }, raw: await new MailComposer(m).compile().build() })
  : (m) => t.sendMail(m);
// Messages are read as they are sent, as a sender reading its queue would: holding them all
// would make the sender's peak memory the size of its input.
const lines = readline.createInterface({ input: require('fs').createReadStream(process.env.MESSAGES_FILE) })[Symbol.asyncIterator]();
let n = 0;
async function worker() {
  for (let line = await lines.next(); !line.done; line = await lines.next()) {
    n++;
    await send(JSON.parse(line.value));
  }
}
const start = process.hrtime.bigint();
Promise.all(Array.from({ length: concurrency }, worker)).then(() => {
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  t.close();
  const peakKb = Number(/^VmHWM:\\s+(\\d+) kB/m.exec(require('fs').readFileSync('/proc/self/status', 'utf8'))[1]);
  console.log(JSON.stringify({ ms, peakKb, n }));
});
`;

export const sendingBench: Bench = {
  name: 'sending',
  async run(context): Promise<BenchSection> {
    const { url, db } = await context.database();
    const notes: string[] = [];

    // --- 1. Throughput against a local SMTP sink --------------------------------------------
    const sink = node(['-e', DISCARDING_SINK]);
    const { smtp: port, control } = JSON.parse(await sink.firstLine) as { smtp: number; control: number };
    context.log(`SMTP sink on ${port}`);

    const [channel] = await db('channels').insert({ name: 'bench', from_email: 'news@bench.test' }).returning('id');
    await db('email_servers').insert({ channel_id: channel.id, host: '127.0.0.1', port, tls: 'none' });
    await db.raw(
      `INSERT INTO subscribers (channel_id, email, first_name, last_name, custom_data)
       SELECT ?, 'u' || g || '@bench.test', 'First' || g, 'Last' || g, jsonb_build_object('n', g) FROM generate_series(1, ?) g`,
      [channel.id, MESSAGES],
    );
    const [broadcast] = await db('broadcasts')
      .insert({
        channel_id: channel.id,
        name: 'bench',
        subject: 'Hello {{ subscriber.first_name }}',
        body: 'Hello {{ subscriber.first_name }}, here is the news. https://example.com/a',
        html_body: '<html><body><p>Hello {{ subscriber.first_name }}, here is the news.</p><a href="https://example.com/a">Read</a></body></html>',
        track_opens: true,
        track_clicks: true,
        status: 'scheduled',
      })
      .returning('id');
    const boss = createBoss(url, 'api');
    await boss.start();
    const receiver = WEBHOOK_TYPES.length > 0 ? await webhookReceiver() : null;
    if (receiver !== null) {
      await db('webhook_endpoints').insert({
        channel_id: channel.id,
        url: receiver.url,
        event_types: WEBHOOK_TYPES,
        secret: `whsec_${randomBytes(32).toString('base64')}`,
      });
    }

    // The bare loop sends the pipeline's messages: rendered by the same renderer, with the links
    // and tracking secret the dispatcher will find saved, so the bytes match but for the ids.
    const messagesDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-bench-messages-'));
    const messagesFile = path.join(messagesDir, 'messages.jsonl');
    // The key the spawned dispatcher finds too (same environment and data directory).
    const secrets = secretBoxFor(loadConfig(process.env), createLogger({ level: 'warn', production: false, service: 'bench' }));
    const repositories = pgRepositories(db, boss, secrets);
    const stored = await repositories.recipients.findBroadcast(broadcast.id);
    const rendering = new InProcessBroadcastRendering(new LiquidTemplates(), new Htmlparser2Reader());
    const { renderer } = await BroadcastRenderer.prepare(stored!, repositories.recipients, rendering, new CryptoRandom(), PUBLIC_URL);
    const suffix = `${randomBytes(6).toString('hex')}@${new URL(PUBLIC_URL).hostname}`;
    const out = createWriteStream(messagesFile);
    // The raw loop's one message: the first recipient's, composed as the mailer composes it.
    let rawMessage: Buffer | null = null;
    const subscribers = await db('subscribers')
      .where({ channel_id: channel.id })
      .orderBy('id')
      .select('id', 'email', 'first_name', 'last_name', 'tags', 'custom_data');
    for (const s of subscribers) {
      const subscriber = { id: s.id, email: s.email, firstName: s.first_name, lastName: s.last_name, tags: s.tags, customData: s.custom_data };
      const email = await renderer.render({
        recipientId: s.id,
        subscriber: { ...subscriber, isActive: true, source: 'api', subscribedAt: new Date(), unsubscribedAt: null },
      });
      const message = nodemailerMessage({
        messageId: `<${broadcast.id}.${s.id}.${suffix}>`,
        from: { email: 'news@bench.test', name: null },
        to: s.email,
        replyTo: null,
        ...email,
      });
      rawMessage ??= await composeMessage({
        messageId: `<${broadcast.id}.${s.id}.${suffix}>`,
        from: { email: 'news@bench.test', name: null },
        to: s.email,
        replyTo: null,
        ...email,
      });
      if (!out.write(`${JSON.stringify(message)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise<void>((resolve) => out.end(() => resolve()));

    const bareRun = async (raw: boolean) => {
      context.log(`bare nodemailer loop (${raw ? 'raw, as the mailer sends' : 'sendMail'}): ${MESSAGES} messages`);
      const bare = node(['-e', BARE], {
        ...process.env,
        MESSAGES_FILE: messagesFile,
        RAW: raw ? '1' : '0',
        PORT: String(port),
        CONCURRENCY: String(CONCURRENCY),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
      });
      const { ms, peakKb, n } = JSON.parse(await bare.firstLine) as { ms: number; peakKb: number; n: number };
      await bare.exited;
      if (n !== MESSAGES) throw new Error(`the bare loop sent ${n} of ${MESSAGES} messages`);
      const rate = MESSAGES / (ms / 1000);
      context.log(`bare: ${round(rate)} msg/s, peak RSS ${round(peakKb / 1024)} MB`);
      return { rate, peakMb: peakKb / 1024 };
    };
    const rawFile = path.join(messagesDir, 'message.eml');
    await writeFile(rawFile, rawMessage!);
    const rawSmtpRun = () => rawSmtpLoop(context, { port, control, sinkPid: sink.child.pid!, sessions: RAW_SESSIONS, messages: MESSAGES, file: rawFile });
    // The two bare loops bracket the pipeline in time, so a drift in a shared machine's speed
    // shows in the ceiling instead of only on one side.
    const sendMailRun = await bareRun(false);
    const rawSmtpBefore = await rawSmtpRun();

    // SENDING_BENCH_DISPATCHER_ARGS: extra node flags for the dispatcher, e.g. --cpu-prof.
    const flags = (process.env.SENDING_BENCH_DISPATCHER_ARGS ?? '').split(' ').filter(Boolean);
    // Read before the dispatcher starts: its sweep at start may pick the scheduled broadcast up
    // before the job below is enqueued.
    const sinkBeforePipeline = await sinkAccepted(control);
    const dispatcher = node([...flags, 'apps/dispatcher/dist/main.js'], {
      ...process.env,
      DATABASE_URL: url,
      PUBLIC_URL,
      LOG_LEVEL: 'info',
      SMTP_ALLOW_PRIVATE: 'true', // the sink is on loopback
      ...(receiver === null ? {} : { WEBHOOK_ALLOW_PRIVATE: 'true' }),
    });
    await dispatcher.firstLine; // its first log line: started
    context.log(`pipeline: ${MESSAGES} recipients through a spawned dispatcher`);
    // Where the pipeline's CPU goes, by process (bench/NOTES.md, "Sending near the SMTP
    // ceiling"): the dispatcher, the sink, PostgreSQL (postmaster and backends), and the
    // statements committed per message.
    const postmaster = parentPid(Number((await db.raw('SELECT pg_backend_pid() AS pid')).rows[0].pid));
    const commits = async () => Number((await db.raw('SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()')).rows[0].xact_commit);
    const cpuBefore = {
      dispatcher: cpuSeconds(dispatcher.child.pid!),
      sink: cpuSeconds(sink.child.pid!),
      pg: treeCpuSeconds(postmaster),
      commits: await commits(),
    };
    const threadsBefore = threadCpuSeconds(dispatcher.child.pid!);
    const start = process.hrtime.bigint();
    await boss.send('broadcasts.send', { broadcastId: broadcast.id }, { retryLimit: 0 });
    let status = 'scheduled';
    let lastLog = Date.now();
    while (!['sent', 'partial_failure', 'failed'].includes(status)) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const row = await db('broadcasts').where({ id: broadcast.id }).first('status', 'broadcast_recipients_count');
      status = row.status;
      if (Date.now() - lastLog > 10_000) {
        context.log(`  ${row.broadcast_recipients_count} sent, RSS ${round(memoryKb(dispatcher.child.pid!, 'VmRSS') / 1024)} MB`);
        lastLog = Date.now();
      }
    }
    const pipelineMs = Number(process.hrtime.bigint() - start) / 1e6;
    const sinkFromPipeline = (await sinkAccepted(control)) - sinkBeforePipeline;
    const perMessage = (seconds: number) => round((seconds * 1e6) / MESSAGES);
    const pipelineCpu = {
      dispatcher: perMessage(cpuSeconds(dispatcher.child.pid!) - cpuBefore.dispatcher),
      sink: perMessage(cpuSeconds(sink.child.pid!) - cpuBefore.sink),
      pg: perMessage(treeCpuSeconds(postmaster) - cpuBefore.pg),
      commits: round(((await commits()) - cpuBefore.commits) / MESSAGES, 3),
      threads: threadShares(threadsBefore, threadCpuSeconds(dispatcher.child.pid!), dispatcher.child.pid!, MESSAGES),
    };
    context.log(
      `pipeline CPU per message: dispatcher ${pipelineCpu.dispatcher} us, sink ${pipelineCpu.sink} us, PostgreSQL ${pipelineCpu.pg} us, ${pipelineCpu.commits} commits; by thread: ${pipelineCpu.threads}`,
    );
    const peakMb = memoryKb(dispatcher.child.pid!, 'VmHWM') / 1024;
    const counts = (await db.raw('SELECT status, count(*)::int AS n FROM broadcast_recipients WHERE broadcast_id = ? GROUP BY status', [broadcast.id]))
      .rows as Array<{ status: string; n: number }>;
    const webhooksBySent = receiver?.received() ?? 0;
    dispatcher.child.kill('SIGTERM');
    await dispatcher.exited;
    await receiver?.close();
    if (receiver !== null) {
      // The deliveries still pending would otherwise be posted (and fail) by the next section's
      // dispatcher, slowing the limited send.
      await db('webhook_endpoints').where({ channel_id: channel.id }).del();
      notes.push(
        `Webhooks during the send (SENDING_BENCH_WEBHOOKS): one endpoint of the channel subscribed to ${WEBHOOK_TYPES.join(', ')}, a receiver in the benchmark's process answering 200 at once; it had taken ${webhooksBySent} POSTs when the broadcast was sent. The dispatcher's peak and throughput above include its webhook thread and relay; the endpoint is deleted before the next section.`,
      );
    }
    await boss.stop({ graceful: false, close: true, wait: true });
    const rawRun = await bareRun(true);
    const rawSmtpAfter = await rawSmtpRun();
    const rawSmtpRate = Math.max(rawSmtpBefore.rate, rawSmtpAfter.rate);
    const bareRates = { sendMail: sendMailRun.rate, raw: rawRun.rate };
    const bareRate = Math.max(bareRates.sendMail, bareRates.raw);
    // The bare sender's peak: the plain loop's, the lighter of the two (no composed buffers held).
    const barePeakMb = Math.min(sendMailRun.peakMb, rawRun.peakMb);
    await rm(messagesDir, { recursive: true, force: true });
    sink.child.kill('SIGTERM');
    await sink.exited;
    const pipelineRate = MESSAGES / (pipelineMs / 1000);
    context.log(`pipeline: ${round(pipelineRate)} msg/s, status ${status}, peak RSS ${round(peakMb)} MB`);
    notes.push(
      `Pipeline time runs from enqueueing the job to the final status: queueing ${MESSAGES} recipients, rendering Liquid per recipient, click and open tracking, and recording every outcome (recipient row, email events, outbox events) included. Outcomes: ${counts
        .map((c) => `${c.status} ${c.n}`)
        .join(', ')}.`,
      `Ceiling: the faster of two bare loops over the same ${MESSAGES} messages, one run before the pipeline and one after, rendered beforehand by the pipeline's renderer (same links, tracking secret and sizes): plain sendMail ${round(bareRates.sendMail)} msg/s, composed and sent raw as the mailer does ${round(bareRates.raw)} msg/s.`,
      `Raw SMTP ceiling (issue 41): one message of ${rawMessage!.length} bytes (the first recipient's, composed as the mailer composes it), written ${MESSAGES} times over ${RAW_SESSIONS} plain SMTP sessions on raw sockets by one process (bench/raw-smtp-loop.mjs${rawSmtpBefore.pipelining ? ", pipelined: a message's end of data and the next envelope in one write" : ', the sink offered no PIPELINING'}), counted at the sink; one run before the pipeline and one after, the faster kept: ${round(rawSmtpBefore.rate)} and ${round(rawSmtpAfter.rate)} msg/s. The pipeline ran at ${round(pipelineRate / rawSmtpRate, 2)}x of it. The sink accepted ${sinkFromPipeline} messages from the pipeline.`,
      `CPU per message (from /proc, so a loaded machine's waiting is not counted): the pipeline's dispatcher ${pipelineCpu.dispatcher} us (by thread: ${pipelineCpu.threads}), the sink ${pipelineCpu.sink} us, PostgreSQL (postmaster and backends, all clients) ${pipelineCpu.pg} us, ${pipelineCpu.commits} transactions committed per message; the raw loop ${round(rawSmtpBefore.cpuUs)} and ${round(rawSmtpAfter.cpuUs)} us, the sink during it ${round(rawSmtpBefore.sinkUs)} and ${round(rawSmtpAfter.sinkUs)} us.`,
      `Both sides: one SMTP sink process (smtp-server, accepting and discarding), ${MAX_CONNECTIONS} pooled connections, ${CONCURRENCY} messages in flight, each in a process of its own. The bare loop composes and sends on its one thread; the dispatcher hands composing and sending to ${smtpThreads()} SMTP thread(s) (MAILCAST_SMTP_THREADS ${process.env.MAILCAST_SMTP_THREADS ? 'as set' : 'by default: cores - 1, at most 4'}) and keeps claims, rendering and commits on its main thread.`,
    );

    // --- 2. Under a per-second limit ---------------------------------------------------------
    const limited = await limitedSending(context, url, db);
    notes.push(...limited.notes);

    // --- 3. Materialising 1,000,000 recipients ------------------------------------------------
    context.log(`seeding ${MATERIALIZE} subscribers`);
    const [big] = await db('channels').insert({ name: 'bench-1m' }).returning('id');
    await db.raw(
      `INSERT INTO subscribers (channel_id, email, first_name, is_active)
       SELECT ?, 'm' || g || '@bench.test', 'M' || g, g % 50 <> 0 FROM generate_series(1, ?) g`,
      [big.id, Math.round(MATERIALIZE / 0.98)],
    );
    // The list at rest, as before a real send: VACUUM sets the visibility map (as autovacuum
    // would, instead of an autovacuum worker joining mid-measurement) and CHECKPOINT writes the
    // seed's dirty pages, so neither side pays for the seeding. Seen without them: 10.7 and
    // 16.0 s in two runs of seven, when the seed's checkpoint fell inside the measurement.
    await db.raw('VACUUM ANALYZE subscribers');
    await db.raw('CHECKPOINT');
    const [target] = await db('broadcasts')
      .insert({ channel_id: big.id, name: 'bench-1m', subject: 's', body: 'b', track_opens: false, track_clicks: false, status: 'scheduled' })
      .returning('id');
    const queueBoss = createBoss(url, 'api');
    await queueBoss.start();
    const queue = new QueueRecipients(
      pgRepositories(db, queueBoss, secrets),
      new PgTransactor(db, queueBoss, secrets),
      new SystemClock(),
      { ...defaultSendingOptions(PUBLIC_URL, MAX_CONNECTIONS), helperJobs: 0 },
      new PgSegmentRepository(db),
    );
    context.log('materialising through QueueRecipients');
    const qStart = process.hrtime.bigint();
    const queued = await queue.execute({ broadcastId: target.id });
    const queueMs = Number(process.hrtime.bigint() - qStart) / 1e6;
    await queueBoss.stop({ graceful: false, close: true, wait: true });

    // Ceiling: the same rows in one bare INSERT … SELECT, no batches, no status moves.
    const [bare2] = await db('broadcasts')
      .insert({ channel_id: big.id, name: 'bare', subject: 's', body: 'b', track_opens: false, track_clicks: false })
      .returning('id');
    await db.raw('CHECKPOINT');
    const bStart = process.hrtime.bigint();
    await db.raw(
      `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id)
       SELECT ?, s.id, '<' || s.id || '@bench.test>' FROM subscribers s
        WHERE s.channel_id = ? AND s.is_active AND (NOT s.requires_confirmation OR s.confirmed_at IS NOT NULL) AND s.redacted_at IS NULL`,
      [bare2.id, big.id],
    );
    const bareQueueMs = Number(process.hrtime.bigint() - bStart) / 1e6;
    context.log(`materialised ${queued?.totalRecipients} in ${round(queueMs)} ms (bare ${round(bareQueueMs)} ms)`);
    const materialiseLimitS = MATERIALIZE > 1_000_000 ? 60 : 10;

    return {
      title: 'Sending (issue 4: broadcasts)',
      setup: `${MESSAGES} personalised, tracked messages through a spawned dispatcher to a local SMTP sink vs a bare nodemailer pooled loop in the same run; then ${queued?.totalRecipients} recipients materialised (of ${Math.round(MATERIALIZE / 0.98)} subscribers, 2% inactive). Sizes: SENDING_BENCH_MESSAGES, SENDING_BENCH_RECIPIENTS (else --subscribers N).`,
      figures: [
        {
          metric: 'pipeline throughput',
          value: pipelineRate,
          unit: 'msg/s',
          ceiling: bareRate,
          target: '>= 0.8x bare nodemailer',
          met: pipelineRate >= 0.8 * bareRate,
        },
        {
          metric: 'pipeline throughput against a raw SMTP loop',
          value: pipelineRate,
          unit: 'msg/s',
          ceiling: rawSmtpRate,
          target: '>= 0.5x the raw SMTP loop (issue 41)',
          met: pipelineRate >= 0.5 * rawSmtpRate,
        },
        {
          metric: 'dispatcher peak memory (VmHWM)',
          value: peakMb,
          unit: 'MB',
          ceiling: barePeakMb,
          target: '<= 1.3x the bare sender (issue 21)',
          met: peakMb <= 1.3 * barePeakMb,
        },
        ...limited.figures,
        {
          metric: `materialise ${queued?.totalRecipients ?? 0} recipients`,
          value: queueMs / 1000,
          unit: 's',
          ceiling: bareQueueMs / 1000,
          // Issue 41 at ten million: under 60 s and within 1.5x the bare INSERT … SELECT; up to a million, issue 4's 10 s.
          target: `< ${materialiseLimitS} s and <= 1.5x bare INSERT … SELECT`,
          met: queueMs < materialiseLimitS * 1000 && queueMs <= 1.5 * bareQueueMs,
        },
      ],
      notes,
    };
  },
};

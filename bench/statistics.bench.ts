/**
 * Issue "Broadcast statistics": the three statistics endpoints on one broadcast with 1,000,000
 * recipients and 3,000,000 recipient email events, timed through the real api process over
 * loopback HTTP; and what keeping the aggregates costs record().
 *
 * How the data is made, honestly: the raw events are seeded set-based in SQL (the bulk path
 * record() has no equivalent for), then rebuildEmailEventAggregates() builds every aggregate
 * from them, the function the integration test proves leaves exactly what record() leaves.
 */
import { PgApiTokenRepository, PgBroadcastStatisticsReader, PgEmailEvents, rebuildEmailEventAggregates, type Database } from '@mailcast/adapters';
import type { EmailEventRecord } from '@mailcast/core';
import { apiTokenPrefix, apiTokenSuffix, formatApiToken, hashApiToken } from '@mailcast/domain';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { benchSubscribers, freePort, percentile, round, timeEach, type Bench, type BenchFigure } from './harness';
import { trackingCpu } from './tracking-cpu';

// STATISTICS_BENCH_RECIPIENTS (else `--subscribers N`, issue 41's ten million) sizes the run; a smaller one is a smoke test.
const RECIPIENTS = benchSubscribers(1_000_000, 'STATISTICS_BENCH_RECIPIENTS');
const EVENTS = 3 * RECIPIENTS;
const LINKS = 20;
const REQUESTS = 300;
const TARGET_P99_MS = 100;
const T0 = '2026-11-20T08:00:00Z';

export async function seed(db: Database, log: (m: string) => void): Promise<{ channelId: number; broadcastId: number }> {
  const [channel] = await db('channels').insert({ name: 'bench' }).returning('id');
  const channelId = (channel as { id: number }).id;
  const [broadcast] = await db('broadcasts')
    .insert({
      channel_id: channelId,
      name: 'Million',
      subject: 'Hello',
      status: 'sent',
      track_opens: true,
      track_clicks: true,
      total_recipients: RECIPIENTS,
      broadcast_recipients_count: RECIPIENTS,
      begin_send_at: new Date(T0),
      sent_at: new Date(Date.parse(T0) + 2 * 3_600_000),
    })
    .returning('id');
  const broadcastId = (broadcast as { id: number }).id;
  const started = Date.now();
  // The subscriber search indexes (trigram, tags) play no part in statistics and would only
  // slow the seed down.
  await db.raw('DROP INDEX subscribers_email_trgm, subscribers_tags');
  await db.transaction(async (trx) => {
    // The generated rows are consistent by construction: skip the per-row foreign-key triggers
    // (15 million lookups) while seeding. Needs a superuser, which the embedded cluster is.
    await trx.raw('SET LOCAL session_replication_role = replica');
    await trx.raw(`SELECT setseed(0.42)`);
    await trx.raw(`INSERT INTO subscribers (channel_id, email) SELECT ?, 'r' || g || '@bench.example' FROM generate_series(1, ?) g`, [channelId, RECIPIENTS]);
    // n: the recipient's rank. 2 % hard bounces (n % 50 = 0), 1 % failures (n % 100 = 1).
    await trx.raw(
      `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, status, message_id, sent_at)
       SELECT ?, s.id, CASE WHEN s.n % 50 = 0 THEN 'bounced' WHEN s.n % 100 = 1 THEN 'failed' ELSE 'sent' END,
              '<' || s.id || '@bench>', TIMESTAMPTZ '${T0}' + s.n * interval '2 hours' / ${RECIPIENTS}
         FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM subscribers WHERE channel_id = ?) s`,
      [broadcastId, channelId],
    );
    await trx.raw(
      `INSERT INTO broadcast_links (broadcast_id, identifier, url)
       SELECT ?, 'link' || g, 'https://example.com/page/' || g FROM generate_series(1, ?) g`,
      [broadcastId, LINKS],
    );
    await trx.raw(
      `CREATE TEMP TABLE r ON COMMIT DROP AS
       SELECT row_number() OVER (ORDER BY id) AS n, id, subscriber_id, status, sent_at FROM broadcast_recipients WHERE broadcast_id = ?`,
      [broadcastId],
    );
    await trx.raw(`CREATE TEMP TABLE l ON COMMIT DROP AS SELECT row_number() OVER (ORDER BY id) - 1 AS k, id FROM broadcast_links WHERE broadcast_id = ?`, [
      broadcastId,
    ]);
    // Engagement comes in over 48 hours, most of it early (delay = 46 h × u³).
    const insert = (select: string) =>
      trx.raw(
        `INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at)
         SELECT ${channelId}, ${broadcastId}, r.id, r.subscriber_id, ev.link_id, ev.type, ev.at ${select}`,
      );
    const later = `r.sent_at + interval '46 hours' * power(random(), 3)`;
    // Sending: processed for all, then delivered / bounced / failed a few seconds later.
    await insert(`FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint, 'processed', r.sent_at)) ev(link_id, type, at)`);
    await insert(
      `FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint,
         CASE r.status WHEN 'sent' THEN 'delivered' WHEN 'bounced' THEN 'bounced' ELSE 'failed' END,
         r.sent_at + interval '2 seconds')) ev(link_id, type, at)`,
    );
    // Opens: 40 % of the delivered open, 30 % twice. Clicks: 20 % click one of the 20 links,
    // 9 % once more on another. Complaints 0.1 %, unsubscribes 0.9 %.
    await insert(`FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint, 'opened', ${later})) ev(link_id, type, at) WHERE r.status = 'sent' AND r.n % 10 < 4`);
    await insert(`FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint, 'opened', ${later})) ev(link_id, type, at) WHERE r.status = 'sent' AND r.n % 10 < 3`);
    await insert(
      `FROM r JOIN l ON l.k = (r.n / 10 * 7) % ${LINKS} CROSS JOIN LATERAL (VALUES (l.id, 'clicked', ${later})) ev(link_id, type, at)
        WHERE r.status = 'sent' AND r.n % 10 < 2`,
    );
    await insert(
      `FROM r JOIN l ON l.k = (r.n / 100 * 3 + 1) % ${LINKS} CROSS JOIN LATERAL (VALUES (l.id, 'clicked', ${later})) ev(link_id, type, at)
        WHERE r.status = 'sent' AND r.n % 100 < 9`,
    );
    await insert(`FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint, 'complained', ${later})) ev(link_id, type, at) WHERE r.status = 'sent' AND r.n % 1000 = 5`);
    await insert(
      `FROM r CROSS JOIN LATERAL (VALUES (NULL::bigint, 'unsubscribed', ${later})) ev(link_id, type, at) WHERE r.status = 'sent' AND r.n % 1000 BETWEEN 6 AND 14`,
    );
    // Top up to exactly EVENTS with repeat opens.
    const { rows } = await trx.raw<{ rows: { n: number }[] }>(`SELECT count(*)::bigint AS n FROM email_events WHERE broadcast_id = ?`, [broadcastId]);
    const missing = EVENTS - rows[0]!.n;
    if (missing > 0) {
      await insert(
        `FROM (SELECT * FROM r WHERE r.status = 'sent' AND r.n % 10 >= 4 ORDER BY r.n LIMIT ${missing}) r
         CROSS JOIN LATERAL (VALUES (NULL::bigint, 'opened', ${later})) ev(link_id, type, at)`,
      );
    }
  });
  log(`raw rows seeded in ${round((Date.now() - started) / 1000, 1)} s`);
  const rebuilt = Date.now();
  await rebuildEmailEventAggregates(db, broadcastId);
  log(`aggregates rebuilt in ${round((Date.now() - rebuilt) / 1000, 1)} s`);
  await db.raw('VACUUM ANALYZE');
  return { channelId, broadcastId };
}

/** The built api as in production; nothing it reads here is encrypted, so any key will do. */
export function startApi(databaseUrl: string, port: number, env: Record<string, string> = {}): Promise<ChildProcess> {
  const secretKey = process.env.MAILCAST_SECRET_KEY ?? randomBytes(32).toString('base64');
  const child = spawn(process.execPath, [path.join(__dirname, '..', 'apps', 'api', 'dist', 'main.js')], {
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      MAILCAST_SECRET_KEY: secretKey,
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    // Generous: on a loaded machine the api has taken over 30 s to answer /healthz.
    const deadline = Date.now() + 120_000;
    const poll = () => {
      http
        .get({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
          res.resume();
          resolve(child);
        })
        .on('error', () => (Date.now() > deadline ? reject(new Error('api did not start')) : setTimeout(poll, 200)));
    };
    child.once('exit', (code) => reject(new Error(`api exited with ${code}`)));
    poll();
  });
}

function getter(port: number, token: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return (urlPath: string): Promise<unknown> =>
    new Promise((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: urlPath, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) reject(new Error(`${urlPath}: ${res.statusCode} ${body}`));
            else resolve(JSON.parse(body));
          });
        })
        .on('error', reject);
    });
}

/** record() throughput: `workers` concurrent callers for `ms`, each recording opens of random recipients. */
async function throughput(
  record: (e: EmailEventRecord) => Promise<unknown>,
  base: Omit<EmailEventRecord, 'recipientId' | 'subscriberId' | 'kind' | 'occurredAt'>,
  recipients: ReadonlyArray<{ id: number; subscriber_id: number }>,
  workers: number,
  ms: number,
): Promise<number> {
  let count = 0;
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (Date.now() < until) {
        const r = recipients[Math.floor(Math.random() * recipients.length)]!;
        await record({ ...base, recipientId: r.id, subscriberId: r.subscriber_id, kind: 'opened', occurredAt: new Date() });
        count++;
      }
    }),
  );
  return count / (ms / 1000);
}

export const statisticsBench: Bench = {
  name: 'statistics',
  async run(context) {
    const { url, db } = await context.database();
    context.log(`seeding ${RECIPIENTS} recipients and ${EVENTS} events`);
    const { channelId, broadcastId } = await seed(db, context.log);
    const [{ n: events }] = (await db.raw(`SELECT count(*)::bigint AS n FROM email_events WHERE broadcast_id = ?`, [broadcastId])).rows;

    const token = formatApiToken(randomBytes(32));
    await new PgApiTokenRepository(db).create({
      channelId,
      type: 'channel',
      label: null,
      hash: hashApiToken(token),
      prefix: apiTokenPrefix(token),
      suffix: apiTokenSuffix(token),
      permissions: ['broadcasts_read'],
    });
    const port = await freePort();
    const api = await startApi(url, port);
    const figures: BenchFigure[] = [];
    const notes: string[] = [];
    try {
      const get = getter(port, token);
      const base = `/api/v1/broadcasts/${broadcastId}`;
      const ceiling = await timeEach(REQUESTS, () => get(base), 20);
      const summary = (await get(`${base}/statistics`)) as Record<string, unknown>;
      notes.push(`Summary answered: ${JSON.stringify({ delivery: summary.delivery, engagement: summary.engagement, issues: summary.issues })}`);
      const endpoints: Array<[string, string]> = [
        ['statistics (summary)', `${base}/statistics`],
        ['timeline 24h (default, 1h from 60-minute rollups)', `${base}/statistics/timeline`],
        ['timeline 60m (1m from 1-minute rollups)', `${base}/statistics/timeline?timeframe=60m`],
        ['timeline 18h (30m from 5-minute rollups, the most buckets read)', `${base}/statistics/timeline?timeframe=18h`],
        ['timeline 48h (2h from 60-minute rollups)', `${base}/statistics/timeline?timeframe=48h`],
        ['timeline 14d (12h from 60-minute rollups)', `${base}/statistics/timeline?timeframe=14d`],
        ['links (20 links, sort=total)', `${base}/statistics/links`],
        ['links (sort=unique&order=asc&limit=5)', `${base}/statistics/links?sort=unique&order=asc&limit=5`],
      ];
      for (const [name, urlPath] of endpoints) {
        context.log(`timing ${name}`);
        const samples = await timeEach(REQUESTS, () => get(urlPath), 20);
        const p99 = percentile(samples, 99);
        figures.push(
          { metric: `${name} p50`, value: percentile(samples, 50), unit: 'ms', ceiling: percentile(ceiling, 50) },
          { metric: `${name} p99`, value: p99, unit: 'ms', ceiling: percentile(ceiling, 99), target: `p99 < ${TARGET_P99_MS} ms`, met: p99 < TARGET_P99_MS },
        );
      }

      context.log('tracking routes: CPU with classification and without');
      const tracking = await trackingCpu(db, url, broadcastId, context.log);
      figures.push(...tracking.figures);
      notes.push(...tracking.notes);

      // The reader's SQL alone, in this process: how much of each figure is the database.
      const reader = new PgBroadcastStatisticsReader(db);
      const window = (hours: number, intervalMs: number) => ({
        kinds: ['processed', 'delivered', 'opened', 'clicked', 'bounced'] as const,
        start: new Date(T0),
        end: new Date(Date.parse(T0) + hours * 3_600_000),
        intervalMs,
      });
      const direct: Array<[string, () => Promise<unknown>]> = [
        ['counts', () => reader.counts(broadcastId)],
        ['timeline 60m', () => reader.timeline(broadcastId, window(1, 60_000))],
        ['timeline 18h', () => reader.timeline(broadcastId, window(18, 1_800_000))],
        ['timeline 14d', () => reader.timeline(broadcastId, window(336, 43_200_000))],
        ['links', () => reader.links(broadcastId)],
      ];
      for (const [name, work] of direct) {
        const samples = await timeEach(100, work, 5);
        figures.push(
          { metric: `reader SQL only (in process): ${name} p50`, value: percentile(samples, 50), unit: 'ms' },
          { metric: `reader SQL only (in process): ${name} p99`, value: percentile(samples, 99), unit: 'ms' },
        );
      }

      // What the aggregates save: the unique-opens count straight from the raw events.
      const raw = await timeEach(
        5,
        () => db.raw(`SELECT count(DISTINCT recipient_id) FROM email_events WHERE broadcast_id = ? AND type = 'opened'`, [broadcastId]),
        1,
      );
      figures.push({ metric: 'for contrast: COUNT(DISTINCT) opens over raw events, p50 (not on any request path)', value: percentile(raw, 50), unit: 'ms' });

      // record() with and without the aggregates, on this broadcast (hot rows included).
      const recipients = (await db.raw(`SELECT id, subscriber_id FROM broadcast_recipients WHERE broadcast_id = ? AND id % 97 = 0`, [broadcastId]))
        .rows as Array<{ id: number; subscriber_id: number }>;
      const base2 = { channelId, broadcastId, linkId: null };
      const plain = (e: EmailEventRecord) =>
        db.raw(
          `WITH earlier AS (
             SELECT 1 FROM email_events WHERE broadcast_id = :broadcastId AND type = :kind AND recipient_id = :recipientId
                AND link_id IS NOT DISTINCT FROM :linkId LIMIT 1)
           INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at, data)
           VALUES (:channelId, :broadcastId, :recipientId, :subscriberId, :linkId, :kind, :occurredAt, '{}')
           RETURNING id, NOT EXISTS (SELECT 1 FROM earlier) AS first`,
          { ...e, linkId: null },
        );
      const recorder = new PgEmailEvents(db);
      // Alternated, three runs of each, medians: the machine's load drifts over a run.
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      for (const workers of [1, 8]) {
        context.log(`record() throughput, ${workers} worker(s)`);
        const bare: number[] = [];
        const withAggregates: number[] = [];
        for (let i = 0; i < 3; i++) {
          bare.push(await throughput(plain, base2, recipients, workers, 4_000));
          withAggregates.push(await throughput((e) => recorder.record(e), base2, recipients, workers, 4_000));
        }
        figures.push({
          metric: `record() with aggregates, ${workers} concurrent caller(s)`,
          value: median(withAggregates),
          unit: 'events/s',
          ceiling: median(bare),
        });
      }
      notes.push(
        `Seeded: ${RECIPIENTS} recipients (97 % accepted, 2 % bounced, 1 % failed), ${events} events over 48 h (processed, delivered/bounced/failed, opens, clicks on ${LINKS} links, complaints, unsubscribes); raw events in SQL, aggregates by rebuildEmailEventAggregates().`,
        `Each endpoint: ${REQUESTS} sequential requests over one keep-alive loopback connection to the api process (\`node apps/api/dist/main.js\`), after 20 warm-up requests. Ceiling: GET /api/v1/broadcasts/:id on the same connection (authentication and one indexed read).`,
        `record() ceiling: the previous adapter (a plain insert with the first-occurrence test against email_events). Opens of random recipients of this broadcast, 4 s runs alternating bare / with aggregates three times, medians.`,
      );
    } finally {
      api.kill('SIGTERM');
      await new Promise((resolve) => api.once('exit', resolve));
    }
    return {
      title: 'Broadcast statistics at 1,000,000 recipients',
      setup: `One broadcast, ${RECIPIENTS} recipients, ${EVENTS} email events, ${LINKS} links; the real api over loopback HTTP.`,
      figures: figures.map((f) => ({ ...f, value: round(f.value), ceiling: f.ceiling === undefined ? undefined : round(f.ceiling) })),
      notes,
    };
  },
};

/**
 * docs/capacity.md: what one PostgreSQL holds and does per subscriber, per email and per event,
 * measured by writing N of each through the product's own adapters and reading, around each
 * step, the WAL position (pg_current_wal_lsn), the size of every table with its indexes and TOAST
 * (pg_total_relation_size), the rows added, and the CPU of the PostgreSQL server (postmaster
 * and backends) and of this process.
 */
import {
  createBoss,
  PgEmailEvents,
  PgRecipientStore,
  PgSegmentRepository,
  PgSubscriberImporter,
  PgTransactor,
  pgRepositories,
  SecretBox,
  SystemClock,
  type Database,
} from '@mailcast/adapters';
import { defaultSendingOptions, QueueRecipients, type ImportedSubscriber } from '@mailcast/core';
import { randomBytes } from 'node:crypto';
import { benchSubscribers, cpuSeconds, parentPid, round, serverCpuSeconds, type Bench, type BenchFigure } from './harness';

const N = benchSubscribers(20_000, 'CAPACITY_BENCH_UNITS');
const BATCH = 1_000;

interface Snapshot {
  wal: string;
  bytes: number;
  rows: number;
  pgCpu: number;
  appCpu: number;
}

async function snapshot(db: Database, postmaster: number): Promise<Snapshot> {
  // Each table's exact row count and total size (heap, indexes, TOAST), summed over the schema.
  const { rows } = await db.raw<{ rows: { wal: string; bytes: string; rows: string }[] }>(
    `SELECT pg_current_wal_lsn() AS wal,
            (SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind = 'r') AS bytes,
            (SELECT sum((xpath('/row/n/text()', query_to_xml(format('SELECT count(*) AS n FROM %I', c.relname), false, true, '')))[1]::text::bigint)
               FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname NOT LIKE 'knex_%') AS rows`,
  );
  const row = rows[0]!;
  return { wal: row.wal, bytes: Number(row.bytes), rows: Number(row.rows), pgCpu: serverCpuSeconds(postmaster), appCpu: cpuSeconds(process.pid) };
}

/** Per unit: the deltas of a step of `units` units, with a CHECKPOINT first so WAL full-page images are counted as production pays them. */
async function perUnit(db: Database, postmaster: number, units: number, step: () => Promise<void>) {
  await db.raw('CHECKPOINT');
  const before = await snapshot(db, postmaster);
  await step();
  const after = await snapshot(db, postmaster);
  const wal = Number((await db.raw<{ rows: { d: string }[] }>('SELECT ?::pg_lsn - ?::pg_lsn AS d', [after.wal, before.wal])).rows[0]!.d);
  return {
    rows: (after.rows - before.rows) / units,
    bytes: (after.bytes - before.bytes) / units,
    wal: wal / units,
    pgCpuMs: ((after.pgCpu - before.pgCpu) * 1000) / units,
    appCpuMs: ((after.appCpu - before.appCpu) * 1000) / units,
  };
}

type PerUnit = Awaited<ReturnType<typeof perUnit>>;

const figures = (unit: string, m: PerUnit): BenchFigure[] => [
  { metric: `${unit}: rows`, value: m.rows, unit: 'rows' },
  { metric: `${unit}: table + index bytes`, value: m.bytes, unit: 'bytes' },
  { metric: `${unit}: WAL bytes`, value: m.wal, unit: 'bytes' },
  { metric: `${unit}: PostgreSQL CPU`, value: m.pgCpuMs, unit: 'ms' },
  { metric: `${unit}: application CPU (this process, the writer's side)`, value: m.appCpuMs, unit: 'ms' },
];

export const capacityBench: Bench = {
  name: 'capacity',
  async run(context) {
    const { url, db } = await context.database();
    const secrets = new SecretBox(randomBytes(32));
    const postmaster = parentPid(Number((await db.raw<{ rows: { pid: number }[] }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
    const [channel] = await db('channels').insert({ name: 'capacity' }).returning('id');
    const channelId = Number(channel.id);
    const now = new Date();

    // 1. Subscribers, through the CSV import's writer (rows and their subscriber.created events).
    context.log(`capacity: ${N} subscribers`);
    const importer = new PgSubscriberImporter(db);
    const subscriber = await perUnit(db, postmaster, N, async () => {
      for (let start = 0; start < N; start += BATCH) {
        const rows: ImportedSubscriber[] = Array.from({ length: Math.min(BATCH, N - start) }, (_, j) => {
          const i = start + j;
          return {
            email: `person${i}@d${i % 1000}.example`,
            firstName: `First${i}`,
            lastName: `Last${i}`,
            ipAddress: null,
            subscribedAt: now,
            tags: i % 5 === 0 ? ['vip'] : [],
            customData: { plan: ['free', 'pro', 'team'][i % 3], score: i % 100 },
          };
        });
        await importer.upsertBatch(channelId, rows, now);
      }
    });

    // 2. Emails: a broadcast to all of them materialised, claimed and settled `sent` by the
    //    dispatcher's own statements, each with the events a delivered email records.
    context.log(`capacity: ${N} emails`);
    const boss = createBoss(url, 'api');
    await boss.start();
    const store = new PgRecipientStore(db, secrets);
    const [broadcast] = await db('broadcasts')
      .insert({ channel_id: channelId, name: 'capacity', subject: 's', body: 'b', track_opens: true, track_clicks: true, status: 'scheduled' })
      .returning('id');
    const broadcastId = Number(broadcast.id);
    const email = await perUnit(db, postmaster, N, async () => {
      const queue = new QueueRecipients(
        pgRepositories(db, boss, secrets),
        new PgTransactor(db, boss, secrets),
        new SystemClock(),
        { ...defaultSendingOptions('http://localhost', 10), helperJobs: 0 },
        new PgSegmentRepository(db),
      );
      await queue.execute({ broadcastId });
      await db('broadcasts').where({ id: broadcastId }).update({ status: 'sending' });
      for (let afterId = 0; ;) {
        const claimed = await store.claim(broadcastId, 'capacity', new Date(), 60_000, BATCH, afterId);
        if (claimed.length === 0) break;
        afterId = claimed[claimed.length - 1]!.id;
        const at = new Date();
        // What outcomeGroup (packages/core/src/sending/outcome-settlement.ts) records for a delivered email:
        // processed and delivered email events, email.sent and email.delivered outbox events.
        const emailData = (c: (typeof claimed)[number], delivered: boolean) => ({
          broadcast_id: broadcastId,
          recipient_id: c.id,
          email: c.subscriber.email,
          message_id: c.messageId,
          ...(delivered ? { delivered: true } : {}),
        });
        await store.settleWithEvents({
          settlements: claimed.map((c) => ({ id: c.id, settlement: { status: 'sent', at }, serverId: null, handed: true })),
          emailEvents: claimed.flatMap((c) => {
            const base = { channelId, broadcastId, recipientId: c.id, subscriberId: c.subscriber.id, occurredAt: at };
            return [
              { ...base, kind: 'processed' as const },
              { ...base, kind: 'delivered' as const, data: { response: '250 2.0.0 OK' } },
            ];
          }),
          outbox: claimed.flatMap((c) => [
            { recipientId: c.id, event: { channelId, type: 'email.sent' as const, data: emailData(c, false), createdAt: at } },
            { recipientId: c.id, event: { channelId, type: 'email.delivered' as const, data: emailData(c, true), createdAt: at } },
          ]),
        });
      }
    });
    await boss.stop({ graceful: false, close: true, wait: true });

    // 3. Events: one human open per recipient through the tracking path's record().
    context.log(`capacity: ${N} open events`);
    const recipients = (await db('broadcast_recipients').where({ broadcast_id: broadcastId }).orderBy('id').select('id', 'subscriber_id')) as Array<{
      id: number;
      subscriber_id: number;
    }>;
    const events = new PgEmailEvents(db);
    const event = await perUnit(db, postmaster, recipients.length, async () => {
      for (let i = 0; i < recipients.length; i += 10) {
        await Promise.all(
          recipients.slice(i, i + 10).map((r) =>
            events.record({
              channelId,
              broadcastId,
              recipientId: Number(r.id),
              subscriberId: Number(r.subscriber_id),
              kind: 'opened',
              occurredAt: new Date(),
              machine: false,
            }),
          ),
        );
      }
    });

    return {
      title: 'Capacity per subscriber, email and event (issue 41, docs/capacity.md)',
      setup: `${N.toLocaleString('en-US')} of each written through the product's adapters into one channel of a fresh database: subscribers by the CSV import's writer (batches of ${BATCH}, each row with its subscriber.created event); emails by materialising a broadcast to all of them (QueueRecipients), then the dispatcher's claim and settle statements marking each delivered with the events outcomeGroup records for it (processed and delivered email events, email.sent and email.delivered outbox events; no SMTP); events by record(), one human open per recipient, 10 at a time as the tracking endpoint's requests arrive. Around each step: CHECKPOINT, then pg_current_wal_lsn(), the sum of pg_total_relation_size over the public tables, their exact row counts, and /proc CPU of the PostgreSQL server (postmaster and backends) and of the bench process. Size: CAPACITY_BENCH_UNITS (else --subscribers N).`,
      figures: [...figures('per subscriber', subscriber), ...figures('per email', email), ...figures('per open event', event)],
      notes: [
        `Per-unit figures are deltas divided by ${N}; the outbox rows (events) count until the relay's retention removes them. WAL includes full-page images after the CHECKPOINT that starts each step, as production pays them between checkpoints.`,
        `Derived ceilings (docs/capacity.md): one primary writing W bytes of WAL per second sustains W / ${round(email.wal)} emails/s from WAL alone; PostgreSQL CPU per email ${round(email.pgCpuMs, 3)} ms caps one core at ${round(1000 / Math.max(email.pgCpuMs, 1e-6))} emails/s.`,
      ],
    };
  },
};

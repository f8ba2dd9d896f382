import {
  createBoss,
  createDatabase,
  migrate,
  type Database,
  PgSegmentRepository,
  PgTransactor,
  pgRepositories,
  SecretBox,
  SEGMENT_COUNT_TTL_MS,
  segmentPredicate,
  SystemClock,
} from '@mailcast/adapters';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { defaultSendingOptions, QueueRecipients } from '@mailcast/core';
import { parseSegmentDefinition } from '@mailcast/domain';
import type { Bench } from './harness';
import { benchSubscribers, percentile, round, timeEach } from './harness';

const SUBSCRIBERS = benchSubscribers(1_000_000, 'SEGMENTS_BENCH_SUBSCRIBERS');
const COUNT_RUNS = Number(process.env.SEGMENTS_BENCH_RUNS ?? 200);
/** Evaluations of the rules by the database, without the kept count: each one is the real work. */
const EVALUATION_RUNS = Number(process.env.SEGMENTS_BENCH_EVALUATIONS ?? 20);
/** Queueings per side; each is one sample of about a second, so the medians need several. */
const QUEUE_ROUNDS = Number(process.env.SEGMENTS_BENCH_QUEUE_ROUNDS ?? 5);

/**
 * The seeded database: a fresh one from the harness, or, with SEGMENTS_BENCH_DATABASE_URL, a
 * database this seed filled before (channel "bench", broadcast "past"), seeded there on the
 * first run; a run leaves it as it found it, so repeated runs skip the two-minute seed.
 */
async function seededDatabase(context: Parameters<Bench['run']>[0]) {
  const reuse = process.env.SEGMENTS_BENCH_DATABASE_URL;
  const { url, db } = reuse !== undefined && reuse !== '' ? { url: reuse, db: createDatabase(reuse, { poolMax: 10 }) } : await context.database();
  if (reuse) await migrate(db, url);
  const kept = reuse ? await db('broadcasts').where({ name: 'past' }).orderBy('id').first('id', 'channel_id') : undefined;
  const seeded = kept === undefined ? await seed(context, db) : { channelId: Number(kept.channel_id), pastId: Number(kept.id) };
  return {
    url,
    db,
    ...seeded,
    // In a kept database, what this run added goes, so the next run measures the same tables.
    close: async (segmentId: number) => {
      if (!reuse) return;
      // broadcast_recipients has no foreign key to cascade through (it was dropped for the write path).
      const added = db('broadcasts').where({ channel_id: seeded.channelId }).whereNot({ id: seeded.pastId }).select('id');
      await db('broadcast_recipients').whereIn('broadcast_id', added).delete();
      await db('broadcasts').where({ channel_id: seeded.channelId }).whereNot({ id: seeded.pastId }).delete();
      await db('segments').where({ id: segmentId }).delete();
      await db.raw('VACUUM ANALYZE broadcast_recipients');
      await db.destroy();
    },
  };
}

async function seed(context: Parameters<Bench['run']>[0], db: Database): Promise<{ channelId: number; pastId: number }> {
  const [channel] = await db('channels').insert({ name: 'bench' }).returning('id');
  context.log(`seeding ${SUBSCRIBERS} subscribers`);
  // vip: every 10th; plan pro: every 4th; clicked the past broadcast: every 5th. All three: every 20th.
  await db.raw(
    `INSERT INTO subscribers (channel_id, email, tags, custom_data)
     SELECT ?, 's' || g || '@bench.test',
            CASE WHEN g % 10 = 0 THEN ARRAY['vip', 'news'] ELSE ARRAY['news'] END,
            jsonb_build_object('plan', CASE WHEN g % 4 = 0 THEN 'pro' ELSE 'free' END, 'n', g)
       FROM generate_series(1, ?) g`,
    [channel.id, SUBSCRIBERS],
  );
  const [past] = await db('broadcasts')
    .insert({ channel_id: channel.id, name: 'past', subject: 's', body: 'b', track_opens: true, track_clicks: true, status: 'sent' })
    .returning('id');
  await db.raw(
    `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id, status, sent_at, clicked_at, opened_at)
     SELECT ?, s.id, '<p' || s.id || '@bench.test>', 'sent', now() - interval '3 days',
            CASE WHEN s.id % 5 = 0 THEN now() - interval '2 days' END,
            CASE WHEN s.id % 3 = 0 THEN now() - interval '2 days' END
       FROM subscribers s WHERE s.channel_id = ?`,
    [past.id, channel.id],
  );
  await db.raw('VACUUM ANALYZE subscribers');
  await db.raw('VACUUM ANALYZE broadcast_recipients');
  await db.raw('CHECKPOINT');
  return { channelId: Number(channel.id), pastId: Number(past.id) };
}

/**
 * docs/segments.md: a segment of three rules (a tag, a custom field, "clicked broadcast N") over
 * a million subscribers, counted by the database, and a broadcast queued to it against the bare
 * INSERT … SELECT of the same members.
 */
export const segmentsBench: Bench = {
  name: 'segments',
  async run(context) {
    const { url, db, channelId, pastId, close } = await seededDatabase(context);
    const channel = { id: channelId };
    const past = { id: pastId };
    const parsed = parseSegmentDefinition('all', [
      { field: 'tags', operator: 'includes', value: 'vip' },
      { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
      { field: 'clicked_broadcast', operator: 'equals', value: past.id },
    ]);
    if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
    const segments = new PgSegmentRepository(db);
    const segment = await segments.create({ channelId: channel.id, name: 'three rules', description: null, definition: parsed.definition }, new Date());

    context.log(`evaluating ${EVALUATION_RUNS} times, then counting ${COUNT_RUNS} times`);
    const evaluations = await timeEach(EVALUATION_RUNS, () => segments.countNow(channel.id, segment.definition, new Date()), 2);
    const plan = (
      await db.raw(
        `EXPLAIN (ANALYZE, BUFFERS) SELECT count(*) FROM subscribers s WHERE s.channel_id = ? AND s.redacted_at IS NULL AND (${segmentPredicate(segment.definition, channel.id, new Date()).sql})`,
        [channel.id, ...segmentPredicate(segment.definition, channel.id, new Date()).bindings],
      )
    ).rows
      .map((r: Record<string, string>) => r['QUERY PLAN'])
      .filter((l: string) => /Scan|Join|Loop|Execution/.test(l))
      .map((l: string) => l.trim())
      .join(' | ');
    // subscribers_count as GET /segments/:id serves it: the repository's kept count, for as long
    // as the runs last (more than one time-to-live when the machine is slow).
    let members = 0;
    const samples = await timeEach(COUNT_RUNS, async () => {
      members = await segments.countMembers(channel.id, segment.definition, new Date());
    });
    const p99 = percentile(samples, 99);
    const load = os.loadavg()[0]!;

    const boss = createBoss(url, 'api');
    await boss.start();
    const secrets = new SecretBox(randomBytes(32));
    const queue = new QueueRecipients(
      pgRepositories(db, boss, secrets),
      new PgTransactor(db, boss, secrets),
      new SystemClock(),
      { ...defaultSendingOptions('http://bench.test', 1), helperJobs: 0 },
      segments,
    );
    const where = segmentPredicate(segment.definition, channel.id, new Date());
    const aBroadcast = async (name: string, segmentIds: number[]) =>
      (
        await db('broadcasts')
          .insert({
            channel_id: channel.id,
            name,
            subject: 's',
            body: 'b',
            track_opens: false,
            track_clicks: false,
            status: 'scheduled',
            segment_ids: segmentIds,
          })
          .returning('id')
      )[0].id as number;
    const timed = async (work: () => Promise<unknown>) => {
      await db.raw('CHECKPOINT');
      const start = process.hrtime.bigint();
      await work();
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    // One queueing is one sample of a few seconds on a shared machine, so each side runs
    // QUEUE_ROUNDS times, alternating which goes first, and the medians are compared.
    const queueSamples: number[] = [];
    const bareSamples: number[] = [];
    let queued = 0;
    for (let r = 0; r < QUEUE_ROUNDS; r++) {
      context.log(`queueing round ${r + 1} of ${QUEUE_ROUNDS}`);
      const viaQueue = async () => {
        const id = await aBroadcast(`to-segment-${r}`, [segment.id]);
        queueSamples.push(await timed(async () => (queued = (await queue.execute({ broadcastId: id }))?.totalRecipients ?? 0)));
      };
      // Ceiling: the same members in one bare INSERT … SELECT with the same compiled predicate.
      const bare = async () => {
        const id = await aBroadcast(`bare-${r}`, []);
        bareSamples.push(
          await timed(() =>
            db.raw(
              `INSERT INTO broadcast_recipients (broadcast_id, subscriber_id, message_id)
               SELECT ?, s.id, '<' || s.id || '@bench.test>' FROM subscribers s
                WHERE s.channel_id = ? AND s.is_active AND (NOT s.requires_confirmation OR s.confirmed_at IS NOT NULL) AND s.redacted_at IS NULL
                  AND (${where.sql})`,
              [id, channel.id, ...where.bindings],
            ),
          ),
        );
      };
      if (r % 2 === 0) await viaQueue().then(bare);
      else await bare().then(viaQueue);
    }
    await boss.stop({ graceful: false, close: true, wait: true });
    await close(segment.id);
    const queueMs = percentile(queueSamples, 50);
    const bareMs = percentile(bareSamples, 50);
    context.log(
      `count p99 ${round(p99)} ms (${members} members); queued ${queued} in ${queueSamples.map((x) => round(x)).join(', ')} ms, bare ${bareSamples.map((x) => round(x)).join(', ')} ms`,
    );

    return {
      title: 'Segments (issue 22)',
      setup: `${SUBSCRIBERS} subscribers; a segment of three rules (tag vip, custom_data.plan = pro, clicked broadcast N) holding ${members}; the rules evaluated by the database ${EVALUATION_RUNS} times (countNow, no kept count), then subscribers_count as the API serves it (countMembers: exact, above 1,000 members kept until the audience changes, at most ${SEGMENT_COUNT_TTL_MS / 1000} s) timed ${COUNT_RUNS} times after 5 warm-ups; then a broadcast to it queued through QueueRecipients against one bare INSERT … SELECT of the same members, each ${QUEUE_ROUNDS} times alternating which goes first (medians). Sizes: SEGMENTS_BENCH_SUBSCRIBERS, SEGMENTS_BENCH_RUNS, SEGMENTS_BENCH_EVALUATIONS, SEGMENTS_BENCH_QUEUE_ROUNDS; SEGMENTS_BENCH_DATABASE_URL reuses a seeded database.`,
      figures: [
        { metric: 'subscribers_count p99', value: p99, unit: 'ms', target: '< 200 ms', met: p99 < 200 },
        { metric: 'subscribers_count median', value: percentile(samples, 50), unit: 'ms' },
        { metric: 'rules evaluated by the database (no kept count) p50', value: percentile(evaluations, 50), unit: 'ms' },
        { metric: 'rules evaluated by the database (no kept count) p99', value: percentile(evaluations, 99), unit: 'ms' },
        {
          metric: `queue ${queued} segment recipients (median of ${QUEUE_ROUNDS})`,
          value: queueMs,
          unit: 'ms',
          ceiling: bareMs,
          target: '<= 1.5x bare INSERT … SELECT',
          met: queueMs <= 1.5 * bareMs,
        },
      ],
      notes: [
        `Plan of the evaluation: ${plan}`,
        `One-minute load average after the counts: ${round(load, 1)} on ${os.cpus().length} CPUs (the machine may be shared).`,
      ],
    };
  },
};

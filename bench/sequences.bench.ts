import { createBoss, type Database, createLogger, loadConfig, PgSegmentRepository, PgSequenceRuntime, secretBoxFor, SystemClock } from '@mailcast/adapters';
import { SyncSegmentEnrolments } from '@mailcast/core';
import { parseSegmentDefinition } from '@mailcast/domain';
import { appendFileSync } from 'node:fs';
import { Fixtures } from '../packages/testkit/src/fixtures';
import { eventually } from '../packages/testkit/src/net';
import type { Bench, BenchContext, BenchFigure } from './harness';
import { autovacuumIdle, cpuSeconds, parentPid, percentile, round, serverCpuSeconds } from './harness';
import { memoryKb, nodeProcess, threadCpuSeconds, threadShares } from './processes';

const SUBSCRIBERS = Number(process.env.SEQUENCES_BENCH_SUBSCRIBERS ?? 1_000_000);
const DUE = Number(process.env.SEQUENCES_BENCH_DUE ?? 100_000);
const SPREAD = Number(process.env.SEQUENCES_BENCH_SPREAD ?? 10_000);
/** How long a dispatcher runs idle before its peak memory is read. */
const IDLE_MS = Number(process.env.SEQUENCES_BENCH_IDLE_MS ?? 30_000);
const SPREAD_MS = 60_000;
const PUBLIC_URL = 'http://bench.test';
const SUBJECT = 'Hello {{ subscriber.first_name }}';
const BODY = 'Hello {{ subscriber.first_name }}, here is the news.';
const WAITING = `now() + interval '30 days'`;

/**
 * An SMTP sink in its own process that counts what it accepts and stamps, on its own wall clock,
 * each message to an address starting with "late"; on SIGTERM it prints both.
 */
const STAMPING_SINK = `
const { SMTPServer } = require('smtp-server');
const { performance } = require('node:perf_hooks');
const stamps = {};
let count = 0;
const server = new SMTPServer({
  authOptional: true, disabledCommands: ['STARTTLS'], logger: false, size: 0,
  onData(stream, session, cb) {
    stream.on('data', () => {});
    stream.on('end', () => {
      count++;
      for (const r of session.envelope.rcptTo) if (r.address.startsWith('late')) stamps[r.address] = performance.timeOrigin + performance.now();
      cb();
    });
  },
});
server.listen(0, '127.0.0.1', () => console.log(String(server.server.address().port)));
process.on('SIGTERM', () => { process.stdout.write(JSON.stringify({ count, stamps }) + '\\n', () => process.exit(0)); });
`;

/**
 * With pg_stat_statements loaded (BENCH_PG_SETTINGS=shared_preload_libraries=pg_stat_statements),
 * the statements of each side by their total time, per email; without it, nothing.
 */
async function statementProfile(db: Database) {
  const loaded = (await db.raw<{ rows: Array<{ s: string }> }>(`SELECT current_setting('shared_preload_libraries') AS s`)).rows[0]!.s.includes(
    'pg_stat_statements',
  );
  if (loaded) await db.raw('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
  return {
    reset: async () => {
      if (loaded) await db.raw('SELECT pg_stat_statements_reset()');
    },
    report: async (side: string, emails: number, log: (m: string) => void) => {
      if (!loaded) return;
      const { rows } = await db.raw<{ rows: Array<{ calls: string; rows: string; ms: number; query: string }> }>(
        `SELECT calls, rows, total_exec_time AS ms, query FROM pg_stat_statements ORDER BY total_exec_time DESC LIMIT 12`,
      );
      for (const r of rows) {
        const query = r.query.replace(/\s+/g, ' ').slice(0, 110);
        log(`  ${side}: ${round((r.ms * 1000) / emails)} µs/email, ${Number(r.calls)} calls, ${Number(r.rows)} rows: ${query}`);
      }
    },
  };
}

const timed = async (work: () => Promise<unknown>) => {
  const start = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - start) / 1e6;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The built dispatcher on `url`; SEQUENCES_BENCH_DISPATCHER_ARGS adds node flags (e.g. --cpu-prof). */
function spawnDispatcher(url: string) {
  const flags = (process.env.SEQUENCES_BENCH_DISPATCHER_ARGS ?? '').split(' ').filter(Boolean);
  const spawned = nodeProcess([...flags, 'apps/dispatcher/dist/main.js'], {
    ...process.env,
    DATABASE_URL: url,
    PUBLIC_URL,
    LOG_LEVEL: 'info',
    SMTP_ALLOW_PRIVATE: 'true',
  });
  // SEQUENCES_BENCH_DISPATCHER_LOG appends each dispatcher's output to a file.
  const log = process.env.SEQUENCES_BENCH_DISPATCHER_LOG;
  if (log) for (const stream of [spawned.child.stdout!, spawned.child.stderr!]) stream.on('data', (c: Buffer) => appendFileSync(log, c));
  return spawned;
}

/** Stops a dispatcher and waits for it. */
async function stop(dispatcher: ReturnType<typeof spawnDispatcher>): Promise<void> {
  dispatcher.child.kill('SIGTERM');
  await dispatcher.exited;
}

/** A dispatcher started on `url`, left idle for IDLE_MS, then stopped: its peak resident memory in MB. */
async function idlePeakMb(url: string): Promise<number> {
  const dispatcher = spawnDispatcher(url);
  await dispatcher.firstLine;
  await sleep(IDLE_MS);
  const peak = memoryKb(dispatcher.child.pid!, 'VmHWM') / 1024;
  await stop(dispatcher);
  return peak;
}

/** Part 1: a million enrolled through the segment sync against the bare INSERT … SELECT, and a dispatcher's memory with them waiting. */
async function atAMillion(context: BenchContext): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const { url, db } = await context.database();
  // Seeds through the repositories; its queue is never started (nothing here enqueues).
  const fixtures = new Fixtures(db, createBoss(url, 'api'));
  const [channel] = await db('channels').insert({ name: 'bench-sequences-1m', from_email: 'news@bench.test' }).returning('id');
  context.log(`seeding ${SUBSCRIBERS} subscribers`);
  await db.raw(
    `INSERT INTO subscribers (channel_id, email, first_name, tags) SELECT ?, 's' || g || '@bench.test', 'S' || g, ARRAY['member'] FROM generate_series(1, ?) g`,
    [channel.id, SUBSCRIBERS],
  );
  const parsed = parseSegmentDefinition('all', [{ field: 'tags', operator: 'includes', value: 'member' }]);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  const segments = new PgSegmentRepository(db);
  const segment = await segments.create({ channelId: channel.id, name: 'members', description: null, definition: parsed.definition }, new Date());
  await db.raw('VACUUM ANALYZE subscribers');
  await db.raw('CHECKPOINT');

  context.log(`dispatcher idle ${IDLE_MS / 1000} s with no enrolment`);
  const nonePeakMb = await idlePeakMb(url);

  // The ceiling: the same rows, in one statement, into the same table and indexes. Its rows go
  // again (and are vacuumed) before the sync, so both write into an empty table: left in place,
  // a million rows more in the table's indexes made the second writer's statement about 1.4x
  // slower by themselves.
  const bare = await fixtures.aSequence(channel.id, [{ action: 'delay', settings: { delay: 30 * 86_400 } }], { label: 'bare', active: false });
  const synced = await fixtures.aSequence(channel.id, [{ action: 'delay', settings: { delay: 30 * 86_400 } }], { label: 'synced', initSegmentId: segment.id });
  const secrets = secretBoxFor(loadConfig(process.env), createLogger({ level: 'warn', production: false, service: 'bench' }));
  const sync = new SyncSegmentEnrolments(new PgSequenceRuntime(db, secrets), segments, new SystemClock());
  /** Each timed statement writes into an emptied, vacuumed table after a checkpoint, once no autovacuum worker runs. */
  const waits: number[] = [];
  const emptied = async () => {
    await db.raw('DELETE FROM subscriber_sequences');
    await db.raw('DELETE FROM events');
    await db.raw('VACUUM ANALYZE subscriber_sequences');
    await db.raw('VACUUM ANALYZE events');
    await db.raw('CHECKPOINT');
    waits.push(await autovacuumIdle(db));
  };
  // Two alternating pairs, bare then sync: one statement's time moves by a quarter from run to
  // run on this machine's disk, so a single pair's ratio says little.
  const bareRuns: number[] = [];
  const syncRuns: number[] = [];
  let enrolled = 0;
  for (let pair = 1; pair <= 2; pair++) {
    await emptied();
    context.log(`bare INSERT … SELECT of the members (${pair} of 2)`);
    bareRuns.push(
      await timed(() =>
        db.raw(
          `INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
           SELECT ?, s.id, s.channel_id, 'active', now(), now(), ?, now(), now() FROM subscribers s
            WHERE s.channel_id = ? AND s.tags @> ARRAY['member'] AND s.is_active AND (NOT s.requires_confirmation OR s.confirmed_at IS NOT NULL) AND s.redacted_at IS NULL`,
          [bare.sequence.id, bare.entry, channel.id],
        ),
      ),
    );
    await emptied();
    context.log(`segment sync (${pair} of 2)`);
    syncRuns.push(await timed(async () => (enrolled = await sync.execute())));
    context.log(`sync enrolled ${enrolled} in ${round(syncRuns.at(-1)!)} ms (bare ${round(bareRuns.at(-1)!)} ms)`);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const bareMs = mean(bareRuns);
  const syncMs = mean(syncRuns);

  // A million waiting at their delay, nothing else to do: the synced enrolments wait 30 days, and
  // the sync's million sequence.subscriber_added events count as relayed, so the dispatcher's only
  // work is its runtime and its segment sync.
  await db.raw(`UPDATE subscriber_sequences SET current_step_id = ?, next_trigger_at = ${WAITING} WHERE sequence_id = ?`, [
    synced.steps[0]!,
    synced.sequence.id,
  ]);
  await db.raw('UPDATE events SET dispatched_at = now() WHERE dispatched_at IS NULL');
  await db.raw('VACUUM ANALYZE subscriber_sequences');
  await db.raw('VACUUM ANALYZE events');
  await db.raw('CHECKPOINT');
  context.log(`dispatcher idle ${IDLE_MS / 1000} s with ${enrolled} enrolments waiting`);
  const waitingPeakMb = await idlePeakMb(url);
  context.log(`dispatcher peak: ${round(nonePeakMb)} MB with none, ${round(waitingPeakMb)} MB with ${enrolled} waiting`);

  return {
    figures: [
      {
        metric: `enrol ${enrolled} through the init_segment_id sync (mean of two)`,
        value: syncMs / 1000,
        unit: 's',
        ceiling: bareMs / 1000,
        target: '< 60 s and <= 1.5x bare INSERT … SELECT',
        met: enrolled === SUBSCRIBERS && syncMs < 60_000 && syncMs <= 1.5 * bareMs,
      },
      {
        metric: 'the same, slower of the two syncs against the slower of the two bare statements',
        value: Math.max(...syncRuns) / 1000,
        unit: 's',
        ceiling: Math.max(...bareRuns) / 1000,
      },
      {
        metric: `dispatcher peak memory, ${enrolled} enrolments waiting`,
        value: waitingPeakMb,
        unit: 'MB',
        ceiling: nonePeakMb,
        target: '<= 1.1x with none',
        met: waitingPeakMb <= 1.1 * nonePeakMb,
      },
    ],
    notes: [
      `Segment sync: ${SUBSCRIBERS} subscribers tagged "member", a segment of that one rule, an active sequence starting from it; SyncSegmentEnrolments runs its statement (the enrolments and their sequence.subscriber_added outbox events) against a bare INSERT … SELECT of the same members into the same table, in two alternating pairs (bare then sync; the figure is each side's mean), each statement into an emptied, vacuumed table after a CHECKPOINT, once no autovacuum worker ran in the cluster (waited ${waits.map((w) => `${round(w / 1000, 1)} s`).join(', ')}; the sending parts' database is vacuumed at their end). Bare ${bareRuns.map((x) => `${round(x / 1000, 1)} s`).join(' and ')}; sync ${syncRuns.map((x) => `${round(x / 1000, 1)} s`).join(' and ')}.`,
      `Memory: the built dispatcher (apps/dispatcher/dist/main.js) spawned on the same database, idle ${IDLE_MS / 1000} s (its runtime polls about every second and runs its segment sync at start), its VmHWM read before it stops: first with no enrolment, then with the ${enrolled} synced enrolments waiting 30 days at a delay.`,
    ],
  };
}

/** Part 2 and 3: due enrolments against a broadcast through one dispatcher, then steps falling due across a minute. */
async function sendingSteps(context: BenchContext): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const { url, db } = await context.database();
  const boss = createBoss(url, 'api');
  await boss.start();
  const fixtures = new Fixtures(db, boss);
  const sink = nodeProcess(['-e', STAMPING_SINK]);
  const port = Number(await sink.firstLine);
  const [channel] = await db('channels').insert({ name: 'bench-sequences', from_email: 'news@bench.test' }).returning('id');
  await db('email_servers').insert({ channel_id: channel.id, host: '127.0.0.1', port, tls: 'none' });
  await db.raw(`INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'd' || g || '@bench.test', 'D' || g FROM generate_series(1, ?) g`, [
    channel.id,
    DUE,
  ]);
  const [broadcast] = await db('broadcasts')
    .insert({ channel_id: channel.id, name: 'bench', subject: SUBJECT, body: BODY, track_opens: false, track_clicks: false, status: 'scheduled' })
    .returning('id');
  const email = { action: 'send_email', settings: { subject: SUBJECT, body: BODY } } as const;
  const untracked = { trackOpens: false, trackClicks: false };
  const due = await fixtures.aSequence(channel.id, [email], { label: 'due', ...untracked });
  await db.raw('VACUUM ANALYZE subscribers');
  await db.raw('CHECKPOINT');

  // One dispatcher process for the broadcast and a fresh one for the sequence steps, so
  // neither starts with what the other left (and a profile of the second is the steps' alone).
  const broadcaster = spawnDispatcher(url);
  await broadcaster.firstLine;
  // CPU per email of each dispatcher (all its threads), what a loaded machine can still compare.
  const broadcasterPid = broadcaster.child.pid!;
  // PostgreSQL's CPU over each side too (postmaster, backends, those that exited): the steps'
  // dispatcher used no more CPU per email than the broadcast's yet sent more slowly.
  const postmaster = parentPid(Number((await db.raw<{ rows: Array<{ pid: number }> }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
  const broadcasterCpu = { seconds: cpuSeconds(broadcasterPid), threads: threadCpuSeconds(broadcasterPid), db: serverCpuSeconds(postmaster) };
  // Done when the sequence has no enrolment left to run (active or busy), read through the
  // partial index of due ones and the status index: a count of the step's runs read every run
  // so far at each poll, PostgreSQL work the broadcast's poll of its one row does not do.
  const finished = async (sequenceId: number) => {
    const { rows } = await db.raw<{ rows: unknown[] }>(`SELECT 1 FROM subscriber_sequences WHERE sequence_id = ? AND status IN ('active', 'busy') LIMIT 1`, [
      sequenceId,
    ]);
    return rows.length === 0 ? true : undefined;
  };
  const stepRuns = async (stepId: number) => Number((await db('sequence_step_runs').where({ step_id: stepId }).count({ n: '*' }).first())!.n);

  const statements = await statementProfile(db);
  await statements.reset();
  context.log(`broadcast to ${DUE}`);
  const broadcastMs = await timed(async () => {
    await boss.send('broadcasts.send', { broadcastId: broadcast.id }, { retryLimit: 0 });
    await eventually(
      async () =>
        ['sent', 'partial_failure', 'failed'].includes((await db('broadcasts').where({ id: broadcast.id }).first('status')).status) ? true : undefined,
      30 * 60_000,
    );
  });
  await statements.report('broadcast', DUE, context.log);
  const broadcastCpuMs = ((cpuSeconds(broadcasterPid) - broadcasterCpu.seconds) * 1000) / DUE;
  const broadcastDbMs = ((serverCpuSeconds(postmaster) - broadcasterCpu.db) * 1000) / DUE;
  const broadcastThreads = threadShares(broadcasterCpu.threads, threadCpuSeconds(broadcasterPid), broadcasterPid, DUE);
  await stop(broadcaster);
  const dispatcher = spawnDispatcher(url);
  await dispatcher.firstLine;
  const dispatcherPid = dispatcher.child.pid!;
  const dispatcherCpu = { seconds: cpuSeconds(dispatcherPid), threads: threadCpuSeconds(dispatcherPid), db: serverCpuSeconds(postmaster) };
  await statements.reset();
  context.log(`${DUE} enrolments due at once at a send_email step`);
  const sequenceMs = await timed(async () => {
    await db.raw(
      `INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
       SELECT ?, s.id, s.channel_id, 'active', now(), now(), ?, now(), now() FROM subscribers s WHERE s.channel_id = ?`,
      [due.sequence.id, due.steps[0]!, channel.id],
    );
    await eventually(() => finished(due.sequence.id), 30 * 60_000);
  });
  const ran = await stepRuns(due.steps[0]!);
  if (ran !== DUE) throw new Error(`the due enrolments ran ${ran} steps, not ${DUE}`);
  await statements.report('sequence steps', DUE, context.log);
  const sequenceCpuMs = ((cpuSeconds(dispatcherPid) - dispatcherCpu.seconds) * 1000) / DUE;
  const sequenceDbMs = ((serverCpuSeconds(postmaster) - dispatcherCpu.db) * 1000) / DUE;
  const sequenceThreads = threadShares(dispatcherCpu.threads, threadCpuSeconds(dispatcherPid), dispatcherPid, DUE);
  context.log(
    `CPU per email: sequence step ${round(sequenceCpuMs, 3)} ms (${sequenceThreads}); broadcast ${round(broadcastCpuMs, 3)} ms (${broadcastThreads}); PostgreSQL ${round(sequenceDbMs, 3)} against ${round(broadcastDbMs, 3)} ms`,
  );
  const broadcastRate = DUE / (broadcastMs / 1000);
  const sequenceRate = DUE / (sequenceMs / 1000);
  context.log(`broadcast ${round(broadcastRate)} msg/s, sequence step ${round(sequenceRate)} msg/s`);

  // Steps falling due across a minute on an otherwise idle system, judged at the SMTP server.
  const [late] = await db('channels').insert({ name: 'bench-sequences-late', from_email: 'news@bench.test' }).returning('id');
  await db('email_servers').insert({ channel_id: late.id, host: '127.0.0.1', port, tls: 'none' });
  await db.raw(`INSERT INTO subscribers (channel_id, email, first_name) SELECT ?, 'late' || g || '@bench.test', 'L' || g FROM generate_series(1, ?) g`, [
    late.id,
    SPREAD,
  ]);
  const spread = await fixtures.aSequence(late.id, [email], { label: 'spread', ...untracked });
  await sleep(5_000);
  const firstDue = Date.now() + 5_000;
  context.log(`${SPREAD} steps falling due over ${SPREAD_MS / 1000} s`);
  // Each member's due time, the same in the INSERT and in the list read back, which is a query of
  // its own: joined to the INSERT's RETURNING, the planner once looped over both (ten thousand
  // squared), and the INSERT ran 9 s into the minute its first rows were due in.
  const members = `SELECT id, email, channel_id, to_timestamp(? / 1000.0) + (row_number() OVER (ORDER BY id) - 1) * (? / ?::float8) * interval '1 millisecond' AS due
                     FROM subscribers WHERE channel_id = ?`;
  await db.raw(
    `INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
     SELECT ?, s.id, s.channel_id, 'active', now(), s.due, ?, now(), now() FROM (${members}) s`,
    [spread.sequence.id, spread.steps[0]!, firstDue, SPREAD_MS, SPREAD, late.id],
  );
  const { rows: dueRows } = await db.raw<{ rows: Array<{ email: string; due: Date }> }>(`SELECT email, due FROM (${members}) s`, [
    firstDue,
    SPREAD_MS,
    SPREAD,
    late.id,
  ]);
  await eventually(() => finished(spread.sequence.id), SPREAD_MS + 5 * 60_000);
  await stop(dispatcher);
  await boss.stop({ graceful: false, close: true, wait: true });
  const answer = new Promise<string>((resolve) => {
    let out = '';
    sink.child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.endsWith('\n')) resolve(out);
    });
  });
  sink.child.kill('SIGTERM');
  const { count, stamps } = JSON.parse(await answer) as { count: number; stamps: Record<string, number> };
  await sink.exited;
  const lateness = dueRows.map((r) => {
    const at = stamps[r.email];
    if (at === undefined) throw new Error(`the sink never received ${r.email}`);
    return (at - r.due.getTime()) / 1000;
  });
  const p50 = percentile(lateness, 50);
  const p99 = percentile(lateness, 99);
  context.log(`lateness p50 ${round(p50)} s, p99 ${round(p99)} s, max ${round(Math.max(...lateness))} s`);
  // This part's sends, updates and deletes vacuumed now, not by an autovacuum worker in the
  // middle of the next part's timed statements.
  await db.raw('VACUUM ANALYZE');

  return {
    figures: [
      {
        metric: `${DUE} enrolments due at once, sent`,
        value: sequenceRate,
        unit: 'msg/s',
        ceiling: broadcastRate,
        target: '>= 0.8x the broadcast pipeline',
        met: sequenceRate >= 0.8 * broadcastRate,
      },
      { metric: `dispatcher CPU per email (all threads), ${DUE} due steps`, value: sequenceCpuMs, unit: 'ms', ceiling: broadcastCpuMs },
      { metric: `PostgreSQL CPU per email, ${DUE} due steps`, value: sequenceDbMs, unit: 'ms', ceiling: broadcastDbMs },
      { metric: `lateness (accepted by SMTP − due) p50, ${SPREAD} steps over a minute`, value: p50, unit: 's' },
      { metric: `lateness p99`, value: p99, unit: 's', target: '< 5 s', met: p99 < 5 },
    ],
    notes: [
      `Due enrolments: ${DUE} subscribers; first a broadcast to all of them through a spawned dispatcher (enqueued to its status sent), then, through a fresh dispatcher process, ${DUE} enrolments inserted due at once at a send_email step of the same subject and body (timed from the insert to the last step run recorded), both to one SMTP sink process. Tracking is off on both, as the broadcast pipeline measured here sends without it. The sink accepted ${count} messages in all.`,
      `CPU per email: each dispatcher's user + system CPU (every thread) from its start-up line to the last of the ${DUE} emails, divided by ${DUE}; its ceiling is the broadcast's dispatcher's. By thread, sequence steps: ${sequenceThreads}; broadcast: ${broadcastThreads}.`,
      `Lateness: ${SPREAD} enrolments of another channel at a send_email step, due evenly across ${SPREAD_MS / 1000} s from 5 s after the insert, the same dispatcher otherwise idle; each one's lateness is the SMTP sink's acceptance time (its wall clock) less its due time. Max ${round(Math.max(...lateness))} s.`,
    ],
  };
}

/** docs/sequences.md, "Runtime": the segment sync, sequence emails against broadcasts, lateness and memory. */
export const sequencesBench: Bench = {
  name: 'sequences',
  async run(context) {
    // The sending parts first: the million's deletes and updates leave autovacuum work in the
    // cluster that would otherwise run beside them.
    const sending = await sendingSteps(context);
    const million = await atAMillion(context);
    return {
      title: 'Sequences (issue 35)',
      setup: `${SUBSCRIBERS} subscribers enrolled by the segment sync; ${DUE} enrolments due at once against a broadcast of ${DUE}; ${SPREAD} steps falling due across a minute; a dispatcher's peak memory idle with none and with ${SUBSCRIBERS} waiting. Sizes: SEQUENCES_BENCH_SUBSCRIBERS, SEQUENCES_BENCH_DUE, SEQUENCES_BENCH_SPREAD, SEQUENCES_BENCH_IDLE_MS.`,
      figures: [...million.figures, ...sending.figures],
      notes: [...million.notes, ...sending.notes],
    };
  },
};

import type { StepRecord } from '@mailcast/core';
import { parseSegmentDefinition } from '@mailcast/domain';
import { createTestDatabase, Fixtures, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { createDatabase, type Database } from './database';
import { PgSegmentRepository } from './pg-segment.repository';
import { PgSequenceRuntime } from './pg-sequence-runtime';

/**
 * The runtime's statements on statistics that have not seen what they work on, where plans that
 * fit the statistics cost the square of the work:
 * - the segment sync into an empty table whose statistics say so (docs/sequences.md,
 *   "init_segment_id"): a nested-loop anti-join against the sequence's enrolments rescanned the
 *   table per member, each rescan reading every page the statement had written so far;
 * - a burst of due enrolments (docs/sequences.md, "Claims"): the plain claim sorted every due row
 *   and hashed every step run so far once per claim.
 */
describe('PgSequenceRuntime on stale statistics', () => {
  let database: TestDatabase;
  let single: Database;
  const MEMBERS = 4_000;
  const BURST = 4_000;
  const ENDED = 40_000;
  const CLAIM = 100;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: its statistics are flushed by the statement after the sync's.
    single = createDatabase(database.url, { poolMax: 1 });
  });
  afterAll(async () => {
    await single.destroy();
    await database.drop();
  });

  /** A statistic summed over `tables` so far, as flushed by `single`. */
  const statistic = async (sql: string) => {
    await single.raw('SELECT pg_stat_force_next_flush()');
    await single.raw('SELECT 1');
    const { rows } = await database.db.raw<{ rows: Array<{ n: string }> }>(sql);
    return Number(rows[0]!.n);
  };
  /** Heap pages of subscriber_sequences read so far (hits and reads). */
  const pagesRead = () =>
    statistic(`SELECT coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0) AS n FROM pg_statio_user_tables WHERE relname = 'subscriber_sequences'`);
  /**
   * Rows the runtime's tables gave up so far: the step runs by any scan, the enrolments by index.
   * The enrolments' sequential scans are left out: at this size a plan may read that table whole
   * once (a hash join), which at a million enrolments it never chooses.
   */
  const rowsRead = () =>
    statistic(
      `SELECT sum(coalesce(idx_tup_fetch, 0) + CASE WHEN relname = 'sequence_step_runs' THEN coalesce(seq_tup_read, 0) ELSE 0 END) AS n
         FROM pg_stat_user_tables WHERE relname IN ('subscriber_sequences', 'sequence_step_runs')`,
    );

  it('claims and records the burst reading rows linear in its size', async () => {
    const db = database.db;
    const fixtures = new Fixtures(db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    await db.raw(`INSERT INTO subscribers (channel_id, email) SELECT ?, 'b' || g || '@example.test' FROM generate_series(1, ?) g`, [channel.id, BURST]);
    const email = { action: 'send_email', settings: { subject: 'Hi', body: 'Hello' } } as const;
    const { sequence, steps } = await fixtures.aSequence(channel.id, [email], { trackOpens: false, trackClicks: false });
    // The statistics saw no enrolment due and no step run: since then come enrolments that ended (with
    // their runs), so reading a table whole is a plan's last resort, and the burst.
    await db.raw('VACUUM ANALYZE subscriber_sequences, sequence_step_runs');
    const old = await fixtures.aSequence(channel.id, [email], { label: 'old' });
    await db.raw(`INSERT INTO subscribers (channel_id, email) SELECT ?, 'o' || g || '@example.test' FROM generate_series(1, ?) g`, [channel.id, ENDED]);
    await db.raw(
      `INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, completed_at, current_step_id, created_at, updated_at)
       SELECT ?, s.id, s.channel_id, 'completed', now(), now(), ?, now(), now() FROM subscribers s WHERE s.email LIKE 'o%'`,
      [old.sequence.id, old.steps[0]!],
    );
    await db.raw(`INSERT INTO sequence_step_runs (enrolment_id, step_id, created_at) SELECT id, current_step_id, now() FROM subscriber_sequences`);
    await db.raw(
      `INSERT INTO subscriber_sequences (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
       SELECT ?, s.id, s.channel_id, 'active', now(), now(), ?, now(), now() FROM subscribers s WHERE s.email LIKE 'b%'`,
      [sequence.id, steps[0]!],
    );

    const runtime = new PgSequenceRuntime(single, throwawaySecretBox());
    const before = await rowsRead();
    let recorded = 0;
    for (;;) {
      const claimed = await runtime.claim('burst', new Date(), 60_000, CLAIM);
      if (claimed.length === 0) break;
      const at = new Date();
      const records: StepRecord[] = claimed.map((enrolment) => ({
        enrolment,
        ranStepId: enrolment.currentStepId,
        next: { status: 'completed' },
        effects: [],
        at,
        email: { stepId: steps[0]!, messageId: `<b${enrolment.id}@example.test>`, kind: 'delivered', handed: true, reason: '250 OK', code: 250 },
      }));
      recorded += await runtime.record('burst', records);
    }
    const read = (await rowsRead()) - before;

    expect(recorded).toBe(BURST);
    expect(Number((await db('sequence_step_runs').where({ step_id: steps[0]! }).count({ n: '*' }).first())!.n)).toBe(BURST);
    expect(Number((await db('email_events').where({ sequence_id: sequence.id }).count({ n: '*' }).first())!.n)).toBe(2 * BURST);
    // A few rows per enrolment (its pick, its claim, its move); the plans the statistics chose
    // for the plain statements read 1.77 million here (every run hashed and every due row sorted
    // once per claim), growing with the square of the burst.
    expect(read).toBeLessThan(10 * BURST);
  }, 120_000);

  it('reads the enrolments table in time linear in the members, into an empty analysed table', async () => {
    const db = database.db;
    const fixtures = new Fixtures(db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    await db.raw(`INSERT INTO subscribers (channel_id, email, tags) SELECT ?, 'm' || g || '@example.test', ARRAY['member'] FROM generate_series(1, ?) g`, [
      channel.id,
      MEMBERS,
    ]);
    const parsed = parseSegmentDefinition('all', [{ field: 'tags', operator: 'includes', value: 'member' }]);
    if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
    const segment = await new PgSegmentRepository(db).create(
      { channelId: channel.id, name: 'members', description: null, definition: parsed.definition },
      new Date(),
    );
    const { sequence } = await fixtures.aSequence(channel.id, [{ action: 'delay', settings: { delay: 86_400 } }], { initSegmentId: segment.id });
    await db.raw('TRUNCATE subscriber_sequences CASCADE'); // the burst's, above
    await db.raw('VACUUM ANALYZE subscriber_sequences');
    await db.raw('ANALYZE subscribers');

    const before = await pagesRead();
    expect(await new PgSequenceRuntime(single, throwawaySecretBox()).enrolSegment(sequence, parsed.definition, new Date())).toBe(MEMBERS);
    const read = (await pagesRead()) - before;
    // A few page visits per member (its row, its index entries, its event); the rescanning plan
    // made about 150,000 at 4,000 members, growing with their square.
    expect(read).toBeLessThan(10 * MEMBERS);
    expect(Number((await db('events').where({ type: 'sequence.subscriber_added' }).count({ n: '*' }).first())!.n)).toBe(MEMBERS);
  });
});

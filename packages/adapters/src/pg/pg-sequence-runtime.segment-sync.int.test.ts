import { parseSegmentDefinition } from '@mailcast/domain';
import { createTestDatabase, eventually, Fixtures, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { PgSegmentRepository } from './pg-segment.repository';
import { PgSequenceRuntime } from './pg-sequence-runtime';

/**
 * The init_segment_id sync (docs/sequences.md, "init_segment_id"): ranges of subscriber ids, each
 * in a transaction of its own, the enrolment ids given up front so the events need no join, a
 * range rolled back and read again when another path enrolled one of its members meanwhile.
 */
describe('PgSequenceRuntime.enrolSegment', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  const parsed = parseSegmentDefinition('all', [{ field: 'tags', operator: 'includes', value: 'member' }]);
  if ('errors' in parsed) throw new Error(JSON.stringify(parsed.errors));
  const definition = parsed.definition;

  /** Members with ids in three ranges of the sync (ids far apart), non-members and another channel's between them. */
  const seeded = async (options: { active?: boolean } = {}) => {
    const db = database.db;
    const fixtures = new Fixtures(db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    const other = await fixtures.aChannel();
    const base = Number((await db.raw(`SELECT nextval('subscribers_id_seq') AS n`)).rows[0].n);
    const rows = [
      ...[0, 1, 2].map((i) => ({ id: base + i, channel_id: channel.id, email: `a${i}@example.test`, tags: ['member'] })),
      { id: base + 3, channel_id: channel.id, email: 'not-a-member@example.test', tags: ['other'] },
      { id: base + 150_000, channel_id: other.id, email: 'other-channel@example.test', tags: ['member'] },
      ...[0, 1].map((i) => ({ id: base + 150_001 + i, channel_id: channel.id, email: `b${i}@example.test`, tags: ['member'] })),
      { id: base + 350_000, channel_id: channel.id, email: 'c0@example.test', tags: ['member'] },
    ];
    await db('subscribers').insert(rows);
    await db.raw(`SELECT setval('subscribers_id_seq', ?)`, [base + 400_000]);
    const segment = await new PgSegmentRepository(db).create({ channelId: channel.id, name: 'members', description: null, definition }, new Date());
    const made = await fixtures.aSequence(channel.id, [{ action: 'delay', settings: { delay: 86_400 } }], { initSegmentId: segment.id, ...options });
    const members = rows.filter((r) => r.channel_id === channel.id && r.tags.includes('member'));
    return { ...made, members };
  };
  const runtime = () => new PgSequenceRuntime(database.db, throwawaySecretBox());
  const enrolments = (sequenceId: number) =>
    database.db('subscriber_sequences').where({ sequence_id: sequenceId }).orderBy('subscriber_id').select('id', 'subscriber_id', 'status', 'current_step_id');
  const addedEvents = async (sequenceId: number) =>
    (await database.db('events').where({ type: 'sequence.subscriber_added' }).orderBy('id').select('data'))
      .map((r) => r.data)
      .filter((d) => Number(d.sequence_id) === sequenceId);

  it('enrols every member across the ranges, each with one sequence.subscriber_added event naming its enrolment', async () => {
    const { sequence, entry, members } = await seeded();
    expect(await runtime().enrolSegment(sequence, definition, new Date())).toBe(members.length);

    const rows = await enrolments(sequence.id);
    expect(rows.map((r) => Number(r.subscriber_id))).toEqual(members.map((m) => m.id));
    expect(rows.every((r) => r.status === 'active' && Number(r.current_step_id) === entry)).toBe(true);
    const events = await addedEvents(sequence.id);
    expect(events.map((d) => d.subscriber_sequence_id).sort((a, b) => a - b)).toEqual(rows.map((r) => Number(r.id)).sort((a, b) => a - b));
    const first = rows[0]!;
    expect(events.find((d) => d.subscriber_sequence_id === Number(first.id))).toEqual({
      sequence_id: sequence.id,
      subscriber_sequence_id: Number(first.id),
      status: 'active',
      step_id: entry,
      subscriber: { id: members[0]!.id, email: members[0]!.email },
    });

    // Synced again: nothing new, no event.
    expect(await runtime().enrolSegment(sequence, definition, new Date())).toBe(0);
    expect(await addedEvents(sequence.id)).toHaveLength(members.length);
  });

  it('reads a range again when another path enrolled one of its members meanwhile, without a second enrolment or event', async () => {
    const { sequence, entry, members } = await seeded();
    const db = database.db;
    const now = new Date();
    // Another path's enrolment of the second member, not yet committed when the sync reads.
    const other = await db.transaction();
    await other('subscriber_sequences').insert({
      sequence_id: sequence.id,
      subscriber_id: members[1]!.id,
      channel_id: sequence.channelId,
      status: 'active',
      started_at: now,
      next_trigger_at: now,
      current_step_id: entry,
      created_at: now,
      updated_at: now,
    });
    const syncing = runtime().enrolSegment(sequence, definition, now);
    // The sync's insert waits on the uncommitted row of the same (sequence, subscriber)
    // (pg_stat_activity keeps the statement's first kilobyte)...
    await eventually(
      async () => {
        const { rows } = await db.raw(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'WITH entry AS MATERIALIZED%'`,
        );
        return rows[0].n > 0 ? true : undefined;
      },
      10_000,
      20,
    );
    // ...then fails on it once it commits, and the range is read again without it.
    await other.commit();
    expect(await syncing).toBe(members.length - 1);

    const rows = await enrolments(sequence.id);
    expect(rows.map((r) => Number(r.subscriber_id))).toEqual(members.map((m) => m.id));
    const events = await addedEvents(sequence.id);
    expect(events.map((d) => d.subscriber.id).sort((a, b) => a - b)).toEqual(members.filter((_, i) => i !== 1).map((m) => m.id));
  });

  it('enrols nobody into an inactive sequence', async () => {
    const { sequence } = await seeded({ active: false });
    expect(await runtime().enrolSegment(sequence, definition, new Date())).toBe(0);
    expect(await enrolments(sequence.id)).toEqual([]);
  });
});

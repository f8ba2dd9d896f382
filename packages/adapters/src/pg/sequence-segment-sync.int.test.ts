import { parseSegmentDefinition } from '@mailcast/domain';
import { createTestDatabase, Fixtures, throwawaySecretBox, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { createDatabase, type Database } from './database';
import { PgSegmentRepository } from './pg-segment.repository';
import { PgSequenceRuntime } from './pg-sequence-runtime';

/**
 * The segment sync's statement into an empty table whose statistics say so (docs/sequences.md,
 * "init_segment_id"): a nested-loop anti-join against the sequence's enrolments rescanned the
 * table per member, each rescan reading every page the statement had written so far.
 */
describe('PgSequenceRuntime.enrolSegment', () => {
  let database: TestDatabase;
  let single: Database;
  const MEMBERS = 4_000;

  beforeAll(async () => {
    database = await createTestDatabase();
    // One connection: its statistics are flushed by the statement after the sync's.
    single = createDatabase(database.url, { poolMax: 1 });
  });
  afterAll(async () => {
    await single.destroy();
    await database.drop();
  });

  /** Heap pages of subscriber_sequences read so far (hits and reads), as flushed by `single`. */
  const pagesRead = async () => {
    await single.raw('SELECT pg_stat_force_next_flush()');
    await single.raw('SELECT 1');
    const { rows } = await database.db.raw<{ rows: Array<{ pages: string }> }>(
      `SELECT coalesce(heap_blks_hit, 0) + coalesce(heap_blks_read, 0) AS pages FROM pg_statio_user_tables WHERE relname = 'subscriber_sequences'`,
    );
    return Number(rows[0]!.pages);
  };

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
    await db.raw('VACUUM ANALYZE subscriber_sequences');
    await db.raw('ANALYZE subscribers');

    const before = await pagesRead();
    expect(await new PgSequenceRuntime(single, throwawaySecretBox()).enrolSegment(sequence, parsed.definition, new Date())).toBe(MEMBERS);
    const read = (await pagesRead()) - before;
    // About six page visits per member (the insert, its conflict check, the events' read of the
    // rows); the rescanning plan made about 150,000 at 4,000 members, growing with their square.
    expect(read).toBeLessThan(10 * MEMBERS);
    expect(Number((await db('events').where({ type: 'sequence.subscriber_added' }).count({ n: '*' }).first())!.n)).toBe(MEMBERS);
  });
});

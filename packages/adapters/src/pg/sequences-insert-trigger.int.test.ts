import { createTestDatabase, type TestDatabase } from '@mailcast/testkit';

/**
 * docs/sequences.md, "Triggers and leaving": the tag trigger on inserts, once per statement over
 * the rows it inserted (migration 20261205400000). One INSERT of many rows, as a batch of
 * sign-ups or an import batch writes them.
 */
describe('the tag trigger on inserts', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(() => database.drop());

  const at = new Date('2026-11-30T03:00:00.000Z');
  const sequence = async (channelId: number, name: string, initTag: string, active = true) => {
    const [s] = await database
      .db('sequences')
      .insert({ channel_id: channelId, label: name, active, init_tag: initTag, created_at: at, updated_at: at })
      .returning('id');
    const [entry] = await database
      .db('sequence_steps')
      .insert({ sequence_id: s.id, action: 'entry_point', position: 0, created_at: at, updated_at: at })
      .returning('id');
    return { id: Number(s.id), entry: Number(entry.id) };
  };

  it('runs once per statement', async () => {
    const { rows } = await database.db.raw<{ rows: Array<{ row_level: boolean }> }>(
      `SELECT (tgtype & 1) = 1 AS row_level FROM pg_trigger WHERE tgname = 'subscribers_sequences_insert'`,
    );
    expect(rows).toEqual([{ row_level: false }]);
  });

  it('enrols each eligible inserted row in each active sequence of its channel that its tags start, in row order, each with its event', async () => {
    const db = database.db;
    const [channel] = await db('channels').insert({ name: 'Trigger' }).returning('id');
    const [other] = await db('channels').insert({ name: 'Other' }).returning('id');
    const a = await sequence(channel.id, 'A', 'a');
    const b = await sequence(channel.id, 'B', 'b');
    await sequence(channel.id, 'A off', 'a', false);
    await sequence(other.id, 'A elsewhere', 'a');
    await db('subscribers').insert({ channel_id: channel.id, email: 'there@example.com', tags: ['a'] });
    const before = Number((await db('events').max('id as id').first())?.id ?? 0);

    const row = (email: string, extra: object = {}) => ({ channel_id: channel.id, email, tags: ['a', 'b'], created_at: at, updated_at: at, ...extra });
    const inserted = (await db('subscribers')
      .insert([
        row('both@example.com'),
        row('unconfirmed@example.com', { requires_confirmation: true }),
        row('inactive@example.com', { is_active: false }),
        row('untagged@example.com', { tags: [] }),
        row('only-b@example.com', { tags: ['b', 'b', 'z'] }),
        row('confirmed@example.com', { tags: ['a'], requires_confirmation: true, confirmed_at: at }),
        row('there@example.com'),
      ])
      .onConflict(['channel_id', 'email'])
      .ignore()
      .returning(['id', 'email'])) as Array<{ id: number; email: string }>;
    const idOf = (email: string) => inserted.find((r) => r.email === email)!.id;

    const enrolments = await db('subscriber_sequences')
      .whereIn(
        'subscriber_id',
        inserted.map((r) => r.id),
      )
      .orderBy('id')
      .select('sequence_id', 'subscriber_id', 'status', 'current_step_id', 'started_at', 'next_trigger_at');
    const expected = [
      [a, 'both@example.com'],
      [b, 'both@example.com'],
      [b, 'only-b@example.com'],
      [a, 'confirmed@example.com'],
    ] as const;
    expect(enrolments).toEqual(
      expected.map(([s, email]) => ({
        sequence_id: s.id,
        subscriber_id: idOf(email),
        status: 'active',
        current_step_id: s.entry,
        started_at: at,
        next_trigger_at: at,
      })),
    );

    const events = await db('events').where('id', '>', before).orderBy('id').select('channel_id', 'type', 'data', 'created_at');
    const added = events.filter((e) => e.type === 'sequence.subscriber_added');
    expect(added).toEqual(
      expected.map(([s, email]) => ({
        channel_id: channel.id,
        type: 'sequence.subscriber_added',
        data: {
          sequence_id: s.id,
          subscriber_sequence_id: expect.any(Number),
          status: 'active',
          step_id: s.entry,
          subscriber: { id: idOf(email), email },
        },
        created_at: at,
      })),
    );
  });

  it('does nothing for a statement that inserted nothing tagged', async () => {
    const db = database.db;
    const [channel] = await db('channels').insert({ name: 'Quiet' }).returning('id');
    await sequence(channel.id, 'A', 'a');
    await db('subscribers').insert([
      { channel_id: channel.id, email: 'one@example.com' },
      { channel_id: channel.id, email: 'two@example.com', tags: ['unrelated'] },
    ]);
    const count = await db('subscriber_sequences as e')
      .join('sequences as s', 's.id', 'e.sequence_id')
      .where('s.channel_id', channel.id)
      .count<{ count: string }[]>('* as count');
    expect(Number(count[0]!.count)).toBe(0);
  });
});

import { createTestDatabase, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { PgSequenceRepository } from './pg-sequence.repository';

/**
 * A sequence email's rows have no keys to its sequence and step (migration
 * 20261205100000_sequence_email_keys), nor an enrolment to its step and channel (migration
 * 20261205200000_enrolment_keys), so the deletes do what the keys did.
 */
describe('PgSequenceRepository deletes', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  /** A sequence of two email steps whose one enrolment was sent both, with runs and events. */
  const sent = async () => {
    const db = database.db;
    const fixtures = new Fixtures(db, createBoss(database.url, 'api'));
    const channel = await fixtures.aChannel();
    const subscriber = await fixtures.aSubscriber(channel.id, 'reader@example.test');
    const email = { action: 'send_email', settings: { subject: 'Hi', body: 'Hello' } } as const;
    const { sequence, steps } = await fixtures.aSequence(channel.id, [email, email]);
    const now = new Date();
    const [enrolment] = await db('subscriber_sequences')
      .insert({
        sequence_id: sequence.id,
        subscriber_id: subscriber.id,
        channel_id: channel.id,
        status: 'completed',
        started_at: now,
        created_at: now,
        updated_at: now,
      })
      .returning('id');
    for (const step of steps) {
      await db('sequence_step_runs').insert({ enrolment_id: enrolment.id, step_id: step, created_at: now });
      await db('email_events').insert(
        ['processed', 'delivered'].map((type) => ({
          channel_id: channel.id,
          subscriber_id: subscriber.id,
          type,
          occurred_at: now,
          data: '{}',
          sequence_id: sequence.id,
          sequence_step_id: step,
        })),
      );
    }
    return { sequence, steps, enrolment: Number(enrolment.id) };
  };
  const eventsOf = (sequenceId: number) => database.db('email_events').where({ sequence_id: sequenceId }).orderBy('id').select('sequence_step_id');

  it('deleting steps deletes their runs and clears them from their email events, which stay with the sequence', async () => {
    const { sequence, steps } = await sent();
    await new PgSequenceRepository(database.db).reshape([], [steps[1]!], new Date());

    expect((await database.db('sequence_step_runs').whereIn('step_id', steps).select('step_id')).map((r) => Number(r.step_id))).toEqual([steps[0]]);
    expect((await eventsOf(sequence.id)).map((r) => (r.sequence_step_id === null ? null : Number(r.sequence_step_id)))).toEqual([
      steps[0],
      steps[0],
      null,
      null,
    ]);
  });

  it('deleting steps clears them from the enrolments that ended on them; the others keep theirs', async () => {
    const { sequence, steps, enrolment } = await sent();
    const db = database.db;
    const other = await db('subscribers').insert({ channel_id: sequence.channelId, email: 'other@example.test' }).returning('id');
    const now = new Date();
    const [kept] = await db('subscriber_sequences')
      .insert({
        sequence_id: sequence.id,
        subscriber_id: other[0].id,
        channel_id: sequence.channelId,
        status: 'removed',
        current_step_id: steps[0],
        started_at: now,
        created_at: now,
        updated_at: now,
      })
      .returning('id');
    await db('subscriber_sequences').where({ id: enrolment }).update({ status: 'error', current_step_id: steps[1] });
    await new PgSequenceRepository(db).reshape([], [steps[1]!], now);

    const stepOf = async (id: number) => (await db('subscriber_sequences').where({ id }).first('current_step_id')).current_step_id;
    expect(await stepOf(enrolment)).toBeNull();
    expect(Number(await stepOf(Number(kept.id)))).toBe(steps[0]);
  });

  it("deleting a channel deletes its sequences' enrolments through the sequences", async () => {
    const { sequence, enrolment } = await sent();
    await database.db('channels').where({ id: sequence.channelId }).delete();

    expect(await database.db('subscriber_sequences').where({ id: enrolment })).toEqual([]);
  });

  it("deleting a sequence deletes its email events, and its enrolments' runs with them", async () => {
    const { sequence, enrolment } = await sent();
    const other = await sent();
    await new PgSequenceRepository(database.db).delete(sequence.channelId, sequence.id);

    expect(await eventsOf(sequence.id)).toEqual([]);
    expect(await database.db('sequence_step_runs').where({ enrolment_id: enrolment })).toEqual([]);
    expect(await eventsOf(other.sequence.id)).toHaveLength(4);
  });

  it('deletes nothing of another channel', async () => {
    const { sequence } = await sent();
    await new PgSequenceRepository(database.db).delete(sequence.channelId + 1_000_000, sequence.id);

    expect(await eventsOf(sequence.id)).toHaveLength(4);
  });
});

import { createBoss, loadConfig } from '@mailcast/adapters';
import { Clock, Mailer, PriorityMailer, RunSequenceSteps, SequenceRuntimeOptions, Timers } from '@mailcast/core';
import { memoryLogger, testClock } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import request from 'supertest';
import type { DependencyContainer } from 'tsyringe';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';
import { buildContainer } from '../container';

/** docs/sequences.md, "Runtime": the dispatcher walks enrolments through their steps. */
describe('the sequence step runtime (real PostgreSQL, through the API)', () => {
  let api: ApiHarness;
  let boss: PgBoss;
  let token: string;
  let channelId: number;
  const time = testClock();
  const dispatchers: DependencyContainer[] = [];

  const dispatcher = () => {
    const container = buildContainer({ config: loadConfig({ DATABASE_URL: api.database.url }), logger: memoryLogger().logger, db: api.database.db, boss }, [
      { token: Clock, value: time.clock },
      { token: Timers, value: time.timers },
    ]);
    container.registerInstance(SequenceRuntimeOptions, { leaseMs: 10_000, claimBatchSize: 7, concurrency: 4 });
    dispatchers.push(container);
    return container;
  };

  beforeAll(async () => {
    api = await startApi({ overrides: [{ token: Clock, value: time.clock }] });
    boss = createBoss(api.database.url, 'dispatcher');
    boss.on('error', () => undefined);
    await boss.start();
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });
  afterAll(async () => {
    for (const d of dispatchers) await Promise.all([d.resolve<Mailer>(Mailer).close(), d.resolve<Mailer>(PriorityMailer).close()]);
    await boss.stop({ graceful: false, close: true, wait: true });
    await api.close();
  });

  const post = (path: string, body: object = {}) => request(api.app).post(path).set('Authorization', `Bearer ${token}`).send(body);
  const get = (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`);
  const run = (d: DependencyContainer = dispatcher()) => d.resolve(RunSequenceSteps).execute();

  /** A sequence with the given steps, each appended to the main line; answers its id and step ids. */
  async function sequence(steps: object[], settings: object = {}): Promise<{ id: number; steps: number[] }> {
    const id = (await post('/api/v1/sequences', { active: true, ...settings })).body.id as number;
    const ids: number[] = [];
    for (const step of steps) {
      const created = await post(`/api/v1/sequences/${id}/steps`, step);
      expect(created.status).toBe(201);
      ids.push(created.body.id as number);
    }
    return { id, steps: ids };
  }
  const enrol = async (id: number, email: string) => expect((await post(`/api/v1/sequences/${id}/add_subscriber`, { email })).status).toBe(201);
  const enrolment = async (id: number, email: string) =>
    (await api.database
      .db('subscriber_sequences as e')
      .join('subscribers as s', 's.id', 'e.subscriber_id')
      .where({ 'e.sequence_id': id, 's.email': email })
      .first('e.status', 'e.current_step_id', 'e.next_trigger_at', 'e.completed_at')) as {
      status: string;
      current_step_id: number | null;
      next_trigger_at: Date | null;
      completed_at: Date | null;
    };
  const tagsOf = async (email: string) => ((await get(`/api/v1/subscribers/find.json?email=${encodeURIComponent(email)}`)).body as { tags: string[] }).tags;
  const sequenceEvents = async (id: number) =>
    (
      (await api.database
        .db('events')
        .where({ channel_id: channelId })
        .whereLike('type', 'sequence.%')
        .whereRaw(`(data->>'sequence_id')::bigint = ?`, [id])
        .orderBy('id')
        .select('type', 'data')) as Array<{ type: string; data: Record<string, unknown> }>
    ).map((e) => [e.type, e.data.status, (e.data.subscriber as { email: string }).email, e.data.target_sequence_id]);

  it('runs a step at once, waits a delay counted from reaching it, then finishes the path with its event', async () => {
    const s = await sequence([
      { action: 'add_tag_to_subscriber', tags: ['welcomed'] },
      { action: 'delay', delay: 3600 },
      { action: 'remove_tag_from_subscriber', tags: ['welcomed'] },
    ]);
    await enrol(s.id, 'walk@example.com');
    const reached = time.current();
    expect(await run()).toBe('exhausted');
    expect(await tagsOf('walk@example.com')).toEqual(['welcomed']);
    // Waiting at the delay, due an hour after it was reached.
    expect(await enrolment(s.id, 'walk@example.com')).toMatchObject({ status: 'active', current_step_id: s.steps[1] });
    expect((await enrolment(s.id, 'walk@example.com')).next_trigger_at!.getTime()).toBe(reached + 3_600_000);

    time.advance(3_599_000);
    await run();
    expect(await tagsOf('walk@example.com')).toEqual(['welcomed']);
    time.advance(1_000);
    await run();
    expect(await tagsOf('walk@example.com')).toEqual([]);
    expect(await enrolment(s.id, 'walk@example.com')).toMatchObject({ status: 'completed', completed_at: new Date(time.current()) });
    expect(await sequenceEvents(s.id)).toEqual([
      ['sequence.subscriber_added', 'active', 'walk@example.com', undefined],
      ['sequence.subscriber_completed', 'completed', 'walk@example.com', undefined],
    ]);
  });

  it('waits for a wall-clock time on the next day in the step’s time zone', async () => {
    const s = await sequence([
      { action: 'delay_until_time', time: '09:30', timezone: 'America/New_York' },
      { action: 'add_tag_to_subscriber', tags: ['morning'] },
    ]);
    await enrol(s.id, 'clock@example.com');
    await run();
    const due = (await enrolment(s.id, 'clock@example.com')).next_trigger_at!;
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(due);
    expect(local).toBe('09:30');
    expect(due.getTime() - time.current()).toBeGreaterThan(0);
    expect(due.getTime() - time.current()).toBeLessThanOrEqual(48 * 3_600_000);
    expect(await tagsOf('clock@example.com')).toEqual([]);
  });

  it('takes a condition’s false branch while no email of the enrolment was opened', async () => {
    const id = (await post('/api/v1/sequences', { active: true })).body.id as number;
    const condition = (await post(`/api/v1/sequences/${id}/steps`, { action: 'condition', condition_setting: 'any_email_opened' })).body;
    const branches = (
      (await get(`/api/v1/sequences/${id}/steps`)).body.data as Array<{ id: number; action: string; branch?: boolean; parent_id: number }>
    ).filter((st) => st.parent_id === condition.id);
    const [yes, no] = [branches.find((b) => b.branch === true)!, branches.find((b) => b.branch === false)!];
    await post(`/api/v1/sequences/${id}/steps`, { action: 'add_tag_to_subscriber', tags: ['opened'], parent_id: yes.id });
    await post(`/api/v1/sequences/${id}/steps`, { action: 'add_tag_to_subscriber', tags: ['not-opened'], parent_id: no.id });
    await enrol(id, 'cond@example.com');
    await run();
    expect(await tagsOf('cond@example.com')).toEqual(['not-opened']);
    expect((await enrolment(id, 'cond@example.com')).status).toBe('completed');
  });

  it('moves a subscriber to another sequence: completed here with the target named, started there', async () => {
    const target = await sequence([{ action: 'add_tag_to_subscriber', tags: ['in-target'] }]);
    const source = await sequence([
      { action: 'move_to_sequence', target_sequence_id: target.id },
      { action: 'add_tag_to_subscriber', tags: ['never'] },
    ]);
    await enrol(source.id, 'mover@example.com');
    await run();
    expect(await tagsOf('mover@example.com')).toEqual(['in-target']);
    expect((await enrolment(source.id, 'mover@example.com')).status).toBe('completed');
    expect((await enrolment(target.id, 'mover@example.com')).status).toBe('completed');
    expect(await sequenceEvents(source.id)).toEqual([
      ['sequence.subscriber_added', 'active', 'mover@example.com', undefined],
      ['sequence.subscriber_moved', 'completed', 'mover@example.com', target.id],
    ]);
    expect((await sequenceEvents(target.id)).map((e) => e[0])).toEqual(['sequence.subscriber_added', 'sequence.subscriber_completed']);
  });

  it('a subscriber deactivated by a step leaves every sequence, and nothing after the step runs', async () => {
    const other = await sequence([{ action: 'delay', delay: 60 }]);
    const s = await sequence([{ action: 'deactivate_subscriber' }, { action: 'add_tag_to_subscriber', tags: ['after'] }]);
    await enrol(other.id, 'leaver@example.com');
    await enrol(s.id, 'leaver@example.com');
    await run();
    expect((await enrolment(s.id, 'leaver@example.com')).status).toBe('removed');
    expect((await enrolment(other.id, 'leaver@example.com')).status).toBe('removed');
    time.advance(120_000);
    await run();
    expect(await tagsOf('leaver@example.com')).toEqual([]);
  });

  it('unsubscribing during a delay removes the enrolment: the later steps never run', async () => {
    const s = await sequence([
      { action: 'delay', delay: 600 },
      { action: 'add_tag_to_subscriber', tags: ['late'] },
    ]);
    await enrol(s.id, 'quitter@example.com');
    await run();
    expect((await post('/api/v1/subscribers/unsubscribe.json', { email: 'quitter@example.com' })).status).toBe(200);
    time.advance(600_000);
    await run();
    expect(await tagsOf('quitter@example.com')).toEqual([]);
    expect((await enrolment(s.id, 'quitter@example.com')).status).toBe('removed');
  });

  it('parks an enrolment of a switched-off sequence at its next step, and goes on when switched on', async () => {
    const s = await sequence([
      { action: 'delay', delay: 30 },
      { action: 'add_tag_to_subscriber', tags: ['resumed'] },
    ]);
    await enrol(s.id, 'parked@example.com');
    await run();
    expect((await request(api.app).patch(`/api/v1/sequences/${s.id}`).set('Authorization', `Bearer ${token}`).send({ active: false })).status).toBe(200);
    time.advance(60_000);
    await run();
    expect((await enrolment(s.id, 'parked@example.com')).status).toBe('paused');
    expect(await tagsOf('parked@example.com')).toEqual([]);
    await request(api.app).patch(`/api/v1/sequences/${s.id}`).set('Authorization', `Bearer ${token}`).send({ active: true });
    await run();
    expect(await tagsOf('parked@example.com')).toEqual(['resumed']);
  });

  it('leaves an enrolment waiting at a step it does not run yet (send_email), claimed by nobody', async () => {
    const s = await sequence([{ subject: 'Hello' }, { action: 'add_tag_to_subscriber', tags: ['after-email'] }]);
    await enrol(s.id, 'mail@example.com');
    await run();
    expect(await enrolment(s.id, 'mail@example.com')).toMatchObject({ status: 'active', current_step_id: s.steps[0] });
    expect(await tagsOf('mail@example.com')).toEqual([]);
  });

  it('two dispatchers sharing 60 due enrolments run each step once: no tag event twice, none missing', async () => {
    const s = await sequence([
      { action: 'add_tag_to_subscriber', tags: ['once'] },
      { action: 'add_tag_to_subscriber', tags: ['twice-guard'] },
    ]);
    const emails = Array.from({ length: 60 }, (_, i) => `shared${i}@example.com`);
    for (const email of emails) await enrol(s.id, email);
    const since = (await api.database.db('events').max('id as id').first()) as { id: number };
    await Promise.all([run(dispatcher()), run(dispatcher())]);
    const runs = await api.database.db('sequence_step_runs').whereIn('step_id', s.steps).count<{ count: string }[]>('* as count');
    expect(Number(runs[0]!.count)).toBe(120);
    const updates = await api.database
      .db('events')
      .where({ channel_id: channelId, type: 'subscriber.updated' })
      .where('id', '>', since.id)
      .count<{ count: string }[]>('* as count');
    expect(Number(updates[0]!.count)).toBe(120);
    for (const email of emails.slice(0, 5)) expect(await tagsOf(email)).toEqual(['once', 'twice-guard']);
    const statuses = await api.database.db('subscriber_sequences').where({ sequence_id: s.id }).distinct('status');
    expect(statuses).toEqual([{ status: 'completed' }]);
  });
});

import { createBoss, loadConfig, type Infrastructure } from '@mailcast/adapters';
import { DecideSubjectTest, Mailer, RecordOpen } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { createTestDatabase, dispatcherProcesses, eventually, Fixtures, memoryLogger, PERSON_USER_AGENT, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer } from '../container';

/**
 * docs/subject-tests.md: a subject test whose winner is decided while the dispatcher that started
 * the send is dead. The decision is a pg-boss job waiting in the database, so a second dispatcher
 * decides it, once, on human opens only, and sends the winner to the rest.
 */
describe('a subject test decided after the dispatcher that started it was killed', () => {
  let database: TestDatabase;
  let boss: PgBoss;
  let fixtures: Fixtures;
  let smtp: SmtpCapture;
  let container: DependencyContainer;
  const dispatchers = dispatcherProcesses();

  beforeAll(async () => {
    database = await createTestDatabase();
    boss = createBoss(database.url, 'api');
    await boss.start();
    fixtures = new Fixtures(database.db, boss);
    smtp = await startSmtpCapture();
    // This process only records opens and asks for a second decision; the dispatchers send.
    const infra: Infrastructure = {
      config: loadConfig({ DATABASE_URL: database.url, PUBLIC_URL: 'http://links.example.test' }),
      logger: memoryLogger().logger,
      db: database.db,
      boss,
    };
    container = buildContainer(infra);
  });
  afterAll(async () => {
    await container.resolve<Mailer>(Mailer).close();
    await smtp.close();
    await boss.stop({ graceful: false, close: true, wait: true });
    await database.drop();
  });

  const dispatcher = () => dispatchers.start(database.url, { MAILCAST_SEND_LEASE_MS: '1500', MAILCAST_SEND_SWEEP_MS: '500' });
  const SUBJECTS = ['Subject A', 'Subject B'];

  async function received(wanted: Set<string>) {
    const mine = smtp.messages.filter((m) => wanted.has(m.to[0]!));
    return Promise.all(mine.map(async (m) => ({ to: m.to[0]!, ...(await parseEmail(m.raw)) })));
  }

  it('decides once on human opens, emits one event, and the rest get exactly the winner', async () => {
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    const email = (i: number) => `p${i}@c${channel.id}.example.test`;
    const everyone = Array.from({ length: 40 }, (_, i) => email(i));
    await database.db('subscribers').insert(everyone.map((e) => ({ channel_id: channel.id, email: e, is_active: true })));
    const b = await fixtures.aBroadcast(channel.id, { subject: 'Base subject', body: 'Hello' });
    const test = { subjects: SUBJECTS, sample_percent: 50, metric: 'human_opens', wait_minutes: 1 };
    await database
      .db('broadcasts')
      .where({ id: b.id })
      .update({ status: 'scheduled', version: 1, track_opens: true, ab_test: JSON.stringify(test) });
    const wanted = new Set(everyone);

    const first = dispatcher();
    await boss.send('broadcasts.send', { broadcastId: b.id }, { retryLimit: 0 });
    // The sample (50% of 40: 10 per subject) goes; the other 20 are held.
    await eventually(async () => ((await received(wanted)).length >= 20 ? true : undefined), 60_000, 50);
    await eventually(
      async () => {
        const rows = await database.db('broadcast_recipients').where({ broadcast_id: b.id, status: 'sent' }).count({ n: '*' });
        return Number(rows[0]!.n) === 20 ? true : undefined;
      },
      30_000,
      50,
    );
    const sample = await received(wanted);
    expect(sample).toHaveLength(20);
    const bySubject = (subject: string) => sample.filter((m) => m.subject === subject);
    expect([bySubject('Subject A').length, bySubject('Subject B').length]).toEqual([10, 10]);
    const held = await database.db('broadcast_recipients').where({ broadcast_id: b.id, status: 'pending' }).whereNull('ab_variant').pluck('next_attempt_at');
    expect(held).toHaveLength(20);
    expect(held.every((at: unknown) => at === Infinity)).toBe(true);
    expect((await database.db('broadcasts').where({ id: b.id }).first('status')).status).toBe('sending');

    // One decision job, due wait_minutes after sending began; a second one for the key is refused.
    const jobs = () =>
      database.db.raw(`SELECT id, state, start_after FROM pgboss.job WHERE name = 'broadcasts.ab_decide' AND (data->>'broadcastId')::bigint = ?`, [b.id]);
    const { begin_send_at, ab_decide_at } = await database.db('broadcasts').where({ id: b.id }).first('begin_send_at', 'ab_decide_at');
    const job = (await jobs()).rows;
    expect(job).toHaveLength(1);
    expect(job[0].state).toBe('created');
    // Due a minute after sending started (queueing took the moments between).
    expect(job[0].start_after).toEqual(ab_decide_at);
    expect(ab_decide_at.getTime() - begin_send_at.getTime()).toBeGreaterThanOrEqual(60_000);
    expect(ab_decide_at.getTime() - begin_send_at.getTime()).toBeLessThan(70_000);
    expect(await boss.send('broadcasts.ab_decide', { broadcastId: b.id }, { singletonKey: `ab_decide:${b.id}` })).toBeNull();

    // Machines open eight of Subject A's emails; people open two of Subject B's. Counting machines, A would win.
    const token = (html: string | undefined) => /\/t\/o\/([A-Za-z0-9_-]+)/.exec(html ?? '')![1]!;
    const open = (m: { html?: string }, person: boolean) =>
      container.resolve(RecordOpen).execute({
        token: token(m.html),
        request: person ? { method: 'GET', userAgent: PERSON_USER_AGENT, isKnownBot: false } : { method: 'GET', userAgent: 'Googlebot/2.1', isKnownBot: true },
      });
    for (const m of bySubject('Subject A').slice(0, 8)) expect(await open(m, false)).toBe(true);
    for (const m of bySubject('Subject B').slice(0, 2)) expect(await open(m, true)).toBe(true);

    // The dispatcher that started the send dies.
    first.child.kill('SIGKILL');
    await first.exited;

    // A minute passes: the test moves the stored instants (the decision's due time and its job's)
    // to now, as the clock would, rather than wait.
    await database
      .db('broadcasts')
      .where({ id: b.id })
      .update({ ab_decide_at: database.db.raw('now()') });
    await database.db.raw(`UPDATE pgboss.job SET start_after = now() WHERE name = 'broadcasts.ab_decide' AND (data->>'broadcastId')::bigint = ?`, [b.id]);
    dispatcher();

    const done = await eventually(
      async () => {
        const row = await database.db('broadcasts').where({ id: b.id }).first();
        return ['sent', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
      },
      60_000,
      200,
    );
    expect(done).toMatchObject({ status: 'sent', total_recipients: 40, broadcast_recipients_count: 40, ab_winner: 1 });
    expect(done.ab_decided_at).toBeInstanceOf(Date);

    // Everyone got exactly one email; the rest got the winner's subject.
    const all = await received(wanted);
    expect(all.map((m) => m.to).sort()).toEqual([...everyone].sort());
    const sampled = new Set(sample.map((m) => m.to));
    const rest = all.filter((m) => !sampled.has(m.to));
    expect(rest).toHaveLength(20);
    expect(new Set(rest.map((m) => m.subject))).toEqual(new Set(['Subject B']));

    // Decided once: one event with the figures, and a second attempt changes nothing.
    expect(await container.resolve(DecideSubjectTest).execute({ broadcastId: b.id })).toBe('already_decided');
    const events = await database.db('events').where({ channel_id: channel.id, type: 'broadcast.ab_test_decided' });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({
      broadcast_id: b.id,
      metric: 'human_opens',
      winner: { index: 1, subject: 'Subject B' },
      variants: [
        { subject: 'Subject A', sent: 10, human_opens: 0, human_clicks: 0 },
        { subject: 'Subject B', sent: 10, human_opens: 2, human_clicks: 0 },
      ],
      decided_at: done.ab_decided_at.toISOString(),
    });
    expect((await database.db('broadcasts').where({ id: b.id }).first('ab_winner')).ab_winner).toBe(1);
  }, 120_000);
});

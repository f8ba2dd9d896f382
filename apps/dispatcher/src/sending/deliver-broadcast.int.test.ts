import { createBoss, DEFAULT_CONNECTIONS_PER_SERVER, loadConfig, type Infrastructure } from '@mailcast/adapters';
import { Clock, DeliverBroadcast, Mailer, SendingOptions, Timers, defaultSendingOptions, type Channel } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type RecipientVerdict, type SmtpCapture } from '@mailcast/devkit';
import { createTestDatabase, Fixtures, freePort, memoryLogger, testClock, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer } from '../container';

const PUBLIC_URL = 'http://mail.example.test';

describe('DeliverBroadcast (real PostgreSQL, real SMTP)', () => {
  let database: TestDatabase;
  let boss: PgBoss;
  let fixtures: Fixtures;
  let smtp: SmtpCapture;
  let verdicts: Map<string, RecipientVerdict[]>;
  let container: DependencyContainer;
  // Time only moves when a test says so: retries are due when the clock is advanced.
  const time = testClock();
  const advance = time.advance;

  /** Called as the SMTP server hears each recipient: a test's way to act mid-send. */
  let onRecipient: ((rcpt: string) => void) | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    boss = createBoss(database.url, 'api');
    await boss.start();
    fixtures = new Fixtures(database.db, boss);
    verdicts = new Map();
    smtp = await startSmtpCapture({
      verdictFor: (rcpt) => {
        onRecipient?.(rcpt);
        return verdicts.get(rcpt)?.shift();
      },
    });
    const infra: Infrastructure = {
      config: loadConfig({ DATABASE_URL: database.url, SMTP_ALLOW_PRIVATE: 'true' }),
      logger: memoryLogger().logger,
      db: database.db,
      boss,
    };
    const options: SendingOptions = {
      ...defaultSendingOptions(PUBLIC_URL, DEFAULT_CONNECTIONS_PER_SERVER),
      leaseMs: 2_000,
      retryScheduleMs: [60_000, 60_000],
      helperJobs: 0,
    };
    container = buildContainer(infra, [
      { token: SendingOptions, value: options },
      { token: Clock, value: time.clock },
      { token: Timers, value: time.timers },
    ]);
  });
  afterAll(async () => {
    await container.resolve<Mailer>(Mailer).close();
    await smtp.close();
    await boss.stop({ graceful: false, close: true, wait: true });
    await database.drop();
  });

  async function aChannelWithServer(port = smtp.port): Promise<Channel> {
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test', fromName: 'News' });
    await fixtures.aCaptureServer(channel.id, port);
    return channel;
  }

  /** Inserts subscribers by SQL; returns their ids in order. */
  async function subscribers(channelId: number, count: number, row: (i: number) => Record<string, unknown> = () => ({})): Promise<number[]> {
    const rows = Array.from({ length: count }, (_, i) => ({
      channel_id: channelId,
      email: `user${i}@c${channelId}.example.test`,
      first_name: `First${i}`,
      last_name: `Last${i}`,
      custom_data: JSON.stringify({ n: i }),
      ...row(i),
    }));
    const inserted = await database.db('subscribers').insert(rows).returning('id');
    return inserted.map((r: { id: number }) => r.id);
  }

  async function scheduled(channelId: number, overrides: Parameters<Fixtures['aBroadcast']>[1] = {}) {
    const b = await fixtures.aBroadcast(channelId, overrides);
    await database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled', version: 1 });
    return b;
  }

  const deliver = (broadcastId: number) => container.resolve(DeliverBroadcast).execute({ broadcastId });

  async function events(type: string, channelId: number) {
    return (await database.db('events').where({ type, channel_id: channelId }).orderBy('id')) as Array<{ data: Record<string, unknown> }>;
  }

  it('sends once to every sendable subscriber, personalised, and never to the others', async () => {
    const channel = await aChannelWithServer();
    // 0–199 active; 200–219 inactive; 220–239 double opt-in unconfirmed; 240–249 confirmed.
    await subscribers(channel.id, 250, (i) => ({
      is_active: !(i >= 200 && i < 220),
      requires_confirmation: i >= 220,
      confirmed_at: i >= 240 ? new Date() : null,
    }));
    const b = await scheduled(channel.id, {
      subject: 'Hi {{ subscriber.first_name }}',
      body: 'Dear {{ subscriber.first_name }} {{ subscriber.last_name }}, number {{ subscriber.custom_data.n }}.',
      replyTo: 'reply@example.test',
      emailHeaders: [
        { key: 'X-Campaign', value: 'spring' },
        { key: 'From', value: 'evil@example.test' },
      ],
    });
    const before = smtp.messages.length;

    expect(await deliver(b.id)).toBe('finished');

    const mine = smtp.messages.slice(before);
    const to = mine.map((m) => m.to[0]!);
    const expected = Array.from({ length: 250 }, (_, i) => i)
      .filter((i) => i < 200 || i >= 240)
      .map((i) => `user${i}@c${channel.id}.example.test`);
    expect([...to].sort()).toEqual([...expected].sort());
    expect(new Set(to).size).toBe(210);

    const sample = await parseEmail(mine.find((m) => m.to[0] === `user7@c${channel.id}.example.test`)!.raw);
    expect(sample.subject).toBe('Hi First7');
    expect(sample.text).toContain('Dear First7 Last7, number 7.');
    expect(sample.html).toContain('Dear First7 Last7, number 7.');
    expect(sample.from).toEqual({ address: 'news@example.test', name: 'News' });
    expect(sample.replyTo).toBe('reply@example.test');
    expect(sample.headers['x-campaign']).toBe('spring');
    expect(sample.headers['list-unsubscribe']).toMatch(new RegExp(`^<${PUBLIC_URL}/u/\\d+-[A-Za-z0-9_-]{22}>$`));
    expect(sample.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(sample.html).toMatch(new RegExp(`<img src="${PUBLIC_URL}/t/o/\\d+-[A-Za-z0-9_-]{22}"`));
    const recipient = await database
      .db('broadcast_recipients as r')
      .join('subscribers as s', 's.id', 'r.subscriber_id')
      .where({ 'r.broadcast_id': b.id, 's.email': `user7@c${channel.id}.example.test` })
      .first('r.id', 'r.message_id', 'r.status');
    expect(sample.messageId).toBe(recipient.message_id);
    expect(sample.headers['list-unsubscribe']).toContain(`/u/${recipient.id}-`);

    const after = await database.db('broadcasts').where({ id: b.id }).first();
    expect(after).toMatchObject({ status: 'sent', total_recipients: 210, broadcast_recipients_count: 210 });
    expect(after.sent_at).toBeInstanceOf(Date);
    expect(after.begin_send_at).toBeInstanceOf(Date);
    expect((await events('email.sent', channel.id)).length).toBe(210);
    expect((await events('email.delivered', channel.id)).length).toBe(210);
    const statuses = (await database.db('events').where({ channel_id: channel.id }).where('type', 'like', 'broadcast.%').orderBy('id')).map(
      (e: { type: string; data: { status: string; percentage_complete: number } }) => [e.type, e.data.status, e.data.percentage_complete],
    );
    expect(statuses).toEqual([
      ['broadcast.queueing', 'queueing', 0],
      ['broadcast.sending', 'sending', 0],
      ['broadcast.sent', 'sent', 100],
    ]);
    const delivered = (await events('email.delivered', channel.id))[0]!.data;
    expect(delivered).toMatchObject({ receipted_type: 'Broadcast', receipted_id: b.id, delivered: true, bounced: false });
    const kinds = (await database.db.raw('SELECT type, count(*)::int AS n FROM email_events WHERE broadcast_id = ? GROUP BY type', [b.id])).rows;
    expect(Object.fromEntries(kinds.map((k: { type: string; n: number }) => [k.type, k.n]))).toEqual({ processed: 210, delivered: 210 });

    // A second run finds nothing to do and sends nothing.
    expect(await deliver(b.id)).toBe('nothing_to_do');
    expect(smtp.messages.length - before).toBe(210);
  });

  it('targets the members of its segments only', async () => {
    const channel = await aChannelWithServer();
    const ids = await subscribers(channel.id, 10);
    // Membership is by rules (docs/segments.md): the first three addresses, any of them.
    const rules = [0, 1, 2].map((i) => ({ field: 'email', operator: 'equals', value: `user${i}@c${channel.id}.example.test` }));
    const [segment] = await database
      .db('segments')
      .insert({ channel_id: channel.id, name: 'VIP', match: 'any', rules: JSON.stringify(rules) })
      .returning('id');
    expect(ids).toHaveLength(10);
    const b = await scheduled(channel.id, { segmentIds: [segment.id] });
    const before = smtp.messages.length;
    expect(await deliver(b.id)).toBe('finished');
    expect(
      smtp.messages
        .slice(before)
        .map((m) => m.to[0])
        .sort(),
    ).toEqual([0, 1, 2].map((i) => `user${i}@c${channel.id}.example.test`));
  });

  it('skips a subscriber who became inactive after queueing', async () => {
    const channel = await aChannelWithServer();
    const ids = await subscribers(channel.id, 5);
    const b = await scheduled(channel.id);
    const store = fixtures.repositories.recipients;
    await store.materialize((await store.findBroadcast(b.id))!, 0, Number.MAX_SAFE_INTEGER, 100, `x@${new URL(PUBLIC_URL).hostname}`);
    await database.db('broadcasts').where({ id: b.id }).update({ status: 'queueing' });
    await database.db('subscribers').where({ id: ids[2] }).update({ is_active: false });
    const before = smtp.messages.length;

    expect(await deliver(b.id)).toBe('finished');

    expect(
      smtp.messages
        .slice(before)
        .map((m) => m.to[0])
        .sort(),
    ).toEqual([0, 1, 3, 4].map((i) => `user${i}@c${channel.id}.example.test`));
    const rows = await database.db('broadcast_recipients').where({ broadcast_id: b.id }).orderBy('subscriber_id').pluck('status');
    expect(rows).toEqual(['sent', 'sent', 'skipped', 'sent', 'sent']);
    expect(await database.db('broadcasts').where({ id: b.id }).first()).toMatchObject({
      status: 'sent',
      total_recipients: 5,
      broadcast_recipients_count: 5,
    });
  });

  it('hard-bounces a 5xx, retries a 4xx with backoff, and ends in partial_failure', async () => {
    const channel = await aChannelWithServer();
    const ids = await subscribers(channel.id, 4);
    const email = (i: number) => `user${i}@c${channel.id}.example.test`;
    verdicts.set(email(1), [{ code: 550, message: '5.1.1 No such user' }]);
    verdicts.set(email(2), [{ code: 451, message: '4.7.1 Try again later' }]);
    const b = await scheduled(channel.id);
    const before = smtp.messages.length;

    expect(await deliver(b.id)).toBe('waiting');
    const delayed = await database.db('broadcast_recipients').where({ broadcast_id: b.id, subscriber_id: ids[2] }).first();
    expect(delayed).toMatchObject({ status: 'pending', attempts: 1, error: expect.stringContaining('451') });
    expect(delayed.next_attempt_at.getTime()).toBe(time.current() + 60_000);
    // The continuation job waits for the retry time.
    const job = await database.db.raw(`SELECT start_after FROM pgboss.job WHERE name = 'broadcasts.send' AND data->>'broadcastId' = ?`, [String(b.id)]);
    expect(job.rows.map((j: { start_after: Date }) => j.start_after.getTime())).toEqual([time.current() + 60_000]);

    expect(await deliver(b.id)).toBe('waiting');
    advance(60_000);
    expect(await deliver(b.id)).toBe('finished');

    expect(
      smtp.messages
        .slice(before)
        .map((m) => m.to[0])
        .sort(),
    ).toEqual([email(0), email(2), email(3)]);
    expect(await database.db('broadcasts').where({ id: b.id }).first()).toMatchObject({ status: 'partial_failure', broadcast_recipients_count: 4 });
    const bounced = await database.db('broadcast_recipients').where({ broadcast_id: b.id, subscriber_id: ids[1] }).first();
    expect(bounced).toMatchObject({ status: 'bounced', error: expect.stringContaining('No such user') });
    expect(await database.db('subscribers').where({ id: ids[1] }).first()).toMatchObject({ is_active: false, unsubscribed_at: null });
    expect((await events('email.bounced', channel.id)).map((e) => e.data)).toEqual([
      expect.objectContaining({ email: email(1), bounced: true, bounced_reason: expect.stringContaining('No such user') }),
    ]);
    expect((await events('subscriber.bounced', channel.id)).map((e) => e.data)).toEqual([
      expect.objectContaining({ subscriber_id: ids[1], email: email(1), is_active: false }),
    ]);
    expect((await events('email.delivery_delayed', channel.id)).map((e) => e.data.email)).toEqual([email(2)]);
    expect((await events('email.delivered', channel.id)).length).toBe(3);
    expect(await database.db('broadcast_recipients').where({ broadcast_id: b.id, subscriber_id: ids[2] }).first()).toMatchObject({
      status: 'sent',
      attempts: 2,
    });
  });

  it('retries an unreachable server, then fails every recipient: status failed', async () => {
    const channel = await aChannelWithServer(await freePort());
    await subscribers(channel.id, 2);
    const b = await scheduled(channel.id);

    expect(await deliver(b.id)).toBe('waiting');
    advance(60_000);
    expect(await deliver(b.id)).toBe('waiting');
    advance(60_000);
    expect(await deliver(b.id)).toBe('finished');

    expect(await database.db('broadcasts').where({ id: b.id }).first()).toMatchObject({ status: 'failed', broadcast_recipients_count: 2 });
    expect(await database.db('broadcast_recipients').where({ broadcast_id: b.id }).pluck('status')).toEqual(['failed', 'failed']);
    expect(await database.db('broadcast_recipients').where({ broadcast_id: b.id }).pluck('attempts')).toEqual([3, 3]);
    expect((await events('email.delivery_delayed', channel.id)).length).toBe(4);
    expect((await events('email.failed', channel.id)).length).toBe(2);
    // Never handed to a server: no email.sent.
    expect((await events('email.sent', channel.id)).length).toBe(0);
    expect((await events('broadcast.failed', channel.id)).length).toBe(1);
  });

  it('sends nothing while paused, then each recipient once when it goes on', async () => {
    const channel = await aChannelWithServer();
    await subscribers(channel.id, 30);
    const b = await scheduled(channel.id);
    const before = smtp.messages.length;
    await database.db('broadcasts').where({ id: b.id }).update({ status: 'paused' });
    expect(await deliver(b.id)).toBe('nothing_to_do');
    expect(smtp.messages.length).toBe(before);
    // Paused before queueing ran: nothing is listed yet, so it goes on from scheduled.
    await database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled' });
    expect(await deliver(b.id)).toBe('finished');
    expect(new Set(smtp.messages.slice(before).map((m) => m.to[0])).size).toBe(30);
    expect(smtp.messages.length - before).toBe(30);
  });

  it('sends nothing more once its leases may have lapsed, and hands the rest to a fresh job', async () => {
    // A long lease, so no heartbeat (every 5 s) confirms the claims during the send: the jump
    // below is then a lease without one, as when the database is away.
    const longLease = container.createChildContainer();
    const options = container.resolve<SendingOptions>(SendingOptions);
    longLease.register(SendingOptions, { useValue: { ...options, leaseMs: 60_000 } });
    const deliverLong = (broadcastId: number) => longLease.resolve(DeliverBroadcast).execute({ broadcastId });
    const channel = await aChannelWithServer();
    await subscribers(channel.id, 120);
    const b = await scheduled(channel.id);
    const before = smtp.messages.length;
    // The clock jumps a whole lease while the first message is being sent, with no heartbeat
    // confirming the claims in between (as when the database is away): they may be another
    // dispatcher's by now.
    let jumped = false;
    onRecipient = () => {
      if (!jumped) {
        jumped = true;
        advance(60_000);
      }
    };
    try {
      expect(await deliverLong(b.id)).toBe('continued');
    } finally {
      onRecipient = undefined;
    }
    const inHand = smtp.messages.length - before;
    expect(inHand).toBeGreaterThan(0);
    expect(inHand).toBeLessThanOrEqual(defaultSendingOptions(PUBLIC_URL, DEFAULT_CONNECTIONS_PER_SERVER).concurrency);
    const continuation = await database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'broadcasts.send' AND data->>'broadcastId' = ?`, [
      String(b.id),
    ]);
    expect(continuation.rows[0].n).toBeGreaterThan(0);

    // The fresh job finishes, and nobody received the broadcast twice.
    expect(await deliver(b.id)).toBe('finished');
    const sent = smtp.messages.slice(before).map((m) => m.to[0]);
    expect(sent).toHaveLength(120);
    expect(new Set(sent).size).toBe(120);
  });
});

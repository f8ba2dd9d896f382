import request from 'supertest';
import { useApi } from '../../test-support/harness';

/** docs/subscribers.md, "History": GET /api/v1/subscribers/history.json. */
describe('a subscriber’s history', () => {
  const api = useApi();
  let channelId: number;
  let token: string;
  let aliceId: number;
  const ids = { sent: 0, bounced: 0, queued: 0, transactional: 0, suppressed: 0, sequence: 0, step: 0 };
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 1, 12, minute));

  const get = (path: string, t = token) =>
    request(api.app)
      .get(`/api/v1${path}`)
      .set({ Authorization: `Bearer ${t}` });
  const db = () => api.database.db;

  async function recipient(broadcastId: number, subscriberId: number, row: Record<string, unknown>): Promise<number> {
    const [made] = await db()('broadcast_recipients')
      .insert({
        broadcast_id: broadcastId,
        subscriber_id: subscriberId,
        message_id: `<b${broadcastId}.${subscriberId}@test>`,
        ...row,
      })
      .returning('id');
    return Number((made as { id: number }).id);
  }
  async function transactional(subscriberId: number, email: string, row: Record<string, unknown>): Promise<number> {
    const [made] = await db()('transactionals')
      .insert({ channel_id: channelId, subscriber_id: subscriberId, to_email: email, body: 'Hi', created_at: at(0), updated_at: at(0), ...row })
      .returning('id');
    return Number((made as { id: number }).id);
  }

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
    const alice = await api.fixtures.aSubscriber(channelId, 'alice@example.com');
    const bob = await api.fixtures.aSubscriber(channelId, 'bob@example.com');
    aliceId = alice.id;

    // Broadcasts: one sent (opened and clicked), one bounced, one still waiting for its time.
    const sent = await api.fixtures.aBroadcast(channelId, { subject: 'Spring news' });
    const bounced = await api.fixtures.aBroadcast(channelId, { subject: 'Summer news' });
    const queued = await api.fixtures.aBroadcast(channelId, { subject: 'Autumn news' });
    Object.assign(ids, { sent: sent.id, bounced: bounced.id, queued: queued.id });
    const opened = await recipient(sent.id, alice.id, { status: 'sent', sent_at: at(10), delivered_at: at(10), opened_at: at(15), clicked_at: at(16) });
    // Its open was a proxy's prefetch and then a person's; its click a scanner's only.
    const engaged = { channel_id: channelId, broadcast_id: sent.id, recipient_id: opened, subscriber_id: alice.id, data: '{}' };
    await db()('email_events').insert([
      { ...engaged, type: 'opened', occurred_at: at(15), machine: true, machine_reason: 'prefetch' },
      { ...engaged, type: 'opened', occurred_at: at(17), machine: false },
      { ...engaged, type: 'clicked', occurred_at: at(16), machine: true, machine_reason: 'scanner' },
    ]);
    await recipient(bounced.id, alice.id, { status: 'bounced', sent_at: at(30), failed_at: at(30), error: '550 5.1.1 No such user' });
    await recipient(queued.id, alice.id, { status: 'pending', next_attempt_at: at(50) });
    await recipient(sent.id, bob.id, { status: 'sent', sent_at: at(11) });

    // Transactionals: one delivered, one suppressed (never sent).
    ids.transactional = await transactional(alice.id, alice.email, { subject: 'Your receipt', status: 'delivered', message_id: '<t1@test>', sent_at: at(20) });
    ids.suppressed = await transactional(alice.id, alice.email, { subject: 'Reset', status: 'suppressed', created_at: at(5), updated_at: at(5) });
    await transactional(bob.id, bob.email, { subject: 'Bob only', status: 'delivered', sent_at: at(21) });

    // A sequence email: its outcome row (with the Message-ID) and a later open.
    const seq = await api.fixtures.aSequence(channelId, [{ action: 'send_email', settings: { subject: 'Welcome aboard', body: 'Hi' } }]);
    Object.assign(ids, { sequence: seq.sequence.id, step: seq.steps[0]! });
    const event = { channel_id: channelId, subscriber_id: alice.id, sequence_id: seq.sequence.id, sequence_step_id: seq.steps[0]! };
    await db()('email_events').insert([
      { ...event, type: 'processed', occurred_at: at(40), data: '{}' },
      { ...event, type: 'delivered', occurred_at: at(40), data: JSON.stringify({ response: '250 OK', message_id: '<seq.1@test>' }) },
      { ...event, type: 'opened', occurred_at: at(45), data: '{}', machine: false },
    ]);

    // The same address in another channel, with an email there: never in this channel's history.
    const other = await api.fixtures.aTenant();
    const otherAlice = await api.fixtures.aSubscriber(other.channel.id, 'alice@example.com');
    const elsewhere = await api.fixtures.aBroadcast(other.channel.id, { subject: 'Elsewhere' });
    await recipient(elsewhere.id, otherAlice.id, { status: 'sent', sent_at: at(55) });
  });

  test('every kind, newest first, with status, opens and clicks (a person’s or a machine’s), bounce and Message-ID', async () => {
    const res = await get('/subscribers/history.json?email=Alice@Example.com');
    expect(res.status).toBe(200);
    expect(res.body.email).toBe('alice@example.com');
    expect(res.body.broadcast_channel_id).toBe(channelId);
    const nobody = { human: false, machine: false };
    const none = {
      sequence_id: null,
      opened: false,
      opened_at: null,
      opened_by: nobody,
      clicked: false,
      clicked_at: null,
      clicked_by: nobody,
      bounced: false,
      bounce_reason: null,
    };
    expect(res.body.history).toEqual([
      { ...none, kind: 'broadcast', id: ids.queued, subject: 'Autumn news', status: 'queued', sent_at: null, message_id: `<b${ids.queued}.${aliceId}@test>` },
      {
        ...none,
        kind: 'sequence',
        id: ids.step,
        sequence_id: ids.sequence,
        subject: 'Welcome aboard',
        status: 'sent',
        sent_at: at(40).toISOString(),
        opened: true,
        opened_at: at(45).toISOString(),
        opened_by: { human: true, machine: false },
        message_id: '<seq.1@test>',
      },
      {
        ...none,
        kind: 'broadcast',
        id: ids.bounced,
        subject: 'Summer news',
        status: 'bounced',
        sent_at: at(30).toISOString(),
        bounced: true,
        bounce_reason: '550 5.1.1 No such user',
        message_id: `<b${ids.bounced}.${aliceId}@test>`,
      },
      {
        ...none,
        kind: 'transactional',
        id: ids.transactional,
        subject: 'Your receipt',
        status: 'sent',
        sent_at: at(20).toISOString(),
        message_id: '<t1@test>',
      },
      {
        ...none,
        kind: 'broadcast',
        id: ids.sent,
        subject: 'Spring news',
        status: 'sent',
        sent_at: at(10).toISOString(),
        opened: true,
        opened_at: at(15).toISOString(),
        opened_by: { human: true, machine: true },
        clicked: true,
        clicked_at: at(16).toISOString(),
        clicked_by: { human: false, machine: true },
        message_id: `<b${ids.sent}.${aliceId}@test>`,
      },
      { ...none, kind: 'transactional', id: ids.suppressed, subject: 'Reset', status: 'skipped', sent_at: null, message_id: null },
    ]);
    expect(res.body.pagination).toEqual({ total: 6, count: 6, from: 1, to: 6, current: 1, total_pages: 1 });
  });

  test('100 a page, with the subscribers’ pagination shape', async () => {
    const many = await api.fixtures.aSubscriber(channelId, 'many@example.com');
    for (let i = 0; i < 205; i++) {
      await transactional(many.id, many.email, { subject: `Receipt ${i}`, status: 'delivered', sent_at: new Date(at(0).getTime() + i * 1000) });
    }
    const first = await get('/subscribers/history.json?email=many@example.com');
    expect(first.body.history).toHaveLength(100);
    expect(first.body.history[0].subject).toBe('Receipt 204');
    expect(first.body.pagination).toEqual({ total: 205, count: 100, from: 1, to: 100, current: 1, total_pages: 3 });
    const last = await get('/subscribers/history.json?email=many@example.com&page=3');
    expect(last.body.history.map((h: { subject: string }) => h.subject)).toEqual(['Receipt 4', 'Receipt 3', 'Receipt 2', 'Receipt 1', 'Receipt 0']);
    expect(last.body.pagination).toEqual({ total: 205, count: 5, from: 201, to: 205, current: 3, total_pages: 3 });
    const past = await get('/subscribers/history.json?email=many@example.com&page=4');
    expect([past.status, past.body.history, past.body.pagination.total]).toEqual([200, [], 205]);
  });

  test('a subscriber with no email yet: an empty page', async () => {
    await api.fixtures.aSubscriber(channelId, 'quiet@example.com');
    const res = await get('/subscribers/history.json?email=quiet@example.com');
    expect([res.status, res.body.history, res.body.pagination.total]).toEqual([200, [], 0]);
  });

  test('an unknown or redacted address is a 404; a missing address or a bad page a 422', async () => {
    expect([
      (await get('/subscribers/history.json?email=nobody@example.com')).status,
      (await get('/subscribers/history.json?email=nobody@example.com')).body,
    ]).toEqual([404, { error: 'Subscriber not found' }]);
    await api.fixtures.aSubscriber(channelId, 'gone@example.com');
    expect(
      (
        await request(api.app)
          .post('/api/v1/subscribers/redact.json')
          .set({ Authorization: `Bearer ${token}` })
          .send({ email: 'gone@example.com' })
      ).status,
    ).toBe(200);
    expect((await get('/subscribers/history.json?email=gone@example.com')).status).toBe(404);
    const missing = await get('/subscribers/history.json');
    expect(missing.status).toBe(422);
    expect(missing.body.error).toEqual(expect.any(String));
    for (const page of ['0', '-1', 'x', '1.5']) {
      const bad = await get(`/subscribers/history.json?email=alice@example.com&page=${page}`);
      expect([page, bad.status, bad.body]).toEqual([page, 422, { error: 'page must be a positive integer' }]);
    }
  });

  test('channel isolation: another channel’s token sees its own subscriber’s history only', async () => {
    const other = await api.database.db('subscribers').whereNot({ channel_id: channelId }).where({ email: 'alice@example.com' }).first('channel_id');
    const otherToken = await api.fixtures.aToken(Number(other.channel_id), ['subscribers_read']);
    const res = await get('/subscribers/history.json?email=alice@example.com', otherToken);
    expect(res.status).toBe(200);
    expect(res.body.history.map((h: { subject: string }) => h.subject)).toEqual(['Elsewhere']);
  });

  test('needs subscribers_read', async () => {
    const without = await api.fixtures.aToken(channelId, ['subscribers_write', 'broadcasts_read']);
    const res = await get('/subscribers/history.json?email=alice@example.com', without);
    expect([res.status, res.body]).toEqual([401, { error: 'Unauthorized' }]);
    const reader = await api.fixtures.aToken(channelId, ['subscribers_read']);
    expect((await get('/subscribers/history.json?email=alice@example.com', reader)).status).toBe(200);
  });
});

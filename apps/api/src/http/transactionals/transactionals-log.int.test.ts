import request from 'supertest';
import { PERMISSIONS } from '@mailcast/domain';
import { useApi } from '../../test-support/harness';

/** The transactional log and one transactional's events (docs/transactionals.md, "The log"). */
describe('transactional log and events', () => {
  const api = useApi();
  let token: string;
  let channelId: number;
  let otherToken: string;
  let admin: string;
  const ids: Record<string, number> = {};

  const call = (path: string, t = token) => request(api.app).get(`/api/v1${path}`).set('Authorization', `Bearer ${t}`);

  /** A row as CreateTransactional writes it, at a chosen time and status. */
  async function aTransactional(channel: number, to: string, status: string, createdAt: string, extra: Record<string, unknown> = {}): Promise<number> {
    const subscriber =
      (await api.database.db('subscribers').where({ channel_id: channel, email: to.toLowerCase() }).first()) ??
      (await api.fixtures.aSubscriber(channel, to.toLowerCase()));
    const [row] = await api.database
      .db('transactionals')
      .insert({
        channel_id: channel,
        subscriber_id: subscriber.id,
        to_email: to,
        subject: `Hello ${to}`,
        body: 'Hi',
        status,
        created_at: createdAt,
        updated_at: createdAt,
        ...extra,
      })
      .returning('id');
    return Number((row as { id: number }).id);
  }

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    const other = await api.fixtures.aTenant();
    otherToken = other.token;
    admin = await api.fixtures.anAdminToken();
    ids.oldest = await aTransactional(channelId, 'ann@example.com', 'sent', '2026-11-01T10:00:00Z', {
      message_id: '<t.1@mailcast.test>',
      sent_at: '2026-11-01T10:00:02Z',
    });
    ids.bounced = await aTransactional(channelId, 'bob@sample.org', 'bounced', '2026-11-02T10:00:00Z', { error: '550 No such user' });
    ids.queued = await aTransactional(channelId, 'Cat@Example.com', 'queued', '2026-11-03T10:00:00Z');
    ids.newest = await aTransactional(channelId, 'dan_x@example.com', 'sent', '2026-11-04T10:00:00Z');
    ids.foreign = await aTransactional(other.channel.id, 'ann@example.com', 'sent', '2026-11-05T10:00:00Z');
    // The outbox as SendTransactional writes it; a broadcast's event and another channel's with the same id stay out.
    const event = (channel: number, type: string, at: string, data: Record<string, unknown>) =>
      api.database.db('events').insert({ channel_id: channel, type, data: JSON.stringify(data), created_at: at });
    await event(channelId, 'email.sent', '2026-11-01T10:00:01Z', { transactional_id: ids.oldest, email: 'ann@example.com', receipted_type: 'Transactional' });
    await event(channelId, 'email.delivered', '2026-11-01T10:00:02Z', { transactional_id: ids.oldest, email: 'ann@example.com', delivered: true });
    await event(channelId, 'email.sent', '2026-11-01T10:00:03Z', { broadcast_id: ids.oldest, email: 'x@example.com' });
    await event(other.channel.id, 'email.sent', '2026-11-01T10:00:04Z', { transactional_id: ids.oldest, email: 'ann@example.com' });
  });

  it('lists the channel log newest first as {data, total}, with the detail fields', async () => {
    const res = await call('/transactionals.json');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(4);
    expect(res.body.data.map((t: { id: number }) => t.id)).toEqual([ids.newest, ids.queued, ids.bounced, ids.oldest]);
    expect(res.body.data[3]).toEqual({
      id: ids.oldest,
      to: 'ann@example.com',
      subject: 'Hello ann@example.com',
      status: 'sent',
      message_id: '<t.1@mailcast.test>',
      sent_at: '2026-11-01T10:00:02.000Z',
      created_at: '2026-11-01T10:00:00.000Z',
      error: null,
    });
    expect(res.body.data[2].error).toBe('550 No such user');
  });

  it('filters by status, partial recipient (any case, LIKE characters literal) and date range, together', async () => {
    const idsOf = async (query: string) => {
      const res = await call(`/transactionals.json?${query}`);
      expect(res.status).toBe(200);
      return { ids: res.body.data.map((t: { id: number }) => t.id), total: res.body.total };
    };
    expect(await idsOf('status=sent')).toEqual({ ids: [ids.newest, ids.oldest], total: 2 });
    expect(await idsOf('email=EXAMPLE.com')).toEqual({ ids: [ids.newest, ids.queued, ids.oldest], total: 3 });
    expect(await idsOf('email=cat@')).toEqual({ ids: [ids.queued], total: 1 });
    // `_` is a character, not LIKE's wildcard: only dan_x matches.
    expect(await idsOf('email=n_x')).toEqual({ ids: [ids.newest], total: 1 });
    expect(await idsOf('email=a_n')).toEqual({ ids: [], total: 0 });
    expect(await idsOf('created_after=2026-11-02T10:00:00Z&created_before=2026-11-03T10:00:00Z')).toEqual({ ids: [ids.queued, ids.bounced], total: 2 });
    expect(await idsOf('created_after=2026-11-02&status=sent&email=example')).toEqual({ ids: [ids.newest], total: 1 });
  });

  it('pages with limit and offset, total counting the whole filtered list', async () => {
    const first = await call('/transactionals.json?limit=2');
    expect(first.body.data.map((t: { id: number }) => t.id)).toEqual([ids.newest, ids.queued]);
    expect(first.body.total).toBe(4);
    const second = await call('/transactionals.json?limit=2&offset=2');
    expect(second.body.data.map((t: { id: number }) => t.id)).toEqual([ids.bounced, ids.oldest]);
    expect((await call('/transactionals.json?limit=1000')).body.data).toHaveLength(4);
  });

  it.each([
    ['status=nope', 'status must be one of queued, awaiting_confirmation, sent, delivered, bounced, failed, suppressed'],
    ['created_after=yesterday', 'created_after must be an ISO 8601 date or time'],
    ['created_before=2026-13-45', 'created_before must be an ISO 8601 date or time'],
    ['limit=-1', 'limit must be a non-negative integer'],
    ['offset=x', 'offset must be a non-negative integer'],
  ])('refuses %s with a 422 naming it', async (query, error) => {
    const res = await call(`/transactionals.json?${query}`);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error });
  });

  it("answers a transactional's events oldest first with their data, none of another channel's or a broadcast's", async () => {
    const res = await call(`/transactionals/${ids.oldest}/events.json`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: expect.any(Number),
        type: 'email.sent',
        created_at: '2026-11-01T10:00:01.000Z',
        data: { transactional_id: ids.oldest, email: 'ann@example.com', receipted_type: 'Transactional' },
      },
      { id: expect.any(Number), type: 'email.delivered', created_at: '2026-11-01T10:00:02.000Z', data: expect.objectContaining({ delivered: true }) },
    ]);
    expect((await call(`/transactionals/${ids.queued}/events.json`)).body).toEqual({ data: [] });
  });

  it("keeps channels apart: another channel's transactional is not in the log and its events are a 404", async () => {
    const otherLog = await call('/transactionals.json', otherToken);
    expect(otherLog.body).toEqual({ data: [expect.objectContaining({ id: ids.foreign })], total: 1 });
    const res = await call(`/transactionals/${ids.oldest}/events.json`, otherToken);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Transactional not found' });
    expect((await call('/transactionals/abc/events.json')).status).toBe(404);
  });

  it('needs transactionals_read (401 without it); an admin token names the channel', async () => {
    const writeOnly = await api.fixtures.aToken(
      channelId,
      PERMISSIONS.filter((p) => p !== 'transactionals_read'),
    );
    expect((await call('/transactionals.json', writeOnly)).status).toBe(401);
    expect((await call(`/transactionals/${ids.oldest}/events.json`, writeOnly)).status).toBe(401);
    expect((await call('/transactionals.json', admin)).status).toBe(422);
    const viaAdmin = await call(`/transactionals.json?broadcast_channel_id=${channelId}&status=bounced`, admin);
    expect(viaAdmin.body).toEqual({ data: [expect.objectContaining({ id: ids.bounced })], total: 1 });
  });

  it('reads events and filtered pages through their indexes (migration 20261203400000), not by scanning', async () => {
    const plan = async (sql: string, bindings: ReadonlyArray<string | number>) =>
      api.database.db.transaction(async (tx) => {
        // Tiny tables favour a scan; what is checked is that an index can serve each query.
        await tx.raw('SET LOCAL enable_seqscan = off');
        const { rows } = await tx.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(`EXPLAIN ${sql}`, bindings);
        return rows.map((r) => r['QUERY PLAN']).join('\n');
      });
    expect(await plan(`SELECT id FROM events WHERE channel_id = ? AND (data->>'transactional_id') = ? ORDER BY id`, [channelId, String(ids.oldest)])).toContain(
      'events_transactional',
    );
    expect(
      await plan('SELECT id FROM transactionals WHERE channel_id = ? AND status = ? ORDER BY created_at DESC, id DESC LIMIT 25', [channelId, 'sent']),
    ).toContain('transactionals_channel_status');
    // The recipient filter's own index (a planner at scale may combine it with the channel's).
    expect(await plan('SELECT id FROM transactionals WHERE lower(to_email) LIKE ?', ['%example%'])).toContain('transactionals_to_trgm');
  });

  it('shows a transactional accepted through the API at the top of the log', async () => {
    const created = await request(api.app)
      .post('/api/v1/transactionals.json')
      .set('Authorization', `Bearer ${token}`)
      .send({ to: 'eve@example.com', subject: 'Welcome', body: 'Hi' });
    expect(created.status).toBe(201);
    const res = await call('/transactionals.json?limit=1');
    expect(res.body.data[0]).toEqual(expect.objectContaining({ id: created.body.id, to: 'eve@example.com', subject: 'Welcome', status: created.body.status }));
    expect(res.body.total).toBe(5);
  });
});

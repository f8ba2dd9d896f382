import request from 'supertest';
import { useApi } from '../../test-support/harness';

/** Subscriber additions: custom_data_mode, create with history, warnings (docs/subscribers.md). */
describe('subscriber additions', () => {
  const api = useApi();
  let channelId: number;
  let token: string;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
  });

  const call = (method: 'get' | 'post' | 'patch', path: string, body?: object, t = token) => {
    const r = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);
    return body === undefined ? r : r.send(body);
  };
  const row = (email: string) => api.database.db('subscribers').where({ channel_id: channelId, email }).first();

  describe('update custom_data_mode', () => {
    beforeAll(async () => {
      await api.fixtures.aSubscriber(channelId, 'merge@example.com', { customData: { plan: 'pro', seats: 5, nested: { a: 1, b: 2 }, gone: 'x' } });
    });

    it('merge sets sent keys, deletes null ones, keeps the others and replaces nested values whole', async () => {
      const res = await call('patch', '/subscribers.json', {
        email: 'merge@example.com',
        custom_data_mode: 'merge',
        subscriber: { custom_data: { seats: 7, nested: { c: 3 }, gone: null, city: 'Oslo' } },
      });
      expect(res.status).toBe(200);
      expect(res.body.custom_data).toEqual({ plan: 'pro', seats: 7, nested: { c: 3 }, city: 'Oslo' });
      expect(res.body.warnings).toBeUndefined();
      expect((await row('merge@example.com')).custom_data).toEqual({ plan: 'pro', seats: 7, nested: { c: 3 }, city: 'Oslo' });
    });

    it('replace (the default, and when named) stores custom_data as sent', async () => {
      const res = await call('patch', '/subscribers.json', { email: 'merge@example.com', custom_data: { only: true } });
      expect(res.body.custom_data).toEqual({ only: true });
      const named = await call('patch', '/subscribers.json', { email: 'merge@example.com', custom_data_mode: 'replace', custom_data: { x: 1 } });
      expect(named.body.custom_data).toEqual({ x: 1 });
    });

    it.each([['append'], [1], [null]])('custom_data_mode %j is a 422 and changes nothing', async (mode) => {
      const res = await call('patch', '/subscribers.json', { email: 'merge@example.com', custom_data_mode: mode, custom_data: { y: 2 } });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'custom_data_mode must be replace or merge' });
      expect((await row('merge@example.com')).custom_data).toEqual({ x: 1 });
    });
  });

  describe('create with unsubscribed_at', () => {
    it('stores the subscriber unsubscribed and on the channel suppression list, and sends nothing', async () => {
      const res = await call('post', '/subscribers.json', { subscriber: { email: 'Old-Optout@example.com', unsubscribed_at: '2025-06-01T10:00:00Z' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ email: 'old-optout@example.com', is_active: false, unsubscribed_at: '2025-06-01T10:00:00.000Z' });
      const check = await call('get', '/suppressions/check.json?email=old-optout@example.com');
      expect(check.body).toMatchObject({ suppressed: true, scope: 'channel', reason: 'manual' });
      const jobs = await api.database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'email' = 'old-optout@example.com'`);
      expect(jobs.rows[0].n).toBe(0);
      const events = await api.database.db('events').where({ channel_id: channelId }).whereRaw(`data->>'email' = ?`, ['old-optout@example.com']);
      expect(events.map((e: { type: string }) => e.type)).toEqual(['subscriber.created']);
      expect(events[0].data).toMatchObject({ is_active: false, unsubscribed_at: '2025-06-01T10:00:00.000Z' });
    });

    it('on an existing active subscriber: updated, unsubscribed and suppressed, never reactivated', async () => {
      await call('post', '/subscribers.json', { email: 'was-active@example.com' });
      const res = await call('post', '/subscribers.json', { email: 'was-active@example.com', first_name: 'Was', unsubscribed_at: '2025-01-01' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ first_name: 'Was', is_active: false, unsubscribed_at: '2025-01-01T00:00:00.000Z' });
      expect((await call('get', '/suppressions/check.json?email=was-active@example.com')).body.suppressed).toBe(true);
    });

    it.each([
      [{ unsubscribed_at: '2999-01-01T00:00:00Z' }, 'unsubscribed_at must not be in the future'],
      [{ unsubscribed_at: '2025-01-01T00:00:00Z', is_active: true }, 'unsubscribed_at cannot be combined with is_active: true'],
    ])('%j is a 422 and writes nothing', async (extra, error) => {
      const res = await call('post', '/subscribers.json', { email: 'refused-history@example.com', ...extra });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error });
      expect(await row('refused-history@example.com')).toBeUndefined();
      expect((await call('get', '/suppressions/check.json?email=refused-history@example.com')).body.suppressed).toBe(false);
    });

    it('a malformed unsubscribed_at is a field error', async () => {
      const res = await call('post', '/subscribers.json', { email: 'bad-date@example.com', unsubscribed_at: 'yesterday' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ errors: { unsubscribed_at: ['must be an ISO 8601 datetime'] } });
    });
  });

  describe('create with confirmed_at', () => {
    it('a channel token: ignored with a parameter_ignored warning', async () => {
      const res = await call('post', '/subscribers.json', { email: 'conf-channel@example.com', confirmed_at: '2025-02-02T00:00:00Z' });
      expect(res.status).toBe(201);
      expect(res.body.confirmed_at).toBeNull();
      expect(res.body.warnings).toEqual([{ code: 'parameter_ignored', param: 'confirmed_at', message: expect.stringContaining('admin tokens') }]);
      expect((await row('conf-channel@example.com')).confirmed_at).toBeNull();
    });

    it('an admin token: honoured', async () => {
      const admin = await api.fixtures.anAdminToken();
      const res = await call(
        'post',
        '/subscribers.json',
        { broadcast_channel_id: channelId, email: 'conf-admin@example.com', confirmed_at: '2025-02-02T00:00:00Z' },
        admin,
      );
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ confirmed_at: '2025-02-02T00:00:00.000Z', confirmation_status: 'confirmed' });
      expect(res.body.warnings ?? []).not.toContainEqual(expect.objectContaining({ param: 'confirmed_at' }));
      expect((await row('conf-admin@example.com')).confirmed_at).toEqual(new Date('2025-02-02T00:00:00Z'));
    });
  });

  it('double opt-in on an already confirmed subscriber answers double_opt_in_skipped', async () => {
    await api.fixtures.aCaptureServer(channelId, 2525);
    const s = await api.fixtures.aSubscriber(channelId, 'confirmed@example.com');
    await api.database
      .db('subscribers')
      .where({ id: s.id })
      .update({ confirmed_at: new Date('2025-03-03T00:00:00Z') });
    const res = await call('post', '/subscribers.json', { email: 'confirmed@example.com', double_opt_in: true });
    expect(res.status).toBe(200);
    expect(res.body.warnings).toEqual([{ code: 'double_opt_in_skipped', param: 'double_opt_in', message: expect.any(String) }]);
    const fresh = await call('post', '/subscribers.json', { email: 'fresh-doi@example.com', double_opt_in: true });
    expect(fresh.status).toBe(201);
    expect(fresh.body.warnings).toBeUndefined();
  });

  it.each([
    ['created_after=last-week', 'created_after'],
    ['created_before=2026-13-01', 'created_before'],
  ])('list: an unparsable %s is ignored with a parameter_ignored warning', async (query, param) => {
    const all = await call('get', '/subscribers.json');
    const res = await call('get', `/subscribers.json?${query}`);
    expect(res.status).toBe(200);
    expect(res.body.pagination.total).toBe(all.body.pagination.total);
    expect(res.body.warnings).toEqual([{ code: 'parameter_ignored', param, message: `${param} is not an ISO 8601 datetime; it was ignored` }]);
    expect(all.body.warnings).toBeUndefined();
  });

  it('list: a parsable bound still filters, without warnings', async () => {
    const res = await call('get', '/subscribers.json?created_after=2999-01-01T00:00:00Z');
    expect(res.status).toBe(200);
    expect(res.body.subscribers).toEqual([]);
    expect(res.body.warnings).toBeUndefined();
  });

  it('a transactional replayed by its Idempotency-Key answers Idempotency-Replayed with the original status and body', async () => {
    const send = () =>
      call('post', '/transactionals.json', { to: 'receipt@example.com', subject: 'Receipt', body: 'Thanks' }).set('Idempotency-Key', 'order-7');
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.headers['idempotency-replayed']).toBeUndefined();
    const again = await send();
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotency-replayed']).toBe('true');
  });
});

import { Clock, PruneOldRows, RetentionPolicy } from '@mailcast/core';
import { PERMISSIONS, hashApiToken } from '@mailcast/domain';
import request from 'supertest';
import { retentionConfig } from '../../../dispatcher/src/config';
import { useApi } from '../test-support/harness';
import { aUser, signIn, type SignedInSession } from '../test-support/users';
import { auditTrailOf } from './app';

const DAY = 24 * 60 * 60 * 1000;
const FORBIDDEN = { error: 'Admin API token required for the audit log' };
const SMTP_PASSWORD = 'smtp-Pa55word-never-logged';
type Json = Record<string, any>;

/** docs/teams.md, "Audit log". */
describe('the audit log', () => {
  let now: Date | null = null;
  const api = useApi({
    env: { RATE_LIMIT_PER_MINUTE: '0', SMTP_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' },
    overrides: [
      { token: Clock, value: { now: () => now ?? new Date() } },
      { token: RetentionPolicy, value: retentionConfig({}).policy },
    ],
  });
  let channel: number;
  let token: string;
  let tokenId: number;
  let admin: string;

  const as = (bearer: string) => ({
    get: (p: string) =>
      request(api.app)
        .get(p)
        .set('Authorization', bearer.startsWith('User ') ? bearer : `Bearer ${bearer}`),
    post: (p: string, body?: object) =>
      request(api.app)
        .post(p)
        .set('Authorization', bearer.startsWith('User ') ? bearer : `Bearer ${bearer}`)
        .send(body),
    patch: (p: string, body?: object) => request(api.app).patch(p).set('Authorization', `Bearer ${bearer}`).send(body),
    delete: (p: string) => request(api.app).delete(p).set('Authorization', `Bearer ${bearer}`),
  });
  /** A dashboard session: the cookie, and the CSRF token unless told otherwise. */
  const withSession = (s: SignedInSession) => ({
    get: (p: string) => request(api.app).get(p).set('Cookie', s.cookie),
    post: (p: string, body?: object, csrf: string | null = s.csrf) => {
      const r = request(api.app).post(p).set('Cookie', s.cookie);
      return (csrf === null ? r : r.set('X-CSRF-Token', csrf)).send(body);
    },
  });
  const idOf = async (t: string) =>
    Number(
      (
        await api.database
          .db('api_tokens')
          .where({ token_hash: hashApiToken(t) })
          .first('id')
      ).id,
    );
  /** The entries written so far, oldest first, as the API answers them. */
  const entries = async (query = ''): Promise<Json[]> => {
    await auditTrailOf(api.app).idle();
    const res = await as(admin).get(`/api/v1/audit_log?limit=250${query}`);
    expect(res.status).toBe(200);
    return (res.body.data as Json[]).reverse();
  };
  const clear = async () => {
    await auditTrailOf(api.app).idle();
    await api.database.db('audit_log').delete();
  };

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channel = tenant.channel.id;
    token = tenant.token;
    tokenId = await idOf(token);
    admin = await api.fixtures.anAdminToken();
  });
  beforeEach(clear);

  it("records a token's create, update and delete with its actor, channel, status, action and resource", async () => {
    const created = await as(token).post('/api/v1/email_servers', { email_server: { host: '127.0.0.1', port: 2525, tls: 'none' } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    expect((await as(token).patch(`/api/v1/email_servers/${id}`, { email_server: { port: 2526 } })).status).toBe(200);
    expect((await as(token).delete(`/api/v1/email_servers/${id}`)).status).toBe(200);

    const prefix = (await api.database.db('api_tokens').where({ id: tokenId }).first('token_prefix')).token_prefix as string;
    const actor = { type: 'token', id: tokenId, label: prefix };
    const common = { actor, broadcast_channel_id: channel, resource_type: 'email_servers', resource_id: String(id) };
    expect(await entries()).toEqual([
      {
        ...common,
        id: expect.any(Number),
        occurred_at: expect.any(String),
        method: 'POST',
        path: '/api/v1/email_servers',
        status: 201,
        ip: expect.any(String),
        action: 'createEmailServer',
        resource_type: null,
        resource_id: null,
      },
      {
        ...common,
        id: expect.any(Number),
        occurred_at: expect.any(String),
        method: 'PATCH',
        path: `/api/v1/email_servers/${id}`,
        status: 200,
        ip: expect.any(String),
        action: 'updateEmailServer',
      },
      {
        ...common,
        id: expect.any(Number),
        occurred_at: expect.any(String),
        method: 'DELETE',
        path: `/api/v1/email_servers/${id}`,
        status: 200,
        ip: expect.any(String),
        action: 'deleteEmailServer',
      },
    ]);
    // The client address as the per-address limits see it: here the loopback peer.
    expect((await entries())[0]!.ip).toMatch(/127\.0\.0\.1$/);
  });

  it('names the token by its label when it has one, and an admin token by the channel it acted for or none', async () => {
    const labelled = await api.fixtures.anAdminToken(['subscribers_write', 'global_suppressions_write']);
    const labelledId = await idOf(labelled);
    expect(
      (await as(labelled).post('/api/v1/subscribers.json', { broadcast_channel_id: channel, subscriber: { email: 'via-admin@example.com' } })).status,
    ).toBe(201);
    expect((await as(labelled).post('/api/v1/global_suppressions.json', { email: 'everywhere@example.com' })).status).toBe(201);
    expect((await entries()).map((e) => [e.actor, e.broadcast_channel_id, e.action])).toEqual([
      [{ type: 'token', id: labelledId, label: 'test admin' }, channel, 'createSubscriber'],
      [{ type: 'token', id: labelledId, label: 'test admin' }, null, 'addGlobalSuppressions'],
    ]);
  });

  it('keeps no read, and a write after reads is the only entry', async () => {
    expect((await as(token).get('/api/v1/broadcasts')).status).toBe(200);
    expect((await as(token).get('/api/v1/whoami')).status).toBe(200);
    expect((await as(admin).get('/api/v1/audit_log')).status).toBe(200);
    expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Hello' } })).status).toBe(201);
    expect((await entries()).map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/v1/broadcasts']);
  });

  it('keeps no POST that only computes an answer: a segment count, a template preview, a broadcast preview', async () => {
    const count = await as(token).post('/api/v1/segments/count', { segment: { match: 'all', rules: [{ field: 'email', operator: 'contains', value: 'a' }] } });
    const template = await as(token).post('/api/v1/templates/preview', { template: { subject: 'Hi', body: 'Hello {{ subscriber.email }}' } });
    const created = await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Hello', body: 'Hi' } });
    await api.database.db('subscribers').insert({ channel_id: channel, email: 'ann@example.com' });
    const preview = await as(token).post(`/api/v1/broadcasts/${created.body.id}/preview`, { email: 'ann@example.com' });
    expect([count.status, template.status, created.status, preview.status]).toEqual([200, 200, 201, 200]);
    expect((await entries()).map((e) => `${e.method} ${e.path}`)).toEqual(['POST /api/v1/broadcasts']);
  });

  it('records a refused write with its 4xx, and nothing for a request no token authenticated', async () => {
    expect((await as(token).patch('/api/v1/broadcasts/999999', { broadcast: { name: 'x' } })).status).toBe(404);
    expect((await as(token).post('/api/v1/broadcasts/not-a-number/send_broadcast')).status).toBe(404);
    expect((await as(token).post('/api/v1/subscribers.json', { subscriber: { email: 'not an address' } })).status).toBe(422);
    const reader = await api.fixtures.aToken(channel, ['broadcasts_read']);
    expect((await as(reader).post('/api/v1/broadcasts', { broadcast: { subject: 'S' } })).status).toBe(401);
    // No token, a bad token: no principal, no entry.
    expect(
      (
        await request(api.app)
          .post('/api/v1/broadcasts')
          .send({ broadcast: { subject: 'S' } })
      ).status,
    ).toBe(401);
    expect((await as('mc_not-a-real-token').post('/api/v1/broadcasts', { broadcast: { subject: 'S' } })).status).toBe(401);
    expect((await entries()).map((e) => [e.method, e.path, e.status, e.action, e.resource_id, e.actor.id])).toEqual([
      ['PATCH', '/api/v1/broadcasts/999999', 404, 'updateBroadcast', '999999', tokenId],
      ['POST', '/api/v1/broadcasts/not-a-number/send_broadcast', 404, 'sendBroadcast', 'not-a-number', tokenId],
      ['POST', '/api/v1/subscribers.json', 422, 'createSubscriber', null, tokenId],
      ['POST', '/api/v1/broadcasts', 401, 'createBroadcast', null, await idOf(reader)],
    ]);
  });

  it('never keeps a body or a query string: the SMTP password and the webhook secret appear in no column', async () => {
    const server = await as(token).post('/api/v1/email_servers?smtp_password=' + SMTP_PASSWORD, {
      email_server: { host: '127.0.0.1', port: 2525, tls: 'none', smtp_username: 'me', smtp_password: SMTP_PASSWORD },
    });
    expect(server.status).toBe(201);
    const endpoint = await as(token).post('/api/v1/webhook_endpoints', {
      webhook_endpoint: { url: 'https://hooks.example.com/in', event_types: ['subscriber.created'] },
    });
    expect(endpoint.status).toBe(201);
    const secret = endpoint.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await as(token).patch(`/api/v1/email_servers/${server.body.id}`, { email_server: { smtp_password: `${SMTP_PASSWORD}-2` } })).status).toBe(200);
    await auditTrailOf(api.app).idle();
    const rows = await api.database.db('audit_log').select('*');
    expect(rows).toHaveLength(3);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(SMTP_PASSWORD);
    expect(stored).not.toContain(secret);
    expect(stored).not.toContain(secret.slice('whsec_'.length, 20));
    expect(rows[0]!.path).toBe('/api/v1/email_servers');
  });

  it("records a signed-in user's sign-in and writes as the user's, named by their email; not a forged or failed one", async () => {
    const user = await aUser(api, { email: 'ada@example.com', channels: [{ channelId: channel, role: 'Editor' }] });
    expect((await request(api.app).post('/auth/sign_in').send({ email: user.email, password: 'wrong password!!' })).status).toBe(401);
    const session = await signIn(api.app, user);
    expect((await withSession(session).post('/api/v1/broadcasts', { broadcast: { subject: 'From the dashboard' } })).status).toBe(201);
    // Without the CSRF token the write is refused before anyone is named: not the user's act.
    expect((await withSession(session).post('/api/v1/broadcasts', { broadcast: { subject: 'Forged' } }, null)).status).toBe(403);
    expect((await withSession(session).post('/auth/sign_out')).status).toBe(204);

    const actor = { type: 'user', id: user.id, label: 'ada@example.com' };
    expect((await entries()).map((e) => [e.actor, e.broadcast_channel_id, e.method, e.path, e.status, e.action])).toEqual([
      [actor, null, 'POST', '/auth/sign_in', 200, 'signIn'],
      [actor, channel, 'POST', '/api/v1/broadcasts', 201, 'createBroadcast'],
      [actor, null, 'POST', '/auth/sign_out', 204, 'signOut'],
    ]);
    expect(await api.database.db('audit_log').distinct('token_id', 'user_id')).toEqual([{ token_id: null, user_id: user.id }]);
    // The user's entries by the user filter; a deleted user leaves the entries and their label.
    expect((await entries(`&user_id=${user.id}`)).map((e) => e.action)).toEqual(['signIn', 'createBroadcast', 'signOut']);
    await api.database.db('users').where({ id: user.id }).delete();
    expect((await entries()).map((e) => e.actor)).toEqual(Array(3).fill({ type: 'user', id: null, label: 'ada@example.com' }));
  });

  it('is read by admin tokens holding audit_log_read and by sudo users; a channel token gets 403 whatever it asks', async () => {
    for (const path of ['/api/v1/audit_log', '/api/v1/audit_log?limit=0', `/api/v1/audit_log?broadcast_channel_id=${channel}`]) {
      const res = await as(token).get(path);
      expect([path, res.status, res.body]).toEqual([path, 403, FORBIDDEN]);
    }
    // A signed-in Manager of the channel, even with user management, is not an admin.
    const manager = await signIn(
      api.app,
      await aUser(api, { systemPermissions: { user_management: true }, channels: [{ channelId: channel, role: 'Manager' }] }),
    );
    const dashboard = await withSession(manager).get('/api/v1/audit_log');
    expect([dashboard.status, dashboard.body]).toEqual([403, FORBIDDEN]);
    // A sudo user reads every channel's entries, whichever channel the session acts for.
    const sudo = await signIn(api.app, await aUser(api, { sudo: true }));
    expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Seen by sudo' } })).status).toBe(201);
    await auditTrailOf(api.app).idle();
    const bySudo = await withSession(sudo).get('/api/v1/audit_log?action=createBroadcast');
    expect([bySudo.status, bySudo.body.data.map((e: Json) => e.broadcast_channel_id)]).toEqual([200, [channel]]);
    const without = await api.fixtures.anAdminToken(PERMISSIONS.filter((p) => p !== 'audit_log_read'));
    expect((await as(without).get('/api/v1/audit_log')).status).toBe(401);
    // An admin token needs no channel here; naming one is accepted (it is the channel it acts for, not a filter).
    expect((await as(admin).get('/api/v1/audit_log')).status).toBe(200);
    expect((await as(admin).get(`/api/v1/audit_log?broadcast_channel_id=${channel}`)).status).toBe(200);
  });

  it('filters by channel, token, user, action and time, pages newest first, and refuses bad values', async () => {
    const other = await api.fixtures.aTenant();
    const otherId = await idOf(other.token);
    const t0 = Date.parse('2026-03-01T10:00:00Z');
    for (let i = 0; i < 5; i++) {
      now = new Date(t0 + i * 60_000);
      expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: `S${i}` } })).status).toBe(201);
    }
    now = new Date(t0 + 10 * 60_000);
    expect((await as(other.token).post('/api/v1/subscribers.json', { subscriber: { email: 'other@example.com' } })).status).toBe(201);
    now = null;
    await auditTrailOf(api.app).idle();

    const page = async (query: string) => {
      const res = await as(admin).get(`/api/v1/audit_log?${query}`);
      expect([query, res.status]).toEqual([query, 200]);
      return res.body as { data: Json[]; pagination: Json };
    };
    const first = await page('limit=2');
    expect(first.pagination).toEqual({ total: 6, limit: 2, offset: 0, has_more: true });
    expect(first.data.map((e) => e.occurred_at)).toEqual(['2026-03-01T10:10:00.000Z', '2026-03-01T10:04:00.000Z']);
    const last = await page('limit=2&offset=4');
    expect(last.pagination).toEqual({ total: 6, limit: 2, offset: 4, has_more: false });
    expect(last.data.map((e) => e.occurred_at)).toEqual(['2026-03-01T10:01:00.000Z', '2026-03-01T10:00:00.000Z']);
    expect((await page('limit=1000')).pagination.limit).toBe(250);
    expect((await page('')).pagination.limit).toBe(50);

    expect((await page(`channel_id=${other.channel.id}`)).data.map((e) => e.actor.id)).toEqual([otherId]);
    expect((await page(`token_id=${tokenId}`)).pagination.total).toBe(5);
    expect((await page('action=createSubscriber')).data.map((e) => e.broadcast_channel_id)).toEqual([other.channel.id]);
    expect((await page('user_id=424242')).pagination.total).toBe(0);
    const window = await page('since=2026-03-01T10:01:00Z&until=2026-03-01T10:03:00Z');
    expect(window.data.map((e) => e.occurred_at)).toEqual(['2026-03-01T10:03:00.000Z', '2026-03-01T10:02:00.000Z', '2026-03-01T10:01:00.000Z']);
    expect((await page(`since=2026-03-01T10:04:00Z&token_id=${tokenId}`)).pagination.total).toBe(1);

    for (const query of [
      'limit=0',
      'limit=-1',
      'limit=abc',
      'offset=-1',
      'channel_id=x',
      'token_id=0',
      'since=yesterday',
      'until=2026-13-45',
      'limit=1&limit=2',
    ]) {
      const res = await as(admin).get(`/api/v1/audit_log?${query}`);
      expect([query, res.status, typeof res.body.error]).toEqual([query, 422, 'string']);
    }
  });

  it('prunes entries older than 365 days and keeps the rest', async () => {
    const prune = () => api.container.resolve(PruneOldRows).execute();
    now = new Date('2025-01-01T12:00:00Z');
    expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Old' } })).status).toBe(201);
    now = new Date('2025-06-01T12:00:00Z');
    expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Newer' } })).status).toBe(201);
    await auditTrailOf(api.app).idle();

    now = new Date(Date.parse('2025-01-01T12:00:00Z') + 364 * DAY);
    expect((await prune()).audit_log).toBe(0);
    now = new Date(Date.parse('2025-01-01T12:00:00Z') + 366 * DAY);
    expect((await prune()).audit_log).toBe(1);
    now = null;
    expect((await entries()).map((e) => e.occurred_at)).toEqual(['2025-06-01T12:00:00.000Z']);
  });

  it('answers the request even when the entry cannot be written, and logs the entry instead', async () => {
    const db = api.database.db;
    await db.raw('ALTER TABLE audit_log RENAME TO audit_log_away');
    try {
      const res = await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Still sent' } });
      expect(res.status).toBe(201);
      await auditTrailOf(api.app).idle();
    } finally {
      await db.raw('ALTER TABLE audit_log_away RENAME TO audit_log');
    }
    const logged = api.logs.find((l) => l.message === 'audit log entries not written') as Json | undefined;
    expect(logged?.audit).toEqual([expect.objectContaining({ method: 'POST', path: '/api/v1/broadcasts', status: 201, action: 'createBroadcast' })]);
    // The next write is kept as usual.
    expect((await as(token).post('/api/v1/broadcasts', { broadcast: { subject: 'Kept' } })).status).toBe(201);
    expect(await entries()).toHaveLength(1);
  });
});

describe('the audit log behind a trusted proxy', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0', TRUSTED_PROXIES: 'loopback' } });

  it('keeps the client address the per-address limits see: X-Forwarded-For from a trusted proxy', async () => {
    const { token } = await api.fixtures.aTenant();
    const res = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Forwarded-For', '203.0.113.9')
      .send({ broadcast: { subject: 'S' } });
    expect(res.status).toBe(201);
    await auditTrailOf(api.app).idle();
    expect(await api.database.db('audit_log').pluck('ip')).toEqual(['203.0.113.9']);
  });
});

describe('the audit log under the rate limit', () => {
  // One fixed instant: the four writes fall in one window of the limit, whatever the real clock does.
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '2' }, overrides: [{ token: Clock, value: { now: () => new Date('2026-03-01T10:00:30Z') } }] });

  it('keeps the writes the limit let through, not the 429s past it', async () => {
    const { token } = await api.fixtures.aTenant();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await request(api.app)
        .post('/api/v1/broadcasts')
        .set('Authorization', `Bearer ${token}`)
        .send({ broadcast: { subject: `S${i}` } });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([201, 201, 429, 429]);
    await auditTrailOf(api.app).idle();
    expect(await api.database.db('audit_log').orderBy('id').pluck('status')).toEqual([201, 201]);
  });
});

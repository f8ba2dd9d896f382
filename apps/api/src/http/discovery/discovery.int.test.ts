import { Clock } from '@mailcast/core';
import { CHANNEL_PERMISSIONS, PERMISSIONS, PLATFORM } from '@mailcast/domain';
import request from 'supertest';
import { parse } from 'yaml';
import { OPENAPI_DOCUMENT } from '../../openapi/document';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

class SettableClock {
  constructor(public current: Date) {}
  now(): Date {
    return this.current;
  }
}

/** Discovery (docs/discovery.md): whoami, status, prime, skill and the YAML document. */
describe('discovery API', () => {
  const clock = new SettableClock(new Date('2026-12-01T10:00:00.000Z'));
  const api = useApi({ env: { PUBLIC_URL: 'https://mail.example.com', RATE_LIMIT_PER_MINUTE: '600' }, overrides: [{ token: Clock, value: clock }] });

  const get = (path: string, token: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`);

  describe('whoami', () => {
    it('names a channel token: its label, kind, redacted value, last use and every channel permission', async () => {
      const channel = await api.fixtures.aChannel({ name: 'Acme news' });
      const narrow = await api.fixtures.aToken(channel.id, ['subscribers_read', 'broadcasts_write']);

      const res = await get('/api/v1/whoami', narrow);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        type: 'channel_scoped',
        token_type: 'channel',
        token: {
          id: expect.any(Number),
          label: null,
          type: 'channel_scoped',
          redacted_value: `${narrow.slice(0, 4)}••••••••${narrow.slice(-4)}`,
          last_used_at: '2026-12-01T10:00:00.000Z',
          permissions: Object.fromEntries(CHANNEL_PERMISSIONS.map((p) => [p, p === 'subscribers_read' || p === 'broadcasts_write'])),
        },
        channel: { id: channel.id, name: 'Acme news', slug: 'acme-news' },
      });
      // Exactly the channel permissions: none of the admin-only names.
      expect(Object.keys(res.body.token.permissions).sort()).toEqual([...CHANNEL_PERMISSIONS].sort());
      expectResponseMatchesDocument(res);
    });

    it('never answers the token itself, only its first and last four characters', async () => {
      const { token } = await api.fixtures.aTenant();
      const res = await get('/api/v1/whoami', token);
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(token);
      expect(text).not.toContain(token.slice(4, -4));
      expect(res.body.token.redacted_value).toHaveLength(16);
    });

    it('shows • for the last four characters of a token made before they were kept', async () => {
      const { token } = await api.fixtures.aTenant();
      await api.database.db('api_tokens').update({ token_suffix: null }).where('token_prefix', token.slice(0, 9));
      const res = await get('/api/v1/whoami', token);
      expect(res.body.token.redacted_value).toBe(`${token.slice(0, 4)}••••••••••••`);
    });

    it('names an admin token with every permission name, and the channel it names or null', async () => {
      const channel = await api.fixtures.aChannel({ name: 'Admin target' });
      const admin = await api.fixtures.anAdminToken(['users_read', 'subscribers_read']);

      const bare = await get('/api/v1/whoami', admin);
      expect(bare.status).toBe(200);
      expect(bare.body).toMatchObject({ type: 'admin_cross_channel', token_type: 'admin_cross_channel', channel: null });
      expect(bare.body.token).toMatchObject({ label: 'test admin', type: 'admin_cross_channel' });
      expect(bare.body.token.permissions).toEqual(Object.fromEntries(PERMISSIONS.map((p) => [p, p === 'users_read' || p === 'subscribers_read'])));
      expectResponseMatchesDocument(bare);

      const named = await get(`/api/v1/whoami?broadcast_channel_id=${channel.id}`, admin);
      expect(named.body.channel).toEqual({ id: channel.id, name: 'Admin target', slug: 'admin-target' });
    });

    it('writes last_used_at at most once a minute per token', async () => {
      const { token } = await api.fixtures.aTenant();
      const start = new Date('2026-12-01T11:00:00.000Z');
      clock.current = start;
      expect((await get('/api/v1/whoami', token)).body.token.last_used_at).toBe(start.toISOString());
      clock.current = new Date(start.getTime() + 59_000);
      expect((await get('/api/v1/whoami', token)).body.token.last_used_at).toBe(start.toISOString());
      clock.current = new Date(start.getTime() + 61_000);
      expect((await get('/api/v1/broadcasts', token)).status).toBe(200);
      expect((await get('/api/v1/whoami', token)).body.token.last_used_at).toBe('2026-12-01T11:01:01.000Z');
      clock.current = new Date('2026-12-01T10:00:00.000Z');
    });
  });

  describe('status', () => {
    it('answers the sender, the subscriber counts and readiness, ready only with an active server and a sender address', async () => {
      const channel = await api.fixtures.aChannel({ name: 'Servers' });
      const token = await api.fixtures.aToken(channel.id, ['broadcasts_read']);
      for (const [email, active] of [
        ['a@example.com', true],
        ['b@example.com', true],
        ['c@example.com', false],
      ] as const) {
        await api.fixtures.aSubscriber(channel.id, email, { isActive: active });
      }

      const before = await get('/api/v1/status', token);
      expect(before.status).toBe(200);
      expect(before.body).toEqual({
        status: 'ok',
        channel: { id: channel.id, name: 'Servers', sender_email: null, sender_name: 'Servers' },
        email_servers: 0,
        subscribers: { total: 3, active: 2 },
        readiness: { broadcasts: false, sequences: false, transactionals: false },
        ready: false,
      });
      expectResponseMatchesDocument(before);

      // A server without a from address, on a channel without one: no sender anyone chose.
      const server = await api.fixtures.repositories.emailServers.create({
        channelId: channel.id,
        host: 'smtp1.example.com',
        port: 587,
        tls: 'starttls',
        username: null,
        password: null,
        fromEmail: null,
        fromName: null,
      });
      const noSender = await get('/api/v1/status', token);
      expect(noSender.body).toMatchObject({ email_servers: 1, readiness: { broadcasts: false }, ready: false });

      await api.fixtures.repositories.emailServers.update(channel.id, server.id, { fromEmail: 'news@example.com', fromName: 'Acme News' });
      const ready = await get('/api/v1/status', token);
      expect(ready.body).toMatchObject({
        channel: { sender_email: 'news@example.com', sender_name: 'Acme News' },
        readiness: { broadcasts: true, sequences: true, transactionals: true },
        ready: true,
      });

      // Switched off, it sends nothing: not ready again.
      await api.fixtures.repositories.emailServers.update(channel.id, server.id, { active: false });
      expect((await get('/api/v1/status', token)).body).toMatchObject({ email_servers: 1, ready: false, readiness: { transactionals: false } });
    });

    it("takes the channel's own sender when the server has none", async () => {
      const channel = await api.fixtures.aChannel({ name: 'Own sender', fromEmail: 'hello@acme.example', fromName: 'Acme' });
      const token = await api.fixtures.aToken(channel.id, ['subscribers_read']);
      await api.fixtures.repositories.emailServers.create({
        channelId: channel.id,
        host: 'smtp.example.com',
        port: 587,
        tls: 'starttls',
        username: null,
        password: null,
        fromEmail: null,
        fromName: null,
      });
      const res = await get('/api/v1/status', token);
      expect(res.body).toMatchObject({ channel: { sender_email: 'hello@acme.example', sender_name: 'Acme' }, ready: true });
    });
  });

  describe('prime', () => {
    it('lists only the resources a narrow token can reach, from the documented x-permissions', async () => {
      const channel = await api.fixtures.aChannel({ name: 'Prime' });
      const token = await api.fixtures.aToken(channel.id, ['subscribers_read']);
      const res = await get('/api/v1/prime', token);
      expect(res.status).toBe(200);
      expectResponseMatchesDocument(res);
      expect(res.body.platform).toEqual(PLATFORM);
      expect(res.body.token).toMatchObject({
        type: 'channel_scoped',
        permissions: expect.objectContaining({ subscribers_read: true, subscribers_write: false }),
      });
      expect(res.body.channel).toEqual({ id: channel.id, name: 'Prime', slug: 'prime' });
      expect(res.body.rate_limit).toEqual({ requests_per_minute: 600 });
      expect(res.body.tips.length).toBeGreaterThan(0);

      expect(res.body.capabilities.map((c: { resource: string }) => c.resource)).toEqual(['discovery', 'subscribers']);
      const [discovery, subscribers] = res.body.capabilities;
      expect(discovery.endpoints).toEqual(
        expect.arrayContaining([
          { method: 'GET', path: '/api/v1/whoami' },
          { method: 'GET', path: '/api/v1/prime' },
          { method: 'GET', path: '/api/v1/skill' },
        ]),
      );
      expect(subscribers).toMatchObject({ resource: 'subscribers', read: true, write: false });
      // Every endpoint listed is a documented read of subscribers; no write slipped in.
      const documented = OPENAPI_DOCUMENT.paths as Record<string, Record<string, { 'x-permission'?: string }>>;
      for (const { method, path } of subscribers.endpoints as Array<{ method: string; path: string }>) {
        expect(documented[path]?.[method.toLowerCase()]?.['x-permission']).toBe('subscribers_read');
      }
      expect(subscribers.endpoints).toContainEqual({ method: 'GET', path: '/api/v1/subscribers.json' });
    });

    it('answers read and write per resource for a wider token', async () => {
      const channel = await api.fixtures.aChannel({ name: 'Wide' });
      const token = await api.fixtures.aToken(channel.id, ['broadcasts_read', 'broadcasts_write', 'templates_read']);
      const res = await get('/api/v1/prime', token);
      const byName = Object.fromEntries(res.body.capabilities.map((c: { resource: string }) => [c.resource, c]));
      expect(Object.keys(byName).sort()).toEqual(['broadcasts', 'discovery', 'templates']);
      expect(byName.broadcasts).toMatchObject({ read: true, write: true });
      expect(byName.templates).toMatchObject({ read: true, write: false });
      expect(byName.templates.endpoints).toContainEqual({ method: 'GET', path: '/api/v1/channel/design' });
    });

    it('answers an admin token that names no channel with channel null', async () => {
      const admin = await api.fixtures.anAdminToken(['users_read']);
      const res = await get('/api/v1/prime', admin);
      expect(res.status).toBe(200);
      expect(res.body.channel).toBeNull();
      expect(res.body.token.type).toBe('admin_cross_channel');
      expectResponseMatchesDocument(res);
    });
  });

  describe('skill', () => {
    it('is Markdown with YAML front matter and the safety rules, as text/plain', async () => {
      const { token } = await api.fixtures.aTenant();
      const res = await get('/api/v1/skill', token);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      const match = /^---\n([\s\S]*?)\n---\n/.exec(res.text);
      expect(match).not.toBeNull();
      const front = parse(match![1]!) as Record<string, unknown>;
      expect(front).toEqual({ name: 'mailcast', description: expect.any(String), version: PLATFORM.version });
      for (const rule of [/confirm/i, /send_broadcast/, /schedule_broadcast/, /unsubscrib/i, /redact/i, /delet/i, /`warnings`/, /Retry-After/, /Never print/]) {
        expect(res.text).toMatch(rule);
      }
      expect(res.text).toContain('Authorization: Bearer <token>');
      expect(res.text).toContain('https://mail.example.com/api/v1/openapi.json');
      expect(res.text).not.toContain(token);
    });
  });

  it.each(['/api/v1/whoami', '/api/v1/status', '/api/v1/prime', '/api/v1/skill'])('%s without a valid token is the spec 401', async (path) => {
    const res = await request(api.app).get(path);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
    expect((await get(path, 'mc_nope')).status).toBe(401);
  });

  it('serves the OpenAPI document as YAML without a token, equal to the JSON one', async () => {
    const res = await request(api.app).get('/api/v1/openapi');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(res.text)).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
    // Plain YAML: no anchors or aliases for a reader to resolve.
    expect(res.text).not.toMatch(/^\s*[\w-]+: [&*]\w/m);
  });
});

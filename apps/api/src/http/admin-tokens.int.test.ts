import { CreateChannel } from '@mailcast/core';
import request from 'supertest';
import { useApi } from '../test-support/harness';

const FORBIDDEN = { error: 'Admin API token required for global suppressions' };

/**
 * Issue 34, finding 2: `channel create` granted global_suppressions_write, so any channel could
 * suppress an address for every channel, read the installation list by fragment, and delete
 * other channels' entries. The list is now an admin token's alone (docs/auth.md, Admin tokens).
 */
describe('the installation-wide suppression list is out of channel hands', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  let attacker: string;
  let victim: string;
  let admin: string;

  const call = (t: string, method: 'get' | 'post' | 'delete', path: string, body?: object) => {
    const r = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);
    return body === undefined ? r : r.send(body);
  };
  const globalRows = () => api.database.db('suppressions').whereNull('channel_id').orderBy('email').pluck('email');

  beforeAll(async () => {
    // A token as `channel create` printed it before: every permission, the global one included.
    attacker = (await api.fixtures.aTenant()).token;
    victim = (await api.fixtures.aTenant()).token;
    admin = await api.fixtures.anAdminToken();
    expect((await call(admin, 'post', '/global_suppressions.json', { email: 'kept@example.com' })).status).toBe(201);
    expect((await call(victim, 'post', '/suppressions.json', { email: 'victims-own@example.com' })).status).toBe(201);
  });

  it('answers a channel token 403 on every call of the global list, and writes nothing', async () => {
    const attempts = [
      await call(attacker, 'post', '/global_suppressions.json', { email: 'customer@example.com' }),
      await call(attacker, 'post', '/global_suppressions/bulk.json', { emails: ['customer@example.com', 'other@example.com'] }),
      await call(attacker, 'get', '/global_suppressions.json?email=kept'),
      await call(attacker, 'delete', '/global_suppressions.json', { email: 'kept@example.com' }),
      await call(attacker, 'delete', '/global_suppressions/bulk.json', { emails: ['kept@example.com'] }),
      // A malformed body is refused for what the token is, before it is read.
      await call(attacker, 'post', '/global_suppressions.json', { email: 'not an address' }),
    ];
    for (const res of attempts) expect([res.status, res.body]).toEqual([403, FORBIDDEN]);
    expect(await globalRows()).toEqual(['kept@example.com']);
  });

  it("leaves the other channel's sending and entries as they were, and answers it at once", async () => {
    const started = performance.now();
    const check = await call(victim, 'get', '/suppressions/check.json?email=customer@example.com');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(check.body).toEqual({ email: 'customer@example.com', suppressed: false, scope: null, reason: null });
    expect((await call(victim, 'get', '/suppressions/check.json?email=victims-own@example.com')).body.scope).toBe('channel');
  });

  it('lets an admin token read and change the global list', async () => {
    expect((await call(admin, 'post', '/global_suppressions/bulk.json', { emails: ['a@example.com', 'nope'] })).body).toEqual({
      added: 1,
      already_suppressed: 0,
      invalid: 1,
      invalid_emails: ['nope'],
    });
    expect((await call(admin, 'get', '/global_suppressions.json?email=a@')).body.suppressions).toEqual([
      { email: 'a@example.com', reason: 'manual', created_at: expect.any(String) },
    ]);
    expect((await call(admin, 'delete', '/global_suppressions.json', { email: 'a@example.com' })).body).toEqual({ removed: true });
    expect((await call(victim, 'get', '/suppressions/check.json?email=kept@example.com')).body.scope).toBe('global');
  });

  it("gives channel create's token every channel permission and nothing installation-wide", async () => {
    const { token } = await api.container.resolve(CreateChannel).execute({ name: 'fresh' });
    const whoami = await call(token, 'get', '/whoami');
    expect(whoami.body.token_type).toBe('channel');
    // Every channel permission, true; the installation-wide ones are not a channel token's to name.
    expect(whoami.body.token.permissions).not.toHaveProperty('global_suppressions_write');
    expect(whoami.body.token.permissions).toMatchObject({ suppressions_write: true });
    expect((await call(token, 'post', '/global_suppressions.json', { email: 'x@example.com' })).body).toEqual(FORBIDDEN);
  });
});

describe('admin tokens on channel routes (docs/auth.md, Admin tokens)', () => {
  const api = useApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
  let admin: string;
  let mine: { channel: { id: number; name: string }; token: string };
  let theirs: { channel: { id: number; name: string }; token: string };

  const call = (t: string, method: 'get' | 'post', path: string, body?: object) => {
    const r = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);
    return body === undefined ? r : r.send(body);
  };

  beforeAll(async () => {
    admin = await api.fixtures.anAdminToken();
    mine = await api.fixtures.aTenant();
    theirs = await api.fixtures.aTenant();
    expect((await call(theirs.token, 'post', '/subscribers.json', { email: 'theirs@example.com' })).status).toBe(201);
  });

  it('needs broadcast_channel_id (422), refuses an unknown one (404), and works in the channel it names', async () => {
    expect(await call(admin, 'get', '/subscribers.json').then((r) => [r.status, r.body])).toEqual([
      422,
      { error: 'broadcast_channel_id is required with an admin token' },
    ]);
    expect(await call(admin, 'get', '/subscribers.json?broadcast_channel_id=999999').then((r) => [r.status, r.body])).toEqual([
      404,
      { error: 'Channel not found' },
    ]);
    expect((await call(admin, 'get', '/subscribers.json?broadcast_channel_id=x')).status).toBe(422);

    const created = await call(admin, 'post', '/subscribers.json', { broadcast_channel_id: mine.channel.id, email: 'via-admin@example.com' });
    expect(created.status).toBe(201);
    // The parameter is the admin token's, not the subscriber's: no warning about it.
    expect(created.body.warnings).toBeUndefined();
    const listed = await call(admin, 'get', `/subscribers.json?broadcast_channel_id=${mine.channel.id}`);
    expect(listed.body.subscribers.map((s: { email: string }) => s.email)).toEqual(['via-admin@example.com']);
    const whoami = await call(admin, 'get', `/whoami?broadcast_channel_id=${mine.channel.id}`);
    expect(whoami.body).toMatchObject({ token_type: 'admin_cross_channel', channel: { id: mine.channel.id, name: mine.channel.name } });
    expect((await call(admin, 'get', '/whoami')).body).toMatchObject({ type: 'admin_cross_channel', token_type: 'admin_cross_channel', channel: null });
  });

  it('never takes a channel token out of its own channel', async () => {
    const listed = await call(mine.token, 'get', `/subscribers.json?broadcast_channel_id=${theirs.channel.id}`);
    expect(listed.body.subscribers.map((s: { email: string }) => s.email)).toEqual(['via-admin@example.com']);
  });
});

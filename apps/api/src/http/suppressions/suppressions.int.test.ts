import request from 'supertest';
import { useApi } from '../../test-support/harness';

describe('suppression lists (channel and installation-wide)', () => {
  const api = useApi();
  let token: string;
  let otherToken: string;
  /** The installation-wide list is an admin token's alone (docs/suppressions.md). */
  let admin: string;

  beforeAll(async () => {
    token = (await api.fixtures.aTenant()).token;
    otherToken = (await api.fixtures.aTenant()).token;
    admin = await api.fixtures.anAdminToken();
  });

  const call = (method: 'get' | 'post' | 'delete', path: string, body?: object, t = token) => {
    const r = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${t}`);
    return body === undefined ? r : r.send(body);
  };

  it('adds an address once (201, then 200), normalised, and lists it', async () => {
    const first = await call('post', '/suppressions.json', { email: ' Ann@Example.COM ' });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ email: 'ann@example.com', reason: 'manual', created_at: expect.any(String) });
    const again = await call('post', '/suppressions.json', { suppression: { email: 'ann@example.com' } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    const list = await call('get', '/suppressions.json?email=ANN');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      suppressions: [first.body],
      pagination: { total: 1, count: 1, from: 1, to: 1, current: 1, total_pages: 1 },
    });
    // Another channel's list is its own.
    expect((await call('get', '/suppressions.json', undefined, otherToken)).body.suppressions).toEqual([]);
  });

  it('refuses a malformed address with a 422 that names the field, and writes nothing', async () => {
    const res = await call('post', '/suppressions.json', { email: 'not an address' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ errors: { email: ['is invalid'] } });
    expect((await call('post', '/suppressions.json', {})).body).toEqual({ errors: { email: ["can't be blank"] } });
    expect(await api.database.db('suppressions').where('email', 'like', 'not%').count()).toEqual([{ count: 0 }]);
  });

  it('answers check per list: channel first, then global, with the reason', async () => {
    expect((await call('post', '/global_suppressions.json', { email: 'gus@example.com' }, admin)).status).toBe(201);
    expect((await call('post', '/global_suppressions.json', { email: 'ann@example.com' }, admin)).status).toBe(201);
    expect((await call('get', '/suppressions/check.json?email=ANN@example.com')).body).toEqual({
      email: 'ann@example.com',
      suppressed: true,
      scope: 'channel',
      reason: 'manual',
    });
    expect((await call('get', '/suppressions/check.json?email=gus@example.com')).body).toEqual({
      email: 'gus@example.com',
      suppressed: true,
      scope: 'global',
      reason: 'manual',
    });
    // The global list reaches every channel.
    expect((await call('get', '/suppressions/check.json?email=gus@example.com', undefined, otherToken)).body.scope).toBe('global');
    expect((await call('get', '/suppressions/check.json?email=nobody@example.com')).body).toEqual({
      email: 'nobody@example.com',
      suppressed: false,
      scope: null,
      reason: null,
    });
    expect((await call('get', '/suppressions/check.json')).status).toBe(422);
  });

  it('adds and removes in bulk, counting what was new, already there, invalid and not found', async () => {
    const added = await call('post', '/suppressions/bulk.json', {
      emails: ['b1@example.com', 'B1@example.com', 'b2@example.com', 'ann@example.com', 'nope'],
    });
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ added: 2, already_suppressed: 1, invalid: 1, invalid_emails: ['nope'] });
    const removed = await call('delete', '/suppressions/bulk.json', { emails: ['b1@example.com', 'b2@example.com', 'zz@example.com', 'not-an-address'] });
    // invalid is a count in the removal's answer too; the malformed entry is also not found.
    expect(removed.body).toEqual({ removed: 2, not_found: 2, invalid: 1, invalid_emails: ['not-an-address'] });
    const tooMany = Array.from({ length: 10_001 }, (_, i) => `m${i}@example.com`);
    const refused = await call('post', '/suppressions/bulk.json', { emails: tooMany });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ errors: { emails: ['has too many entries (maximum is 10000)'] } });
    expect(await api.database.db('suppressions').where('email', 'like', 'm%@example.com').count()).toEqual([{ count: 0 }]);
    const tenThousand = await call('post', '/global_suppressions/bulk.json', { emails: tooMany.slice(0, 10_000) }, admin);
    expect(tenThousand.body).toEqual({ added: 10_000, already_suppressed: 0, invalid: 0, invalid_emails: [] });
    const globalRemoved = await call('delete', '/global_suppressions/bulk.json', { emails: ['m0@example.com', 'nope', 'also nope'] }, admin);
    expect(globalRemoved.body).toEqual({ removed: 1, not_found: 2, invalid: 2, invalid_emails: ['nope', 'also nope'] });
    await call('post', '/global_suppressions.json', { email: 'm0@example.com' }, admin);
    const page = await call('get', '/global_suppressions.json?page=2', undefined, admin);
    expect(page.body.suppressions).toHaveLength(250);
    expect(page.body.pagination).toEqual({ total: 10_002, count: 250, from: 251, to: 500, current: 2, total_pages: 41 });
  });

  it('removes one address, saying whether it was there', async () => {
    expect((await call('delete', '/suppressions.json', { email: 'ann@example.com' })).body).toEqual({ removed: true });
    expect((await call('delete', '/suppressions.json?email=ann@example.com')).body).toEqual({ removed: false });
    expect((await call('get', '/suppressions/check.json?email=ann@example.com')).body).toMatchObject({ scope: 'global' });
  });

  it('needs suppressions_read to read, suppressions_write for the channel list, and an admin token with global_suppressions_write for the global one', async () => {
    const channel = await api.fixtures.aChannel();
    const reader = await api.fixtures.aToken(channel.id, ['suppressions_read']);
    const writer = await api.fixtures.aToken(channel.id, ['suppressions_read', 'suppressions_write']);
    expect((await call('get', '/suppressions.json', undefined, reader)).status).toBe(200);
    expect((await call('post', '/suppressions.json', { email: 'x@example.com' }, reader)).status).toBe(401);
    expect((await call('post', '/suppressions.json', { email: 'x@example.com' }, writer)).status).toBe(201);
    const forbidden = { error: 'Admin API token required for global suppressions' };
    expect((await call('post', '/global_suppressions.json', { email: 'x@example.com' }, writer)).body).toEqual(forbidden);
    expect((await call('delete', '/global_suppressions/bulk.json', { emails: ['gus@example.com'] }, writer)).status).toBe(403);
    const adminReader = await api.fixtures.anAdminToken(['suppressions_read']);
    expect((await call('get', '/global_suppressions.json', undefined, adminReader)).status).toBe(200);
    expect((await call('post', '/global_suppressions.json', { email: 'x@example.com' }, adminReader)).body).toEqual({ error: 'Unauthorized' });
  });
});

import { CachedApiTokenRepository } from '@mailcast/adapters';
import { Clock, RevokeApiToken } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import request from 'supertest';
import { TOKEN_CACHE_TTL_MS } from '../container';
import { startApi, type ApiHarness } from '../test-support/harness';

/** docs/auth.md, Verifying a token: verified tokens in memory, revocations heard at once. */
describe('verified tokens kept in memory', () => {
  let api: ApiHarness;
  let current = Date.UTC(2026, 10, 22, 12, 0, 0);

  beforeAll(async () => {
    api = await startApi({ overrides: [{ token: Clock, value: { now: () => new Date(current) } }] });
    // Listening before the first request, so every test below starts with a live cache.
    await api.container.resolve(CachedApiTokenRepository).start();
  });
  afterAll(() => api.close());

  const broadcasts = (token: string) => request(api.app).get('/api/v1/broadcasts').set('Authorization', `Bearer ${token}`);
  const idOf = async (channelId: number) =>
    (await api.database.db('api_tokens').where({ channel_id: channelId }).orderBy('id', 'desc').first('id')).id as number;
  /** A revocation nobody announces: the row edited by hand, as an operator might. */
  const revokeByHand = (id: number) => api.database.db('api_tokens').where({ id }).update({ revoked_at: new Date() });

  it('serves a verified token from memory: a row edited by hand is noticed only after the TTL', async () => {
    expect(api.container.resolve(CachedApiTokenRepository).active).toBe(true);
    const { channel, token } = await api.fixtures.aTenant();
    expect((await broadcasts(token)).status).toBe(200);
    await revokeByHand(await idOf(channel.id));
    expect((await broadcasts(token)).status).toBe(200);
    current += TOKEN_CACHE_TTL_MS - 1;
    expect((await broadcasts(token)).status).toBe(200);
    current += 2;
    const refused = await broadcasts(token);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Unauthorized' });
  });

  it('refuses a cached token within a second of its revocation through Mailcast (NOTIFY at commit)', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    expect((await broadcasts(token)).status).toBe(200);
    expect((await broadcasts(token)).status).toBe(200);
    const revokedAt = Date.now();
    await api.container.resolve(RevokeApiToken).execute({ id: await idOf(channel.id) });
    await eventually(async () => ((await broadcasts(token)).status === 401 ? true : undefined), 1_000, 10);
    expect(Date.now() - revokedAt).toBeLessThan(1_000);
    // And it stays refused: the fresh lookup is not stored as valid.
    expect((await broadcasts(token)).status).toBe(401);
  });

  it('still checks a cached token for the route permission and scopes it to its channel', async () => {
    const { channel } = await api.fixtures.aTenant();
    const other = await api.fixtures.aTenant();
    const readOnly = await api.fixtures.aToken(channel.id, ['broadcasts_read']);
    const created = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${other.token}`)
      .send({ broadcast: { name: 'Theirs', subject: 'S', body: 'B' } });
    expect(created.status).toBe(201);

    expect((await broadcasts(readOnly)).status).toBe(200);
    // Cached now: a write is still refused, a read of another channel's broadcast still 404s.
    const write = await request(api.app)
      .post('/api/v1/broadcasts')
      .set('Authorization', `Bearer ${readOnly}`)
      .send({ broadcast: { name: 'Mine', subject: 'S', body: 'B' } });
    expect(write.status).toBe(401);
    expect(write.body).toEqual({ error: 'Unauthorized' });
    const theirs = await request(api.app).get(`/api/v1/broadcasts/${created.body.id}`).set('Authorization', `Bearer ${readOnly}`);
    expect(theirs.status).toBe(404);
    expect(await api.database.db('broadcasts').where({ channel_id: channel.id }).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 0 }]);
  });

  it('looks every token up while the revocation listener is lost, and listens again', async () => {
    const tokens = api.container.resolve(CachedApiTokenRepository);
    const { channel, token } = await api.fixtures.aTenant();
    expect((await broadcasts(token)).status).toBe(200);
    const killed = await api.database.db.raw(
      `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN %'`,
    );
    expect(killed.rows).toEqual([{ killed: true }]);
    await eventually(async () => (tokens.active ? undefined : true), 2_000, 10);
    await revokeByHand(await idOf(channel.id));
    expect((await broadcasts(token)).status).toBe(401);

    // A later request opens the listener again (at most once a second).
    const fresh = await api.fixtures.aTenant();
    await eventually(async () => ((await broadcasts(fresh.token)).status === 200 && tokens.active ? true : undefined), 5_000, 100);
  });
});

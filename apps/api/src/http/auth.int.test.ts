import { RevokeApiToken } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import request from 'supertest';
import { useApi } from '../test-support/harness';

describe('authentication (spec: Authentication; docs/auth.md tokens)', () => {
  const api = useApi();
  let channelId: number;
  let token: string;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
  });

  const get = (authorization?: string) => {
    const req = request(api.app).get('/api/v1/broadcasts');
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  it('accepts a valid bearer token', async () => {
    const res = await get(`Bearer ${token}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], total: 0 });
  });

  it.each([
    ['no header', undefined],
    ['an empty header', ''],
    ['another scheme', () => `Basic ${token}`],
    ['the scheme without the space', () => `Bearer${token}`],
    ['the token alone', () => token],
    ['an unknown token', 'Bearer mc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'],
    ['the token with one character changed', () => `Bearer ${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`],
    ['the token with a leading space', () => `Bearer  ${token}`],
    ['the token twice', () => `Bearer ${token} ${token}`],
  ])('answers %s with 401 {"error": "Unauthorized"}', async (_case, header) => {
    const res = await get(typeof header === 'function' ? header() : header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
  });

  it('accepts the scheme in any case (RFC 7235)', async () => {
    expect((await get(`bearer ${token}`)).status).toBe(200);
    expect((await get(`BEARER ${token}`)).status).toBe(200);
  });

  it('refuses a token without the permission the route needs, with 401', async () => {
    const writeOnly = await api.fixtures.aToken(channelId, ['broadcasts_write', 'subscribers_read']);
    const res = await get(`Bearer ${writeOnly}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });

    const readOnly = await api.fixtures.aToken(channelId, ['broadcasts_read']);
    expect((await get(`Bearer ${readOnly}`)).status).toBe(200);
  });

  it('refuses a revoked token as soon as the revocation is announced (well within a second)', async () => {
    const doomed = await api.fixtures.aToken(channelId);
    expect((await get(`Bearer ${doomed}`)).status).toBe(200);
    const row = await api.database.db('api_tokens').orderBy('id', 'desc').first('id');
    await api.container.resolve(RevokeApiToken).execute({ id: row.id });
    await eventually(async () => ((await get(`Bearer ${doomed}`)).status === 401 ? true : undefined), 1_000, 10);
    expect((await get(`Bearer ${doomed}`)).status).toBe(401);
  });

  it('stores only a hash of the token', async () => {
    const rows = await api.database.db('api_tokens').select('token_hash', 'token_prefix');
    const everything = JSON.stringify(rows);
    expect(everything).not.toContain(token);
    expect(rows.every((r: { token_hash: Buffer }) => r.token_hash.length === 32)).toBe(true);
  });

  it('never writes a token to the logs', async () => {
    await get(`Bearer ${token}`);
    await get('Bearer mc_not-a-real-token');
    expect(api.logs.length).toBeGreaterThan(0);
    expect(JSON.stringify(api.logs)).not.toContain(token);
    expect(JSON.stringify(api.logs)).not.toContain('mc_not-a-real-token');
  });

  it('requires authentication before revealing whether an /api/v1 route exists', async () => {
    const res = await request(api.app).get('/api/v1/no-such-thing');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Unauthorized' });
  });
});

import { PERMISSIONS } from '@mailcast/domain';
import request from 'supertest';
import { parse } from 'yaml';
import { OPENAPI_DOCUMENT } from '../../openapi/document';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

/** Discovery (docs/discovery.md): whoami, status and the YAML document. */
describe('discovery API', () => {
  const api = useApi();

  const get = (path: string, token: string) => request(api.app).get(path).set('Authorization', `Bearer ${token}`);

  it('whoami names the token, its permissions and its channel, for a token of any permission', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Acme news' });
    const full = await api.fixtures.aToken(channel.id);
    const narrow = await api.fixtures.aToken(channel.id, ['subscribers_read']);

    const res = await get('/api/v1/whoami', narrow);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      type: 'api_token',
      token_type: 'channel',
      token: { id: expect.any(Number), permissions: ['subscribers_read'] },
      channel: { id: channel.id, name: 'Acme news', slug: 'acme-news' },
    });
    expectResponseMatchesDocument(res);

    const other = await get('/api/v1/whoami', full);
    expect(other.body.token.permissions).toEqual([...PERMISSIONS]);
    expect(other.body.token.id).not.toBe(res.body.token.id);
    // The token itself is never echoed.
    expect(JSON.stringify(other.body)).not.toContain(full.slice(3));
  });

  it('status counts the email servers and is ready only with one to send through', async () => {
    const channel = await api.fixtures.aChannel({ name: 'Servers' });
    const token = await api.fixtures.aToken(channel.id, ['broadcasts_read']);

    const before = await get('/api/v1/status', token);
    expect(before.status).toBe(200);
    expect(before.body).toEqual({ status: 'ok', channel: { id: channel.id, name: 'Servers' }, email_servers: 0, ready: false });
    expectResponseMatchesDocument(before);

    for (const host of ['smtp1.example.com', 'smtp2.example.com']) {
      await api.fixtures.repositories.emailServers.create({
        channelId: channel.id,
        host,
        port: 587,
        tls: 'starttls',
        username: null,
        password: null,
        fromEmail: 'news@example.com',
        fromName: null,
      });
    }
    const after = await get('/api/v1/status', token);
    expect(after.body).toEqual({ status: 'ok', channel: { id: channel.id, name: 'Servers' }, email_servers: 2, ready: true });
  });

  it.each(['/api/v1/whoami', '/api/v1/status'])('%s without a valid token is the spec 401', async (path) => {
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

import { Repositories } from '@mailcast/core';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { startApi, type ApiHarness } from '../../test-support/harness';

/** `POST /api/v1/email_servers/:id/copy_to_channel` (docs/email-servers.md, "Copy to another channel"). */
describe('copying an email server to another channel', () => {
  let api: ApiHarness;
  let admin: string;
  let sourceToken: string;
  let source: number;
  let target: number;
  let targetToken: string;
  let serverId: number;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    ({
      token: sourceToken,
      channel: { id: source },
    } = await api.fixtures.aTenant());
    ({
      token: targetToken,
      channel: { id: target },
    } = await api.fixtures.aTenant());
    admin = await api.fixtures.anAdminToken();
    const created = await request(api.app)
      .post('/api/v1/email_servers')
      .set('Authorization', `Bearer ${sourceToken}`)
      .send({
        email_server: {
          name: 'Relay',
          host: '127.0.0.1',
          port: 2525,
          tls: 'none',
          smtp_username: 'relay',
          smtp_password: 'relay-password-123',
          max_per_minute: 60,
        },
      });
    expect(created.status).toBe(201);
    serverId = created.body.id;
    const dkim = await request(api.app)
      .post(`/api/v1/email_servers/${serverId}/generate_dkim_key`)
      .set('Authorization', `Bearer ${sourceToken}`)
      .send({ dkim_domain: 'example.com' });
    expect(dkim.status).toBe(200);
  });
  afterAll(() => api.close());

  const copy = (token: string, body: object, id: number | string = serverId) =>
    request(api.app).post(`/api/v1/email_servers/${id}/copy_to_channel`).set('Authorization', `Bearer ${token}`).send(body);
  const serversOf = (channelId: number) => api.database.db('email_servers').where({ channel_id: channelId }).orderBy('id');

  it('copies the server with its sealed secrets, answering 201 with the copy redacted', async () => {
    const res = await copy(admin, { target_channel_id: target });
    expect(res.status).toBe(201);
    expectResponseMatchesDocument(res);
    expect(res.body).toMatchObject({
      name: 'Relay',
      host: '127.0.0.1',
      port: 2525,
      tls: 'none',
      smtp_username: 'relay',
      smtp_password: '••••••••',
      max_per_minute: 60,
      dkim_domain: 'example.com',
      dkim_key_present: true,
      active: true,
    });
    expect(res.body.id).not.toBe(serverId);
    expect(JSON.stringify(res.body)).not.toContain('relay-password-123');
    expect(JSON.stringify(res.body)).not.toContain('PRIVATE KEY');

    const [original] = await api.database.db('email_servers').where({ id: serverId });
    const [copied] = await serversOf(target);
    expect(copied.id).toBe(res.body.id);
    // Copied as stored, never opened on the way: the same sealed values, which open in the target.
    expect(copied.password).toBe(original.password);
    expect(copied.dkim_private_key).toBe(original.dkim_private_key);
    expect(copied.password).toMatch(/^mcs1\./);
    const opened = await api.container.resolve<Repositories>(Repositories).emailServers.findById(target, copied.id);
    expect(opened?.password).toBe('relay-password-123');
    expect(opened?.dkimPrivateKey).toContain('PRIVATE KEY');

    // The target channel's own token sees it as one of its servers; the source keeps its own.
    const listed = await request(api.app).get('/api/v1/email_servers').set('Authorization', `Bearer ${targetToken}`);
    expect(listed.body.data.map((s: { id: number }) => s.id)).toEqual([copied.id]);
    expect((await serversOf(source)).map((s) => s.id)).toEqual([serverId]);
  });

  it('finds the source in the channel broadcast_channel_id names, when it names one', async () => {
    const named = await copy(admin, { broadcast_channel_id: source, target_channel_id: target });
    expect(named.status).toBe(201);
    const elsewhere = await copy(admin, { broadcast_channel_id: target, target_channel_id: source });
    expect([elsewhere.status, elsewhere.body]).toEqual([404, { error: 'Email server not found' }]);
    const byQuery = await request(api.app)
      .post(`/api/v1/email_servers/${serverId}/copy_to_channel?broadcast_channel_id=${source}`)
      .set('Authorization', `Bearer ${admin}`)
      .send({ target_channel_id: String(target) });
    expect(byQuery.status).toBe(201);
  });

  it('refuses a channel token with 403, whatever it names, and writes nothing', async () => {
    const before = await api.database.db('email_servers').count<{ count: string }[]>('id');
    for (const body of [
      { target_channel_id: target },
      { target_channel_id: source },
      { target_channel_id: target, broadcast_channel_id: target },
      { nonsense: true },
    ]) {
      const res = await copy(sourceToken, body);
      expect([res.status, res.body]).toEqual([403, { error: 'Admin API token required for cross-channel operations' }]);
    }
    // The target channel's token cannot pull another channel's server in either.
    const pulled = await copy(targetToken, { target_channel_id: target });
    expect(pulled.status).toBe(403);
    expect(await api.database.db('email_servers').count<{ count: string }[]>('id')).toEqual(before);
  });

  it('answers 4xx for a bad target or server, never a partial write', async () => {
    const before = await api.database.db('email_servers').count<{ count: string }[]>('id');
    const cases: Array<[object, number | string, number, object]> = [
      [{}, serverId, 422, { error: 'target_channel_id is required' }],
      [{ target_channel_id: 'abc' }, serverId, 422, { error: 'target_channel_id must be a positive integer' }],
      [{ target_channel_id: -1 }, serverId, 422, { error: 'target_channel_id must be a positive integer' }],
      [{ target_channel_id: source }, serverId, 422, { error: 'target_channel_id must name another channel' }],
      [{ target_channel_id: 99_999_999 }, serverId, 404, { error: 'Channel not found' }],
      [{ target_channel_id: target }, 99_999_999, 404, { error: 'Email server not found' }],
      [{ target_channel_id: target }, 'nope', 404, { error: 'Email server not found' }],
    ];
    for (const [body, id, status, answer] of cases) {
      const res = await copy(admin, body, id);
      expect([res.status, res.body]).toEqual([status, answer]);
    }
    const reader = await api.fixtures.anAdminToken(['email_servers_read']);
    expect((await copy(reader, { target_channel_id: target })).status).toBe(401);
    expect(await api.database.db('email_servers').count<{ count: string }[]>('id')).toEqual(before);
  });
});

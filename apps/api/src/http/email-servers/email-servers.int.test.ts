import { NodemailerSmtpProbe } from '@mailcast/adapters';
import { SmtpProbe } from '@mailcast/core';
import { findPlaintext } from '@mailcast/testkit';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';
import { recordingSmtpServer } from '../../test-support/smtp-server';

/** Email servers over the API (docs/email-servers.md). */
describe('email servers API', () => {
  let api: ApiHarness;
  let token: string;
  let channelId: number;
  let smtp: SMTPServer;
  let smtpPort: number;
  const smtpEvents: string[] = [];

  beforeAll(async () => {
    // A failed check waits 1 s here, not 10 (email-server-addresses.int.test.ts times it).
    const probe = new NodemailerSmtpProbe({ allowPrivate: true, allowPlaintext: false }, { failureMs: 1_000 });
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '0' }, overrides: [{ token: SmtpProbe, value: probe }] });
    ({
      token,
      channel: { id: channelId },
    } = await api.fixtures.aTenant());
    smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth(auth, _session, callback) {
        smtpEvents.push(`AUTH ${auth.username}`);
        if (auth.password === 'right-password-123') callback(null, { user: auth.username });
        else callback(new Error('Invalid username or password'));
      },
      onMailFrom(_address, _session, callback) {
        smtpEvents.push('MAIL FROM');
        callback();
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    smtpPort = (smtp.server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await api.close();
  });

  const as = (t: string) => ({ Authorization: `Bearer ${t}` });
  const post = (body: unknown) =>
    request(api.app)
      .post('/api/v1/email_servers')
      .set(as(token))
      .send(body as object);
  const patch = (id: number, body: unknown) =>
    request(api.app)
      .patch(`/api/v1/email_servers/${id}`)
      .set(as(token))
      .send(body as object);

  it('creates, shows the password only redacted, lists, reads and keeps it sealed', async () => {
    const created = await post({
      email_server: {
        name: 'SES',
        host: 'email-smtp.eu-west-1.amazonaws.com',
        port: 587,
        smtp_username: 'AKIA',
        smtp_password: 'BHr9-very-long-secret-value',
        from_email: 'news@example.com',
        max_per_second: 14,
        dkim_domain: 'example.com',
        dkim_selector: 's1',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      name: 'SES',
      host: 'email-smtp.eu-west-1.amazonaws.com',
      port: 587,
      tls: 'starttls',
      smtp_username: 'AKIA',
      smtp_password: '••••••••',
      from_email: 'news@example.com',
      from_name: null,
      max_per_second: 14,
      max_per_minute: null,
      max_per_hour: null,
      max_per_day: null,
      dkim_domain: 'example.com',
      dkim_selector: 's1',
      bounce_domain: null,
      dkim_key_present: false,
      active: true,
      deactivated_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain('very-long-secret');
    const read = await request(api.app).get(`/api/v1/email_servers/${created.body.id}`).set(as(token));
    expect(read.body).toEqual(created.body);
    const list = await request(api.app).get('/api/v1/email_servers').set(as(token));
    expect(list.body).toEqual({ data: [created.body], total: 1 });
    expect(await findPlaintext(api.database.db, 'BHr9-very-long-secret-value')).toEqual([]);
    expect(JSON.stringify(api.logs)).not.toContain('very-long-secret');
  });

  it('shows any password as eight bullets, nothing of it, not its length; a PATCH carrying them leaves it unchanged', async () => {
    const created = await post({ host: '127.0.0.1', port: smtpPort, tls: 'none', smtp_username: 'u', smtp_password: 'right-password-123' });
    expect(created.body.smtp_password).toBe('••••••••');
    const short = await post({ host: '127.0.0.1', port: smtpPort, tls: 'none', smtp_username: 'u', smtp_password: 'short' });
    expect(short.body.smtp_password).toBe('••••••••');
    const echoed = await patch(created.body.id, { ...created.body, name: 'Local' });
    expect(echoed.status).toBe(200);
    expect(echoed.body).toMatchObject({ name: 'Local', smtp_password: '••••••••' });
    const test = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(token));
    expect(test.status).toBe(200);
    expect(test.body).toEqual({ ok: true, message: expect.stringContaining(`127.0.0.1:${smtpPort}`) });
    // A real handshake with AUTH, and no email: nothing past AUTH.
    expect(smtpEvents).toEqual(['AUTH u']);

    const changed = await patch(created.body.id, { smtp_password: 'wrong-password-456' });
    expect(changed.body.smtp_password).toBe('••••••••');
    const failed = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(token));
    // One generic answer for every failure, never the server's words (docs/email-servers.md).
    expect(failed.body).toEqual({
      ok: false,
      message: 'Could not connect to the server, complete its TLS handshake or authenticate (check host, port, tls and credentials)',
    });
    expect(smtpEvents).not.toContain('MAIL FROM');
  });

  /**
   * Issue 34, finding 5: a token with only email_servers_write pointed a server at a listener of
   * its own and ran test_connection, and the listener received the stored credentials.
   */
  it('clears the stored password when host, port or tls change without a new one, so it never reaches the new destination', async () => {
    const listener = await recordingSmtpServer();
    const listenerPort = listener.port;
    try {
      const created = await post({ host: '127.0.0.1', port: smtpPort, tls: 'none', smtp_username: 'u', smtp_password: 'right-password-123' });
      const writer = await api.fixtures.aToken(channelId, ['email_servers_write']);
      const moved = await request(api.app).patch(`/api/v1/email_servers/${created.body.id}`).set(as(writer)).send({ port: listenerPort });
      const probe = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(writer));
      expect(probe.status).toBe(200);
      expect(listener.auths.join()).not.toContain('right-password-123');
      expect([moved.status, moved.body.smtp_password]).toEqual([200, null]);
      // Sending back the redacted form with a move is no new password either.
      await patch(created.body.id, { smtp_password: 'right-password-123' });
      const echoed = await patch(created.body.id, { port: smtpPort, smtp_password: '••••••••' });
      expect(echoed.body.smtp_password).toBeNull();

      // The same edit with the password again keeps it; a change of tls alone clears it too.
      const again = await patch(created.body.id, { host: 'localhost', smtp_password: 'right-password-123' });
      expect(again.body.smtp_password).toBe('••••••••');
      const tls = await patch(created.body.id, { tls: 'starttls' });
      expect(tls.body.smtp_password).toBeNull();
      expect(JSON.stringify(api.logs)).not.toContain('right-password-123');
    } finally {
      await listener.close();
    }
  });

  it('answers test_connection ok:false for a server that offers no STARTTLS when tls is starttls, without AUTH', async () => {
    smtpEvents.length = 0;
    const created = await post({ host: '127.0.0.1', port: smtpPort, tls: 'starttls', smtp_username: 'u', smtp_password: 'right-password-123' });
    const test = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(token));
    expect(test.body).toMatchObject({ ok: false });
    expect(smtpEvents).toEqual([]);
  });

  it.each([
    [{ port: 587 }, { errors: { host: ["can't be blank"] } }],
    [
      { host: 'smtp.example.com', port: 587, tls: 'none' },
      { errors: { tls: ['none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true'] } },
    ],
    [{ host: 'smtp.example.com', port: 587, tls: 'ssl' }, { error: 'Tls must be one of starttls, implicit, none' }],
    [{ host: 'smtp.example.com', port: 70000 }, { errors: { port: ['must be an integer from 1 to 65535'] } }],
    [{ host: 'smtp.example.com', port: 587, max_per_hour: 0 }, { error: 'Max per hour must be a positive integer or null' }],
    [{ host: 'smtp.example.com', port: 587, smtp_password: 'p' }, { errors: { smtp_username: ['is required with a password'] } }],
  ])('refuses %j with 422 %j and writes nothing', async (body, answer) => {
    const before = await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' });
    const res = await post(body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual(answer);
    expect(await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' })).toEqual(before);
  });

  it('needs email_servers_read and _write, and hides other channels’ servers', async () => {
    const readOnly = await api.fixtures.aToken(channelId, ['email_servers_read']);
    expect((await request(api.app).get('/api/v1/email_servers').set(as(readOnly))).status).toBe(200);
    expect((await request(api.app).post('/api/v1/email_servers').set(as(readOnly)).send({ host: 'h', port: 25 })).status).toBe(401);
    const none = await api.fixtures.aToken(channelId, ['broadcasts_read']);
    expect((await request(api.app).get('/api/v1/email_servers').set(as(none))).status).toBe(401);
    const other = await api.fixtures.aTenant();
    const mine = (await request(api.app).get('/api/v1/email_servers').set(as(token))).body.data[0].id as number;
    expect((await request(api.app).get(`/api/v1/email_servers/${mine}`).set(as(other.token))).status).toBe(404);
    expect((await request(api.app).delete(`/api/v1/email_servers/${mine}`).set(as(other.token))).status).toBe(404);
  });

  it('refuses to delete a server a scheduled broadcast names (422), deletes it otherwise', async () => {
    const created = await post({ host: 'smtp.example.com', port: 587 });
    const broadcast = await api.fixtures.aBroadcast(channelId, { emailServerIds: [created.body.id] });
    await api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'scheduled' });
    const refused = await request(api.app).delete(`/api/v1/email_servers/${created.body.id}`).set(as(token));
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: 'Email server is used by a scheduled or sending broadcast' });
    await api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'sent' });
    const deleted = await request(api.app).delete(`/api/v1/email_servers/${created.body.id}`).set(as(token));
    expect(deleted.body).toEqual({ message: 'Email server deleted' });
    expect((await request(api.app).get(`/api/v1/email_servers/${created.body.id}`).set(as(token))).status).toBe(404);
  });
});

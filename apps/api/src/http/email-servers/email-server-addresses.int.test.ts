import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';
import { recordingSmtpServer as smtpServer } from '../../test-support/smtp-server';

/** The one answer to a failed test_connection (docs/email-servers.md, "test_connection"). */
const FAILED = {
  ok: false,
  message: 'Could not connect to the server, complete its TLS handshake or authenticate (check host, port, tls and credentials)',
};

const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * Issue 34, finding 4: an email server's host could be any internal address, in any numeric
 * form, and the dispatcher and test_connection went there. Without SMTP_ALLOW_PRIVATE the host
 * is refused when written and the connection when made (docs/email-servers.md, "Addresses").
 */
describe('email server hosts without SMTP_ALLOW_PRIVATE', () => {
  let api: ApiHarness;
  let token: string;

  beforeAll(async () => {
    api = await startApi({ env: { SMTP_ALLOW_PRIVATE: 'false', RATE_LIMIT_PER_MINUTE: '0' } });
    ({ token } = await api.fixtures.aTenant());
  });
  afterAll(() => api.close());

  const count = async () => Number((await api.database.db('email_servers').count<{ count: string }[]>({ count: '*' }))[0]!.count);

  it.each([
    ['169.254.169.254', 'address 169.254.169.254 is not allowed'],
    ['10.0.0.5', 'address 10.0.0.5 is not allowed'],
    ['127.0.0.1', 'address 127.0.0.1 is not allowed'],
    ['0.0.0.0', 'address 0.0.0.0 is not allowed'],
    ['127.1', 'address 127.1 is not allowed'],
    ['2130706433', 'address 2130706433 is not allowed'],
    ['0x7f.1', 'address 0x7f.1 is not allowed'],
    ['0177.0.0.1', 'address 0177.0.0.1 is not allowed'],
    ['0xa9fea9fe', 'address 0xa9fea9fe is not allowed'],
    ['::1', 'address ::1 is not allowed'],
    ['[::1]', 'address ::1 is not allowed'],
    ['::ffff:169.254.169.254', 'address ::ffff:169.254.169.254 is not allowed'],
    ['::ffff:a00:5', 'address ::ffff:a00:5 is not allowed'],
    ['fd00:ec2::254', 'address fd00:ec2::254 is not allowed'],
    ['localhost', 'localhost resolves to an address that is not allowed'],
    ['mail.localhost', 'mail.localhost resolves to an address that is not allowed'],
  ])('refuses the host %s with 422 and writes nothing', async (host, message) => {
    const before = await count();
    const res = await request(api.app).post('/api/v1/email_servers').set(as(token)).send({ host, port: 25, tls: 'starttls' });
    expect([res.status, res.body]).toEqual([422, { errors: { host: [message] } }]);
    expect(await count()).toBe(before);
  });

  it('refuses a PATCH that moves a server to an internal address, leaving it as it was', async () => {
    const created = await request(api.app).post('/api/v1/email_servers').set(as(token)).send({ host: '93.184.216.34', port: 587 });
    expect(created.status).toBe(201);
    const moved = await request(api.app).patch(`/api/v1/email_servers/${created.body.id}`).set(as(token)).send({ host: '0x7f.1' });
    expect([moved.status, moved.body]).toEqual([422, { errors: { host: ['address 0x7f.1 is not allowed'] } }]);
    const read = await request(api.app).get(`/api/v1/email_servers/${created.body.id}`).set(as(token));
    expect(read.body.host).toBe('93.184.216.34');
  });

  it('refuses the connection at connect time when the stored host now stands for loopback: the listener hears nothing', async () => {
    const smtp = await smtpServer();
    try {
      const created = await request(api.app).post('/api/v1/email_servers').set(as(token)).send({ host: '93.184.216.34', port: smtp.port });
      // What a name re-pointed at an internal address (DNS rebinding) amounts to at connect.
      await api.database.db('email_servers').where({ id: created.body.id }).update({ host: '127.1' });
      const probe = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(token));
      expect([probe.status, probe.body]).toEqual([200, FAILED]);
      expect(smtp.peers).toEqual([]);
    } finally {
      await smtp.close();
    }
  });
});

/**
 * Issue 34, finding 8: `tls: none` was accepted for any `*.localhost` name, yet the name went to
 * ordinary DNS (nodemailer asks DNS servers itself), which could send the plaintext session
 * anywhere. Such names now mean loopback and are pinned to 127.0.0.1 without asking DNS: the
 * resolver here does not know `mail.localhost`, so only that rule reaches the server.
 */
describe('*.localhost hosts', () => {
  let api: ApiHarness;
  let token: string;

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '0' } });
    ({ token } = await api.fixtures.aTenant());
  });
  afterAll(() => api.close());

  it('connects a *.localhost name to loopback, without DNS, and sends the credentials only there', async () => {
    const smtp = await smtpServer();
    try {
      const created = await request(api.app)
        .post('/api/v1/email_servers')
        .set(as(token))
        .send({ host: 'mail.localhost', port: smtp.port, tls: 'none', smtp_username: 'u', smtp_password: 'p-123' });
      expect(created.status).toBe(201);
      const probe = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(token));
      expect(probe.body).toEqual({ ok: true, message: `Connected to mail.localhost:${smtp.port} (tls none), authenticated as u` });
      expect(smtp.peers).toEqual(['127.0.0.1']);
      expect(smtp.auths).toEqual(['u:p-123']);
    } finally {
      await smtp.close();
    }
  });

  it('refuses tls none for a name that does not stand for loopback, whatever it looks like', async () => {
    const res = await request(api.app).post('/api/v1/email_servers').set(as(token)).send({ host: 'localhost.example.com', port: 25, tls: 'none' });
    expect([res.status, res.body]).toEqual([422, { errors: { tls: ['none is allowed only for a loopback host, or with SMTP_ALLOW_PLAINTEXT=true'] } }]);
  });
});

import { NodemailerSmtpProbe } from '@mailcast/adapters';
import { SmtpProbe } from '@mailcast/core';
import { freePort } from '@mailcast/testkit';
import net, { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { startApi, type ApiHarness } from '../test-support/harness';

/** The one answer to a failed test_connection (docs/email-servers.md, "test_connection"). */
const FAILED = {
  ok: false,
  message: 'Could not connect to the server, complete its TLS handshake or authenticate (check host, port, tls and credentials)',
};
/** A failed check answers after this wait, always; shortened from 10 s for the test. */
const FAILURE_MS = 1_500;

const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/** A TCP listener on loopback: `onConnection` decides what it does with each connection. */
async function listener(onConnection: (socket: net.Socket) => void): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A real SMTP server on loopback that records who connected and what AUTH it heard. */
async function smtpServer(): Promise<{ port: number; peers: string[]; auths: string[]; close(): Promise<void> }> {
  const peers: string[] = [];
  const auths: string[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    allowInsecureAuth: true,
    authOptional: true,
    logger: false,
    onConnect(session, callback) {
      peers.push(session.remoteAddress.replace(/^::ffff:/, ''));
      callback();
    },
    onAuth(auth, _session, callback) {
      auths.push(`${auth.username}:${auth.password}`);
      callback(null, { user: auth.username });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    peers,
    auths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

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
 * Issue 34, finding 4 (the scanner): test_connection told a closed port (refused at once), a
 * silent one (cut off after 10 s) and a service's banner (returned verbatim) apart. Every
 * failure now answers the same words after the same wait. SMTP_ALLOW_PRIVATE is on here, as the
 * scan would be of what that setting allows.
 */
describe('test_connection failures', () => {
  let api: ApiHarness;
  let a: { token: string };
  let b: { token: string };

  beforeAll(async () => {
    const probe = new NodemailerSmtpProbe({ allowPrivate: true, allowPlaintext: false }, { failureMs: FAILURE_MS });
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '0' }, overrides: [{ token: SmtpProbe, value: probe }] });
    a = await api.fixtures.aTenant();
    b = await api.fixtures.aTenant();
  });
  afterAll(() => api.close());

  async function timedCheck(port: number, extra: object = {}): Promise<{ body: unknown; ms: number }> {
    const created = await request(api.app).post('/api/v1/email_servers').set(as(a.token)).send({ host: '127.0.0.1', port, tls: 'none', ...extra });
    expect(created.status).toBe(201);
    const started = performance.now();
    const res = await request(api.app).post(`/api/v1/email_servers/${created.body.id}/test_connection`).set(as(a.token));
    return { body: res.body, ms: performance.now() - started };
  }

  it('answers a closed port, a silent port and a banner alike, in words and in time, while another tenant is served', async () => {
    const closedPort = await freePort();
    const silent = await listener(() => undefined);
    const banner = await listener((socket) => socket.end('SSH-2.0-OpenSSH_9.6 build-host.internal.corp secret-banner\r\n'));
    try {
      // B's reads while A's checks hang: each answered within 1 s.
      const bLatencies: number[] = [];
      let checking = true;
      const healthy = (async () => {
        while (checking) {
          const started = performance.now();
          const res = await request(api.app).get('/api/v1/email_servers').set(as(b.token));
          expect(res.status).toBe(200);
          bLatencies.push(performance.now() - started);
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const [closed, hanging, talking] = await Promise.all([timedCheck(closedPort), timedCheck(silent.port), timedCheck(banner.port)]);
      checking = false;
      await healthy;

      for (const check of [closed, hanging, talking]) {
        expect(check.body).toEqual(FAILED);
        expect(check.ms).toBeGreaterThanOrEqual(FAILURE_MS - 5);
        expect(check.ms).toBeLessThan(FAILURE_MS + 500);
      }
      expect(Math.abs(closed.ms - hanging.ms)).toBeLessThan(250);
      expect(JSON.stringify(talking.body)).not.toContain('secret-banner');
      expect(silent.connections()).toBe(1);
      expect(banner.connections()).toBe(1);
      expect(bLatencies.length).toBeGreaterThan(0);
      expect(Math.max(...bLatencies)).toBeLessThan(1_000);
    } finally {
      await silent.close();
      await banner.close();
    }
  });

  it('answers a refused login with the same words, never the server\'s', async () => {
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      allowInsecureAuth: true,
      logger: false,
      onAuth: (_auth, _session, callback) => callback(new Error('Invalid login for internal-user@corp.example')),
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    try {
      const check = await timedCheck((smtp.server.address() as AddressInfo).port, { smtp_username: 'u', smtp_password: 'p-123' });
      expect(check.body).toEqual(FAILED);
      expect(check.ms).toBeGreaterThanOrEqual(FAILURE_MS - 5);
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it('answers a success as soon as it happens, with its message', async () => {
    const smtp = await smtpServer();
    try {
      const check = await timedCheck(smtp.port, { smtp_username: 'u', smtp_password: 'p-123' });
      expect(check.body).toEqual({ ok: true, message: `Connected to 127.0.0.1:${smtp.port} (tls none), authenticated as u` });
      expect(check.ms).toBeLessThan(FAILURE_MS);
      expect(smtp.auths).toEqual(['u:p-123']);
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

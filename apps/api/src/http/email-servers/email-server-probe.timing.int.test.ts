import { NodemailerSmtpProbe } from '@mailcast/adapters';
import { SmtpProbe } from '@mailcast/core';
import { freePort } from '@mailcast/testkit';
import net, { type AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';
import { recordingSmtpServer as smtpServer } from '../../test-support/smtp-server';

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
    const created = await request(api.app)
      .post('/api/v1/email_servers')
      .set(as(a.token))
      .send({ host: '127.0.0.1', port, tls: 'none', ...extra });
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

  it("answers a refused login with the same words, never the server's", async () => {
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

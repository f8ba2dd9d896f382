import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, dispatcherProcesses, eventually, freePort, type Spawned } from '@mailcast/testkit';
import http from 'node:http';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';

/**
 * Pause and abort stop promptly (docs/sending-reliability.md): once the api has answered, each
 * dispatcher starts at most one more message per SMTP connection; messages waiting for a
 * connection are withdrawn, their claims released uncounted. Two dispatcher processes, a real
 * api over HTTP and an SMTP server that answers each message after 400 ms.
 */
describe('pause and abort stop sending promptly, two dispatchers', () => {
  const RECIPIENTS = 600;
  const CONNECTIONS = 4;
  const DISPATCHERS = 2;
  let api: ApiHarness;
  let server: http.Server;
  let base: string;
  let smtp: SmtpCapture;
  const dispatchers = dispatcherProcesses();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    api = await startApi({ env: { PUBLIC_URL: base, RATE_LIMIT_PER_MINUTE: '0' } });
    server = http.createServer(api.app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = await startSmtpCapture({ onMessage: answeringAfter(400) });
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
  }, 60_000);

  const dispatcher = (): Spawned =>
    dispatchers.start(api.database.url, {
      PUBLIC_URL: base,
      MAILCAST_SMTP_CONNECTIONS: String(CONNECTIONS),
      // Two threads of two connections each: a withdrawal crosses to the thread holding the message.
      MAILCAST_SMTP_THREADS: '2',
      // Shutdowns and job ends are logged at info: what a failure here needs to show.
      LOG_LEVEL: 'info',
    });
  const output = () => dispatchers.output();

  /** A channel with an email server, RECIPIENTS subscribers and a broadcast sending to them. */
  const sending = async () => {
    const tenant = await api.fixtures.aTenant();
    const channelId = tenant.channel.id;
    await api.fixtures.aCaptureServer(channelId, smtp.port, { fromEmail: 'news@example.test' });
    const domain = `c${channelId}.example.test`;
    await api.database
      .db('subscribers')
      .insert(Array.from({ length: RECIPIENTS }, (_, i) => ({ channel_id: channelId, email: `p${i}@${domain}`, is_active: true })));
    const request = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const created = await request('POST', '/api/v1/broadcasts', { broadcast: { subject: 'Pause me', body: 'Hello' } });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const mine = () => smtp.messages.filter((m) => m.to[0]!.endsWith(`@${domain}`));
    expect((await request('POST', `/api/v1/broadcasts/${id}/send_broadcast`)).status).toBe(200);
    await eventually(async () => (mine().length >= 40 ? true : undefined), 60_000, 10).catch((error: Error) => {
      throw new Error(`mid-send: ${error.message}\n${output()}`);
    });
    return { id, request, mine };
  };

  /** Every job of the broadcast has ended and no claim is held: nothing more can be sent. */
  const settled = (id: number) =>
    eventually(
      async () => {
        const claimed = await api.database.db('broadcast_recipients').where({ broadcast_id: id, status: 'claimed' }).count({ n: '*' });
        const jobs = await api.database.db.raw(
          `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'broadcasts.send' AND state IN ('created', 'retry', 'active') AND data->>'broadcastId' = ?`,
          [String(id)],
        );
        return Number(claimed[0]!.n) === 0 && jobs.rows[0].n === 0 ? true : undefined;
      },
      30_000,
      50,
    );

  it('after pause answers at most connections × dispatchers more are received; resume sends the rest exactly once', async () => {
    dispatcher();
    dispatcher();
    const { id, request, mine } = await sending();

    const paused = await request('POST', `/api/v1/broadcasts/${id}/pause_broadcast`);
    const atAnswer = mine().length;
    expect(paused).toMatchObject({ status: 200, body: { status: 'paused' } });
    await settled(id);
    const afterPause = mine().length - atAnswer;
    process.stdout.write(`pause: ${atAnswer} received when the api answered, ${afterPause} more after\n`);
    expect(afterPause).toBeLessThanOrEqual(CONNECTIONS * DISPATCHERS);
    const pending = await api.database.db('broadcast_recipients').where({ broadcast_id: id, status: 'pending' }).count({ n: '*' });
    expect(Number(pending[0]!.n)).toBe(RECIPIENTS - mine().length);

    expect((await request('POST', `/api/v1/broadcasts/${id}/resume_broadcast`)).status).toBe(200);
    await eventually(
      async () => {
        const b = await request('GET', `/api/v1/broadcasts/${id}`);
        return b.body.status === 'sent' ? true : undefined;
      },
      90_000,
      100,
    );
    const addresses = mine().map((m) => m.to[0]!);
    expect({ received: addresses.length, distinct: new Set(addresses).size }).toEqual({ received: RECIPIENTS, distinct: RECIPIENTS });
    // Both dispatchers outlived the pause. One was once seen to have exited with code 0 here (a
    // CI run of 2026-11-26), cause unknown: its output is what would tell.
    const exited = dispatchers.running.filter((d) => d.child.exitCode !== null || d.child.signalCode !== null);
    if (exited.length > 0)
      throw new Error(`a dispatcher ended during the test (${exited.map((d) => d.child.exitCode ?? d.child.signalCode).join(', ')}):\n${output()}`);
  }, 180_000);

  it('after abort answers at most connections × dispatchers more are received, and nothing after', async () => {
    dispatcher();
    dispatcher();
    const { id, request, mine } = await sending();

    const aborted = await request('POST', `/api/v1/broadcasts/${id}/abort_broadcast`);
    const atAnswer = mine().length;
    expect(aborted).toMatchObject({ status: 200, body: { status: 'aborted' } });
    await settled(id);
    const afterAbort = mine().length - atAnswer;
    process.stdout.write(`abort: ${atAnswer} received when the api answered, ${afterAbort} more after\n`);
    expect(afterAbort).toBeLessThanOrEqual(CONNECTIONS * DISPATCHERS);
    const addresses = mine().map((m) => m.to[0]!);
    expect(new Set(addresses).size).toBe(addresses.length);
    const sent = await api.database.db('broadcast_recipients').where({ broadcast_id: id, status: 'sent' }).count({ n: '*' });
    expect(Number(sent[0]!.n)).toBe(addresses.length);
    expect((await request('GET', `/api/v1/broadcasts/${id}`)).body.status).toBe('aborted');
  }, 120_000);
});

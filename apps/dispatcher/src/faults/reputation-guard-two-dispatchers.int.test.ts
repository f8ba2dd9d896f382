import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, dispatcherProcesses, eventually, freePort, type Spawned } from '@mailcast/testkit';
import http from 'node:http';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';

/**
 * The reputation guard's promise with two dispatcher processes sending one broadcast
 * (docs/reputation-guard.md): once the hard bounce rate crosses its limit the broadcast pauses
 * itself, and no more than one lease's worth of emails (a claim batch, 100) is handed to the SMTP
 * server after the crossing. A real api over HTTP and a real SMTP server that refuses (550) every
 * fourth address after the first 300.
 */
describe('a reputation-guard pause with two dispatchers sending', () => {
  const RECIPIENTS = 1500;
  const CLAIM_BATCH = 100;
  let api: ApiHarness;
  let server: http.Server;
  let base: string;
  let smtp: SmtpCapture;
  const refused = new Set<string>();
  const dispatchers = dispatcherProcesses();

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    api = await startApi({ env: { PUBLIC_URL: base, RATE_LIMIT_PER_MINUTE: '0' } });
    server = http.createServer(api.app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = await startSmtpCapture({
      // Accepted messages take a little while, so both dispatchers have work in flight.
      onMessage: answeringAfter(20),
      verdictFor: (to) => {
        if (!to.includes('-bad-')) return undefined;
        refused.add(to);
        return { code: 550, message: 'No such user here' };
      },
    });
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
    await api?.close();
  }, 60_000);

  const dispatcher = (): Spawned => dispatchers.start(api.database.url, { PUBLIC_URL: base, MAILCAST_SMTP_CONNECTIONS: '4', LOG_LEVEL: 'info' });

  it('pauses with hard_bounce_rate and hands over no more than one lease of emails after the limit is crossed', async () => {
    dispatcher();
    dispatcher();
    const tenant = await api.fixtures.aTenant();
    const channelId = tenant.channel.id;
    await api.fixtures.aCaptureServer(channelId, smtp.port, { fromEmail: 'news@example.test' });
    const domain = `c${channelId}.example.test`;
    const address = (i: number) => (i >= 300 && i % 4 === 0 ? `g${i}-bad-@${domain}` : `g${i}@${domain}`);
    await api.database.db('subscribers').insert(Array.from({ length: RECIPIENTS }, (_, i) => ({ channel_id: channelId, email: address(i), is_active: true })));
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    expect((await call('PATCH', '/api/v1/channel/settings', { reputation_guard: { min_sent: 200, max_hard_bounce_rate: 5 } })).status).toBe(200);
    const created = await call('POST', '/api/v1/broadcasts', { broadcast: { subject: 'To a stale list', body: 'Hello' } });
    const id = created.body.id as number;
    expect((await call('POST', `/api/v1/broadcasts/${id}/send_broadcast`)).status).toBe(200);

    const paused = await eventually(
      async () => {
        const b = await call('GET', `/api/v1/broadcasts/${id}`);
        return ['paused', 'sent', 'partial_failure', 'failed'].includes(b.body.status as string) ? b.body : undefined;
      },
      90_000,
      50,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${dispatchers.output()}`);
    });
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'hard_bounce_rate' });

    // Every job of the broadcast has ended and no claim is held: nothing more can be sent.
    await eventually(
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

    const events = (await api.database.db('events').where({ type: 'broadcast.paused' })).map((e) => e.data).filter((d) => d.broadcast_id === id);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toMatchObject({ reason: 'hard_bounce_rate', limit: 5, complaints: 0 });
    expect(event.sent).toBeGreaterThanOrEqual(200);
    expect(event.hard_bounces * 100).toBeGreaterThan(5 * event.sent);

    const accepted = smtp.messages.filter((m) => m.to[0]!.endsWith(`@${domain}`)).map((m) => m.to[0]!);
    const rejected = [...refused].filter((a) => a.endsWith(`@${domain}`));
    const handed = accepted.length + rejected.length;
    const afterCrossing = handed - event.sent;
    process.stdout.write(`guard: paused at ${event.sent} handed (${event.hard_bounces} hard bounces), ${afterCrossing} more handed after\n`);
    expect(afterCrossing).toBeLessThanOrEqual(CLAIM_BATCH);
    expect(handed).toBeLessThan(RECIPIENTS);

    // Both dispatchers sent; nobody got it twice; nothing was lost: the rest wait for a person.
    const workers = await api.database.db('broadcast_recipients').where({ broadcast_id: id }).whereNotNull('claimed_by').distinct('claimed_by');
    expect(new Set(workers.map((w) => String(w.claimed_by).split(':').slice(0, 2).join(':'))).size).toBe(2);
    expect(new Set(accepted).size).toBe(accepted.length);
    const pending = await api.database.db('broadcast_recipients').where({ broadcast_id: id, status: 'pending' }).count({ n: '*' });
    expect(Number(pending[0]!.n)).toBe(RECIPIENTS - handed);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(smtp.messages.filter((m) => m.to[0]!.endsWith(`@${domain}`)).length + [...refused].filter((a) => a.endsWith(`@${domain}`)).length).toBe(handed);
    expect((await call('GET', `/api/v1/broadcasts/${id}`)).body.status).toBe('paused');
  }, 180_000);
});

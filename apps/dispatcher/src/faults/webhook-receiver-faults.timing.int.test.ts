import { CreateWebhookEndpoint, type Principal } from '@mailcast/core';
import { eventually, freePort } from '@mailcast/testkit';
import http from 'node:http';
import { startDispatcherHarness, type DispatcherHarness } from '../test-support/webhook-harness';

interface Hit {
  path: string;
  id: string;
  type: string;
  at: number;
  phase: 'slow' | 'healthy';
}

/**
 * A webhook receiver that is down (nothing listens on its port) until every delivery was refused
 * once, then slow (answers after WEBHOOK_TIMEOUT_MS) until each event was seen slow and the hasty
 * endpoint exhausted, then healthy. Deliveries follow WEBHOOK_RETRY_SCHEDULE through all of it:
 * an endpoint with retries to spare gets every event, one with few retries exhausts with one
 * message.attempt.exhausted per delivery.
 *
 * A timing test: the receiver's phases and WEBHOOK_TIMEOUT_MS are a few hundred milliseconds, so
 * beside other test files a healthy answer can reach the dispatcher after the timeout and be
 * (rightly) tried again, which breaks "one healthy hit per event".
 */
describe('webhook delivery to a receiver that is down, then slow, then back', () => {
  const SCHEDULE_MS = [200, 300, 400, 500, 600, 1000];
  const TIMEOUT_MS = 200;
  const SLOW_MS = 300;
  let h: DispatcherHarness;
  let server: http.Server | undefined;

  beforeAll(async () => {
    h = await startDispatcherHarness({
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: SCHEDULE_MS.map((ms) => `${ms}ms`).join(','),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    });
    h.startWorkers();
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await h.close();
  });

  it('delivers every event once the receiver is back, and exhausts an endpoint without retries to spare', async () => {
    const port = await freePort();
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;
    const caller: Principal = await h.aPrincipal();
    const create = h.container.resolve(CreateWebhookEndpoint);
    const patient = await create.execute(caller, {
      url: url('/patient'),
      eventTypes: ['subscriber.created', 'message.attempt.exhausted'],
      retriesToAttempt: 6,
    });
    const hasty = await create.execute(caller, { url: url('/hasty'), eventTypes: ['subscriber.created'], retriesToAttempt: 1 });

    // Down: the port refuses connections while the events are recorded.
    const events = [];
    for (let i = 0; i < 5; i++) {
      events.push(await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { n: i }, createdAt: new Date() }));
    }
    const ids = events.map((e) => String(e.id));

    const deliveriesOf = (endpointId: number) => h.database.db('webhook_deliveries').where({ webhook_endpoint_id: endpointId }).orderBy('event_id');
    const original = (rows: any[]) => rows.filter((r: { event_type: string }) => r.event_type === 'subscriber.created');
    await eventually(
      async () => {
        const rows = [...original(await deliveriesOf(patient.id)), ...original(await deliveriesOf(hasty.id))];
        return rows.length === 10 && rows.every((r: { error_message: string | null }) => r.error_message !== null) ? true : undefined;
      },
      15_000,
      20,
    );

    // Then slow, then healthy.
    const hits: Hit[] = [];
    let healthy = false;
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string };
        const phase = healthy ? 'healthy' : 'slow';
        hits.push({ path: req.url ?? '', id: String(req.headers['broadcast-webhook-id']), type: body.type, at: Date.now(), phase });
        setTimeout(() => res.writeHead(200).end('ok'), phase === 'slow' ? SLOW_MS : 0);
      });
    });
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    await eventually(
      async () => {
        const seenSlow = new Set(hits.filter((x) => x.path === '/patient' && x.phase === 'slow').map((x) => x.id));
        const hastyRows = await deliveriesOf(hasty.id);
        return ids.every((id) => seenSlow.has(id)) && hastyRows.length === 5 && hastyRows.every((r: { status: string }) => r.status === 'failed')
          ? true
          : undefined;
      },
      30_000,
      20,
    );
    healthy = true;

    const settled = await eventually(
      async () => {
        const rows = original(await deliveriesOf(patient.id));
        return rows.length === 5 && rows.every((r: { status: string }) => r.status === 'succeeded') ? rows : undefined;
      },
      30_000,
      100,
    );

    // Every event reached the patient endpoint with a healthy answer, each recorded once.
    for (const id of ids) expect(hits.filter((x) => x.path === '/patient' && x.id === id && x.phase === 'healthy')).toHaveLength(1);
    expect(settled.map((r: { event_id: string }) => String(r.event_id))).toEqual(ids);
    for (const row of settled) {
      expect(row).toMatchObject({ response_status: 200, error_message: null, next_retry_at: null });
      // Attempts started while the receiver was down, so each needed retries, spaced per schedule.
      expect(row.attempt_number).toBeGreaterThanOrEqual(3);
      expect(row.attempt_number).toBeLessThanOrEqual(SCHEDULE_MS.length + 1);
      const waited = SCHEDULE_MS.slice(0, row.attempt_number - 1).reduce((a, b) => a + b, 0);
      expect(row.last_attempt_at.getTime() - row.first_attempt_at.getTime()).toBeGreaterThanOrEqual(waited - 50);
      // The receiver saw at most one request per attempt (refused connections it never saw).
      expect(hits.filter((x) => x.path === '/patient' && x.id === String(row.event_id)).length).toBeLessThanOrEqual(row.attempt_number);
    }
    // An answer slower than the timeout is a failure: each event first seen while slow came again.
    const slowIds = new Set(hits.filter((x) => x.path === '/patient' && x.phase === 'slow' && x.type === 'subscriber.created').map((x) => x.id));
    expect(slowIds.size).toBeGreaterThan(0);
    for (const id of slowIds) expect(hits.some((x) => x.path === '/patient' && x.id === id && x.phase === 'healthy')).toBe(true);

    // The hasty endpoint (one retry) exhausted before the receiver was healthy: failed, and
    // one message.attempt.exhausted per delivery.
    const failed = await eventually(
      async () => {
        const rows = await deliveriesOf(hasty.id);
        return rows.length === 5 && rows.every((r: { status: string }) => r.status === 'failed') ? rows : undefined;
      },
      10_000,
      100,
    );
    for (const row of failed) expect(row).toMatchObject({ attempt_number: 2, next_retry_at: null });
    expect(hits.filter((x) => x.path === '/hasty' && x.phase === 'healthy')).toHaveLength(0);
    const exhausted = await h.database.db('events').where({ channel_id: caller.channelId, type: 'message.attempt.exhausted' });
    expect(exhausted.map((e: { data: { delivery_id: number } }) => e.data.delivery_id).sort()).toEqual(failed.map((r: { id: number }) => r.id).sort());
    // A notice is never retried (docs/webhooks.md): one attempt each to the patient endpoint, which
    // succeeded or failed depending on the phase the receiver was in; never a second one.
    const notices = await eventually(
      async () => {
        const rows = (await deliveriesOf(patient.id)).filter((r: { event_type: string }) => r.event_type === 'message.attempt.exhausted');
        return rows.length === 5 && rows.every((r: { status: string }) => r.status !== 'pending') ? rows : undefined;
      },
      10_000,
      100,
    );
    expect(notices.map((r: { event_id: string }) => String(r.event_id)).sort()).toEqual(exhausted.map((e: { id: string }) => String(e.id)).sort());
    for (const row of notices) expect(row.attempt_number).toBe(1);
    // A retry is a job queued in the transaction that records the failure: none was for a notice.
    const retries = await h.database
      .db('pgboss.job')
      .where({ name: 'webhooks.deliver' })
      .whereRaw(`(data->>'deliveryId')::bigint = ANY(?)`, [notices.map((r: { id: string }) => Number(r.id))]);
    expect(retries).toEqual([]);
    for (const e of exhausted) expect(hits.filter((x) => x.path === '/patient' && x.id === String(e.id)).length).toBeLessThanOrEqual(1);
    expect(await h.database.db('events').where({ channel_id: caller.channelId, type: 'message.attempt.exhausted' })).toHaveLength(5);
    expect(h.errors).toEqual([]);
  }, 60_000);
});

import { CreateWebhookEndpoint, RequeueLapsedAttempts } from '@mailcast/core';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eventually, spawnDispatcher } from '@mailcast/testkit';
import { startDispatcherHarness, useDispatcherHarness, useReceiver, type DispatcherHarness } from './test-support/webhook-harness';

// First attempts go from the outbox relay to the delivery worker in memory; pg-boss carries
// only retries, deferrals and the stalled sweep's re-queues.

const deliverJobs = async (h: DispatcherHarness) =>
  (
    await h.database.db.raw(
      `SELECT data, state, start_after, created_on FROM pgboss.job WHERE name = 'webhooks.deliver'
       UNION ALL SELECT data, state, start_after, created_on FROM pgboss.archive WHERE name = 'webhooks.deliver'
       ORDER BY created_on`,
    )
  ).rows as Array<{ data: { deliveryId: number; endpointId: number; attempt: number }; state: string; start_after: Date; created_on: Date }>;

describe('first attempts handed over in memory', () => {
  let failing = true;
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '1s' });
  const receiver = useReceiver((p, nth) => (p === '/retry' && nth === 1 && failing ? { status: 500, body: 'no' } : { status: 200 }));
  beforeAll(() => h.startWorkers());

  it('are delivered and recorded without any webhooks.deliver job', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/first'), eventTypes: ['subscriber.created'] });
    for (let i = 0; i < 5; i++) await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    const rows = await eventually(async () => {
      const found = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).orderBy('id');
      return found.length === 5 && found.every((d) => d.status === 'succeeded') ? found : undefined;
    });
    expect(rows.map((d) => [d.attempt_number, d.response_status])).toEqual(Array(5).fill([1, 200]));
    expect(receiver.on('/first')).toHaveLength(5);
    expect(await deliverJobs(h)).toEqual([]);
  });

  it('a retry still goes through pg-boss, as a job starting after the schedule says', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/retry'), eventTypes: ['subscriber.created'] });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    const failed = await eventually(async () => {
      const d = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).first();
      return d?.attempt_number === 1 ? d : undefined;
    });
    expect(failed).toMatchObject({ status: 'pending', response_status: 500 });
    const [job] = await eventually(async () => {
      const jobs = await deliverJobs(h);
      return jobs.length > 0 ? jobs : undefined;
    });
    expect(job!.data).toEqual({ deliveryId: failed.id, endpointId: e.id, attempt: 2 });
    // startAfter is the retry time recorded on the delivery (1 s after the failure).
    expect(job!.start_after.getTime()).toBe(failed.next_retry_at.getTime());
    expect(failed.next_retry_at.getTime() - failed.last_attempt_at.getTime()).toBeGreaterThanOrEqual(1000);
    const done = await eventually(async () => {
      const d = await h.database.db('webhook_deliveries').where({ id: failed.id }).first();
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(done.attempt_number).toBe(2);
    expect(receiver.on('/retry').map((r) => r.at - receiver.on('/retry')[0]!.at)[1]).toBeGreaterThanOrEqual(1000);
    // The job is completed just after its outcome is written.
    const jobs = await eventually(async () => {
      const found = await deliverJobs(h);
      return found.every((j) => j.state === 'completed') ? found : undefined;
    });
    expect(jobs.map((j) => [j.data.attempt, j.state])).toEqual([[2, 'completed']]);
    failing = false;
  });
});

describe('the relay when the delivery worker is full', () => {
  let hanging = true;
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TIMEOUT_MS: '3000' });
  const receiver = useReceiver(() => (hanging ? 'hang' : { status: 200 }));

  it('claims no more events: the backlog waits in the outbox until there is room', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, {
      url: receiver.url('/full'),
      eventTypes: ['subscriber.created'],
      retriesToAttempt: 0,
    });
    for (let i = 0; i < 30; i++) await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    // Each turn of the relay's loop runs the lapsed-attempt sweep (here every 20 ms), then asks
    // the worker for room: counting the sweeps counts the turns in which it found none.
    const lapsed = h.container.resolve(RequeueLapsedAttempts);
    let turns = 0;
    const counted = { execute: (input: { leaseMs: number; limit: number }) => (turns++, lapsed.execute(input)) };
    h.container.register(RequeueLapsedAttempts, { useValue: counted as unknown as RequeueLapsedAttempts });
    h.startWorkers({ delivery: { maxHeld: 4 }, relay: { lapsedEveryMs: 20 } });
    await eventually(async () => (receiver.on('/full').length === 4 ? true : undefined));
    const counts = async () => ({
      deliveries: Number((await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).count({ n: '*' }))[0]!.n),
      undispatched: Number((await h.database.db('events').where({ channel_id: caller.channelId }).whereNull('dispatched_at').count({ n: '*' }))[0]!.n),
    });
    for (let i = 0; i < 5; i++) {
      expect(await counts()).toEqual({ deliveries: 4, undispatched: 26 });
      const seen = turns;
      await eventually(async () => (turns >= seen + 3 ? true : undefined), 10_000, 5);
    }
    expect(await deliverJobs(h)).toEqual([]);
    // The four held POSTs time out (no retries): the rest flows, four at a time.
    hanging = false;
    const rows = await eventually(async () => {
      const found = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id });
      return found.length === 30 && found.every((d) => d.status !== 'pending') ? found : undefined;
    }, 15_000);
    expect(rows.filter((d) => d.status === 'failed')).toHaveLength(4);
    expect(rows.filter((d) => d.status === 'succeeded')).toHaveLength(26);
    // The four exhaustions are events too (no endpoint takes them): the outbox drains.
    await eventually(async () => ((await counts()).undispatched === 0 ? true : undefined));
  });
});

describe('a dispatcher killed while holding first attempts in memory', () => {
  let hanging = true;
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver = useReceiver(() => (hanging ? 'hang' : { status: 200 }));

  it('leaves them pending, and the stalled sweep of another dispatcher delivers each', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/killed'), eventTypes: ['subscriber.created'] });
    const dispatcher = spawnDispatcher(h.database.url, { WEBHOOK_ALLOW_PRIVATE: 'true', LOG_LEVEL: 'error' });
    try {
      const events: number[] = [];
      for (let i = 0; i < 20; i++)
        events.push((await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() })).id);
      // Eight POSTs hang (the lane's width); the other twelve wait in the dispatcher's memory.
      await eventually(async () => {
        const n = Number((await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).count({ n: '*' }))[0]!.n);
        return n === 20 && receiver.on('/killed').length === 8 ? true : undefined;
      }, 15_000);
      dispatcher.child.kill('SIGKILL');
      await dispatcher.exited;
      const left = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id });
      expect(left.map((d) => [d.status, d.attempt_number])).toEqual(Array(20).fill(['pending', 0]));
      expect(await deliverJobs(h)).toEqual([]);
      const before = receiver.on('/killed').length;

      hanging = false;
      h.startWorkers({ relay: { sweepEveryMs: 200, stalledAfterMs: 500 } });
      const rows = await eventually(async () => {
        const found = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id });
        return found.every((d) => d.status === 'succeeded') ? found : undefined;
      }, 15_000);
      expect(rows.map((d) => d.attempt_number)).toEqual(Array(20).fill(1));
      const resent = receiver
        .on('/killed')
        .slice(before)
        .map((r) => Number(r.headers['broadcast-webhook-id']));
      // Each event again (a resend after a crash is allowed: receivers deduplicate by this id).
      expect([...new Set(resent)].sort((a, b) => a - b)).toEqual(events);
    } finally {
      if (dispatcher.child.exitCode === null && dispatcher.child.signalCode === null) dispatcher.child.kill('SIGKILL');
    }
  });
});

describe('stopping a dispatcher that holds first attempts in memory', () => {
  let h: DispatcherHarness;
  let server: http.Server;
  const arrived: number[] = [];
  beforeAll(async () => {
    h = await startDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    // Each answer takes 200 ms, so a stop comes while most attempts still wait in their lane.
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(Number(req.headers['broadcast-webhook-id']));
        setTimeout(() => res.writeHead(200).end('ok'), 200);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await h.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('finishes and records every attempt it holds before stop() returns', async () => {
    const caller = await h.aPrincipal();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`;
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url, eventTypes: ['subscriber.created'] });
    for (let i = 0; i < 12; i++) await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    h.startWorkers({ delivery: { perEndpointConcurrency: 2 } });
    await eventually(async () => (arrived.length > 0 ? true : undefined));
    await h.stopWorkers();
    const rows = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id });
    expect(rows.length).toBeGreaterThan(2); // more than the two in flight were held
    expect(rows.map((d) => [d.status, d.attempt_number])).toEqual(Array(rows.length).fill(['succeeded', 1]));
    expect([...arrived].sort((a, b) => a - b)).toEqual(rows.map((d) => Number(d.event_id)).sort((a, b) => a - b));
    expect(await deliverJobs(h)).toEqual([]);
  });
});

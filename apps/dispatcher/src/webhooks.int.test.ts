import {
  CreateWebhookEndpoint,
  DeleteWebhookEndpoint,
  FanOutEvents,
  RecordWebhookFailure,
  RequeueStalledDeliveries,
  TestWebhookEndpoint,
  Transactor,
  type CreateWebhookEndpointInput,
  type Principal,
} from '@mailcast/core';
import { verifyWebhook, type EventType } from '@mailcast/domain';
import { eventually } from '@mailcast/testkit';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { useDispatcherHarness, useReceiver, type Received } from './test-support/webhook-harness';

const VECTORS = JSON.parse(readFileSync(path.resolve(__dirname, '../../../packages/domain/test-vectors/webhook-signature.json'), 'utf8')) as {
  vectors: Array<{ secret: string; timestamp: number; body: string; signature: string }>;
};

/** The spec's signature rule written out with node:crypto alone, independent of the domain code. */
function expectedSignature(secret: string, timestamp: string, raw: Buffer): string {
  return (
    'v1,' +
    createHmac('sha256', Buffer.from(secret, 'utf8'))
      .update(Buffer.concat([Buffer.from(`${timestamp}.`), raw]))
      .digest('base64')
  );
}

function expectSigned(r: Received, secret: string): void {
  const timestamp = r.headers['broadcast-webhook-timestamp'] as string;
  const given = Buffer.from(r.headers['broadcast-webhook-signature'] as string);
  const wanted = Buffer.from(expectedSignature(secret, timestamp, r.raw));
  expect(given.length === wanted.length && timingSafeEqual(given, wanted)).toBe(true);
  expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(60);
  expect(verifyWebhook(secret, r.headers as Record<string, string>, r.raw)).toEqual({
    ok: true,
    id: r.headers['broadcast-webhook-id'],
    timestamp: Number(timestamp),
  });
}

const SUBSCRIBER_DATA = {
  subscriber_id: 7,
  email: 'zoe@example.com',
  first_name: 'Zoë',
  last_name: 'Ågren',
  subscribed_at: '2026-11-01T10:00:00.000Z',
  unsubscribed_at: null,
  is_active: true,
  custom_data: { plan: 'pro', seats: 3 },
  source: 'api',
};
const EMAIL_DATA = {
  receipt_id: 11,
  email: 'zoe@example.com',
  identifier: '<m1@mailcast>',
  receipted_type: 'Broadcast',
  receipted_id: 3,
  delivered: true,
  opened: false,
  clicked: false,
  bounced: false,
  complaint: false,
  unsubscribed: false,
  opened_at: null,
  clicked_at: null,
  bounced_reason: null,
  complaint_reason: null,
};
const BROADCAST_DATA = {
  broadcast_id: 3,
  name: 'Spring',
  subject: 'Hello',
  status: 'sent',
  total_recipients: 10,
  broadcast_recipients_count: 10,
  percentage_complete: 100.0,
  sent_at: '2026-11-01T10:00:00.000Z',
  scheduled_send_at: null,
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T10:00:00.000Z',
  broadcast_channel_id: 1,
  segment_ids: [1, 2],
  tags: ['spring'],
};

describe('the signature test vectors', () => {
  it.each(VECTORS.vectors.map((v, i) => [i, v] as const))('vector %i holds under node:crypto and verifyWebhook', (_i, v) => {
    expect(expectedSignature(v.secret, String(v.timestamp), Buffer.from(v.body, 'utf8'))).toBe(v.signature);
    const headers = { 'broadcast-webhook-id': '1', 'broadcast-webhook-timestamp': String(v.timestamp), 'broadcast-webhook-signature': v.signature };
    expect(verifyWebhook(v.secret, headers, v.body, { now: v.timestamp * 1000 }).ok).toBe(true);
  });
});

describe('webhook delivery (outbox → fan-out → signed POST), private destinations allowed', () => {
  const replies = new Map<string, (nth: number) => { status: number; body?: string } | 'hang'>();
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SCHEDULE: '200ms,400ms', WEBHOOK_TIMEOUT_MS: '700' });
  const receiver = useReceiver((p, nth) => replies.get(p)?.(nth) ?? { status: 200 });
  beforeAll(() => h.startWorkers());

  const endpoint = async (caller: Principal, pathName: string, input: Partial<CreateWebhookEndpointInput> = {}) =>
    h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url(pathName), eventTypes: ['subscriber.created'], ...input });
  const delivery = (id: number) => h.database.db('webhook_deliveries').where({ id }).first();
  const deliveriesOf = (endpointId: number) => h.database.db('webhook_deliveries').where({ webhook_endpoint_id: endpointId }).orderBy('id');
  const deliverJobsFor = async (deliveryId: number) =>
    Number(
      (
        await h.database
          .db('pgboss.job')
          .where({ name: 'webhooks.deliver' })
          .whereRaw(`data->>'deliveryId' = ?`, [String(deliveryId)])
          .count({ n: '*' })
      )[0]!.n,
    );

  it('POSTs the envelope, signed, to every active subscribing endpoint of the channel and no other', async () => {
    const caller = await h.aPrincipal();
    const other = await h.aPrincipal();
    const a = await endpoint(caller, '/fan/a');
    const b = await endpoint(caller, '/fan/b', { eventTypes: ['subscriber.created', 'email.sent'] });
    await endpoint(caller, '/fan/inactive', { active: false });
    await endpoint(caller, '/fan/unsubscribed', { eventTypes: ['email.sent'] });
    await endpoint(other, '/fan/other-channel');
    const createdAt = new Date('2026-11-22T01:02:03.456Z');
    const event = await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt });

    await eventually(async () => (receiver.on('/fan/a').length && receiver.on('/fan/b').length ? true : undefined));
    // Fan-out makes all of an event's deliveries in one statement, and a POST is made only for a
    // delivery: these two are every POST the event will ever cause.
    const fannedTo = (await h.database.db('webhook_deliveries').where({ event_id: event.id })).map((d: { webhook_endpoint_id: string }) =>
      Number(d.webhook_endpoint_id),
    );
    expect(fannedTo.sort((x: number, y: number) => x - y)).toEqual([a.id, b.id].sort((x, y) => x - y));
    expect(
      receiver.received
        .filter((r) => r.path.startsWith('/fan/'))
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/fan/a', '/fan/b']);

    for (const [r, secret] of [
      [receiver.on('/fan/a')[0]!, a.secret],
      [receiver.on('/fan/b')[0]!, b.secret],
    ] as const) {
      expect(r.method).toBe('POST');
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['user-agent']).toBe('Mailcast-Webhooks/1.0');
      expect(r.headers['broadcast-webhook-id']).toBe(String(event.id));
      expectSigned(r, secret);
      expect(JSON.parse(r.raw.toString('utf8'))).toEqual({
        id: event.id,
        type: 'subscriber.created',
        created_at: '2026-11-22T01:02:03.456Z',
        data: SUBSCRIBER_DATA,
      });
    }
    const row = await eventually(async () => {
      const d = (await deliveriesOf(a.id))[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(row).toMatchObject({
      event_id: event.id,
      event_type: 'subscriber.created',
      attempt_number: 1,
      response_status: 200,
      response_body: 'ok',
      error_message: null,
      next_retry_at: null,
    });
    expect(row.successfully_delivered_at).toBeInstanceOf(Date);
    const endpointRow = await eventually(async () => {
      const e = await h.database.db('webhook_endpoints').where({ id: a.id }).first();
      return e.last_sent_at ? e : undefined;
    });
    expect(endpointRow.last_response_code).toBe(200);
    expect((await h.database.db('events').where({ id: event.id }).first()).dispatched_at).toBeInstanceOf(Date);
  });

  it.each([
    ['email.delivered', EMAIL_DATA],
    ['broadcast.sent', BROADCAST_DATA],
    ['subscriber.unsubscribed', { ...SUBSCRIBER_DATA, is_active: false, unsubscribed_at: '2026-11-02T00:00:00.000Z' }],
  ] as const)('carries the %s data shape as recorded', async (type, data) => {
    const caller = await h.aPrincipal();
    const e = await endpoint(caller, `/shape/${type}`, { eventTypes: [type] });
    const event = await h.record({ channelId: caller.channelId, type: type as EventType, data, createdAt: new Date() });
    const [r] = await eventually(async () => (receiver.on(`/shape/${type}`).length ? receiver.on(`/shape/${type}`) : undefined));
    expectSigned(r!, e.secret);
    expect(JSON.parse(r!.raw.toString('utf8'))).toEqual({ id: event.id, type, created_at: expect.any(String), data });
  });

  it('retries a failing endpoint on the configured schedule with the same id and fresh signatures', async () => {
    const caller = await h.aPrincipal();
    replies.set('/retry', (nth) => (nth <= 2 ? { status: 503, body: 'busy' } : { status: 204 }));
    const e = await endpoint(caller, '/retry', { retriesToAttempt: 3 });
    const event = await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });
    const posts = await eventually(async () => (receiver.on('/retry').length === 3 ? receiver.on('/retry') : undefined));
    expect(posts.map((p) => p.headers['broadcast-webhook-id'])).toEqual([String(event.id), String(event.id), String(event.id)]);
    for (const p of posts) expectSigned(p, e.secret);
    expect(posts.map((p) => p.raw.toString())).toEqual([posts[0]!.raw.toString(), posts[0]!.raw.toString(), posts[0]!.raw.toString()]);
    expect(posts[1]!.at - posts[0]!.at).toBeGreaterThanOrEqual(180);
    expect(posts[2]!.at - posts[1]!.at).toBeGreaterThanOrEqual(380);
    const row = await eventually(async () => {
      const d = (await deliveriesOf(e.id))[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(row).toMatchObject({ attempt_number: 3, response_status: 204, error_message: null, next_retry_at: null });
    expect(row.first_attempt_at.getTime()).toBeLessThan(row.last_attempt_at.getTime());
  });

  it('records a failed attempt with status, body, error and next_retry_at while retries remain', async () => {
    const caller = await h.aPrincipal();
    replies.set('/pending', () => ({ status: 500, body: 'x'.repeat(10_000) }));
    const e = await endpoint(caller, '/pending', { retriesToAttempt: 20 });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });
    const row = await eventually(async () => {
      const d = (await deliveriesOf(e.id))[0];
      return d?.attempt_number >= 1 && d.error_message ? d : undefined;
    });
    expect(row).toMatchObject({ status: 'pending', response_status: 500, error_message: 'HTTP 500' });
    expect(row.response_body).toBe('x'.repeat(4096));
    expect(row.next_retry_at.getTime()).toBeGreaterThan(row.last_attempt_at.getTime());
    await h.container.resolve(DeleteWebhookEndpoint).execute(caller, { id: e.id });
  });

  it('exhausts after retries_to_attempt retries: Failed, and one message.attempt.exhausted, itself never retried', async () => {
    const caller = await h.aPrincipal();
    replies.set('/exhaust', () => ({ status: 500, body: 'down' }));
    replies.set('/exhausted-listener', () => ({ status: 500 }));
    const e = await endpoint(caller, '/exhaust', { retriesToAttempt: 1 });
    const listener = await endpoint(caller, '/exhausted-listener', { eventTypes: ['message.attempt.exhausted'], retriesToAttempt: 5 });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });

    const [notice] = await eventually(async () => (receiver.on('/exhausted-listener').length ? receiver.on('/exhausted-listener') : undefined));
    expect(receiver.on('/exhaust')).toHaveLength(2);
    const failed = (await deliveriesOf(e.id))[0];
    expect(failed).toMatchObject({ status: 'failed', attempt_number: 2, next_retry_at: null, error_message: 'HTTP 500', response_status: 500 });
    expectSigned(notice!, listener.secret);
    const body = JSON.parse(notice!.raw.toString('utf8'));
    expect(body).toEqual({
      id: expect.any(Number),
      type: 'message.attempt.exhausted',
      created_at: expect.any(String),
      data: {
        delivery_id: failed.id,
        webhook_endpoint_id: e.id,
        attempts: 2,
        last_error: 'HTTP 500',
        first_attempted_at: failed.first_attempt_at.toISOString(),
        last_attempted_at: failed.last_attempt_at.toISOString(),
        original_event_type: 'subscriber.created',
      },
    });
    // The listener answered 500 with retries left, yet its delivery is failed at once and
    // nothing further is emitted.
    const listenerDelivery = await eventually(async () => {
      const d = (await deliveriesOf(listener.id))[0];
      return d?.status === 'failed' ? d : undefined;
    });
    expect(listenerDelivery.attempt_number).toBe(1);
    // A retry is a job queued in the transaction that records the failure: none was.
    expect(await deliverJobsFor(listenerDelivery.id)).toBe(0);
    expect(receiver.on('/exhausted-listener')).toHaveLength(1);
    expect(await h.database.db('events').where({ channel_id: caller.channelId, type: 'message.attempt.exhausted' })).toHaveLength(1);
  });

  it('with retries_to_attempt 0 the first failure exhausts the delivery', async () => {
    const caller = await h.aPrincipal();
    replies.set('/zero', () => ({ status: 400 }));
    const e = await endpoint(caller, '/zero', { retriesToAttempt: 0 });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });
    const row = await eventually(async () => {
      const d = (await deliveriesOf(e.id))[0];
      return d?.status === 'failed' ? d : undefined;
    });
    expect(row.attempt_number).toBe(1);
    const exhausted = await eventually(async () => {
      const rows = await h.database.db('events').where({ channel_id: caller.channelId, type: 'message.attempt.exhausted' });
      return rows.length ? rows : undefined;
    });
    expect(exhausted).toHaveLength(1);
    expect(exhausted[0].data).toMatchObject({ delivery_id: row.id, attempts: 1, last_error: 'HTTP 400' });
    expect(receiver.on('/zero')).toHaveLength(1);
  });

  it('treats no answer within WEBHOOK_TIMEOUT_MS as a failure and retries', async () => {
    const caller = await h.aPrincipal();
    replies.set('/slow', (nth) => (nth === 1 ? 'hang' : { status: 200 }));
    const e = await endpoint(caller, '/slow', { retriesToAttempt: 2 });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });
    const row = await eventually(async () => {
      const d = (await deliveriesOf(e.id))[0];
      return d?.status === 'succeeded' ? d : undefined;
    });
    expect(row.attempt_number).toBe(2);
    expect(receiver.on('/slow')).toHaveLength(2);
    expect(receiver.on('/slow')[1]!.at - receiver.on('/slow')[0]!.at).toBeGreaterThanOrEqual(700 + 180);
  });

  it('test operation: one event and one delivery to that endpoint only', async () => {
    const caller = await h.aPrincipal();
    const e = await endpoint(caller, '/test/one', { eventTypes: ['email.sent'] });
    await endpoint(caller, '/test/two', { eventTypes: ['email.sent', 'test.webhook'] });
    const { deliveryId, eventType } = await h.container.resolve(TestWebhookEndpoint).execute(caller, { id: e.id });
    expect(eventType).toBe('test.webhook');
    const [r] = await eventually(async () => (receiver.on('/test/one').length ? receiver.on('/test/one') : undefined));
    expectSigned(r!, e.secret);
    expect(JSON.parse(r!.raw.toString())).toMatchObject({ type: 'test.webhook', data: { webhook_endpoint_id: e.id } });
    await eventually(async () => ((await delivery(deliveryId))?.status === 'succeeded' ? true : undefined));
    // The test event is made dispatched, so the relay never fans it out: its one delivery is all.
    const testEvent = await h.database.db('events').where({ channel_id: caller.channelId, type: 'test.webhook' }).first();
    expect(testEvent.dispatched_at).not.toBeNull();
    expect((await h.database.db('webhook_deliveries').where({ event_id: testEvent.id }).pluck('id')).map(Number)).toEqual([deliveryId]);
    expect(receiver.on('/test/two')).toHaveLength(0);
  });

  it('a rolled-back change emits nothing', async () => {
    const caller = await h.aPrincipal();
    await endpoint(caller, '/rollback');
    await expect(
      h.container.resolve<Transactor>(Transactor).run(async (r) => {
        await r.outbox.record({ channelId: caller.channelId, type: 'subscriber.created', data: SUBSCRIBER_DATA, createdAt: new Date() });
        throw new Error('changed its mind');
      }),
    ).rejects.toThrow('changed its mind');
    // A committed event recorded afterwards arrives, so the relay has run past the rolled-back one.
    const committed = await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { after: true }, createdAt: new Date() });
    const posts = await eventually(async () => (receiver.on('/rollback').length ? receiver.on('/rollback') : undefined));
    expect(posts.map((p) => JSON.parse(p.raw.toString()).id)).toEqual([committed.id]);
    // A POST is made only for a delivery of a stored event: the committed one is the only one.
    expect(await h.database.db('events').where({ channel_id: caller.channelId })).toHaveLength(1);
    expect((await h.database.db('webhook_deliveries').where({ channel_id: caller.channelId }).pluck('event_id')).map(String)).toEqual([String(committed.id)]);
  });

  it('a hanging endpoint does not hold up a healthy one', async () => {
    const caller = await h.aPrincipal();
    replies.set('/hang', () => 'hang');
    const hanging = await endpoint(caller, '/hang', { retriesToAttempt: 0 });
    await endpoint(caller, '/healthy');
    const started = Date.now();
    for (let i = 0; i < 60; i++) {
      await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: { i }, createdAt: new Date() });
    }
    const healthy = await eventually(async () => (receiver.on('/healthy').length === 60 ? receiver.on('/healthy') : undefined), 10_000, 20);
    // 60 deliveries to the hanging endpoint at 8 in flight and 700 ms each take over 5 s; the
    // healthy endpoint's all arrived before the hanging one had even been tried for every event.
    // (Relative to the hanging lane, not a wall-clock budget, so a loaded machine cannot fail it.)
    const finished = healthy[59]!.at;
    expect(receiver.on('/hang').filter((p) => p.at <= finished).length).toBeLessThan(60);
    expect(finished - started).toBeLessThan(60 * 700);
    // The hanging endpoint never had more than its lane's POSTs (8) open at once.
    expect(receiver.maxOpen('/hang')).toBeGreaterThan(0);
    expect(receiver.maxOpen('/hang')).toBeLessThanOrEqual(8);
    await h.container.resolve(DeleteWebhookEndpoint).execute(caller, { id: hanging.id });
  });
});

describe('delete cancels pending deliveries', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver = useReceiver();

  it('marks them cancelled; their queued jobs then do nothing', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/gone'), eventTypes: ['subscriber.created'] });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    const fanned = await h.container.resolve(FanOutEvents).execute({ batchSize: 10, leaseMs: 15_000 });
    expect({ events: fanned.events, attempts: fanned.attempts.map((a) => [a.endpointId, a.attempt]) }).toEqual({
      events: 2,
      attempts: [
        [e.id, 1],
        [e.id, 1],
      ],
    });
    // Their first attempts were lost with a dispatcher, so the sweep queued them as jobs.
    await h.database
      .db('webhook_deliveries')
      .where({ webhook_endpoint_id: e.id })
      .update({ updated_at: new Date(Date.now() - 60_000) });
    expect(await h.container.resolve(RequeueStalledDeliveries).execute({ stalledAfterMs: 30_000, limit: 10 })).toBe(2);
    const jobs = async () =>
      (await h.database.db.raw(`SELECT state FROM pgboss.job WHERE name = 'webhooks.deliver'`)).rows.map((r: { state: string }) => r.state);
    expect(await jobs()).toEqual(['created', 'created']);

    await h.container.resolve(DeleteWebhookEndpoint).execute(caller, { id: e.id });
    const rows = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id });
    expect(rows.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);

    h.startWorkers();
    await eventually(async () => ((await jobs()).every((s: string) => s === 'completed') ? true : undefined));
    expect(receiver.received).toHaveLength(0);
    expect((await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id })).map((r) => [r.status, r.attempt_number])).toEqual([
      ['cancelled', 0],
      ['cancelled', 0],
    ]);
  });
});

describe('a delivery lost with a dead dispatcher', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });
  const receiver = useReceiver();

  it('is queued again by the stalled-delivery sweep, and delivered once', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/lost'), eventTypes: ['subscriber.created'] });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    // The dispatcher holding the first attempt in memory died: no job, the row is still pending.
    expect((await h.container.resolve(FanOutEvents).execute({ batchSize: 10, leaseMs: 15_000 })).attempts).toHaveLength(1);
    expect((await h.database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'webhooks.deliver'`)).rows[0].n).toBe(0);
    const old = new Date(Date.now() - 30 * 60_000);
    await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).update({ updated_at: old });
    const fresh = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: receiver.url('/fresh'), eventTypes: ['subscriber.updated'] });
    await h.record({ channelId: caller.channelId, type: 'subscriber.updated', data: {}, createdAt: new Date() });
    await h.container.resolve(FanOutEvents).execute({ batchSize: 10, leaseMs: 15_000 });

    const sweep = h.container.resolve(RequeueStalledDeliveries);
    expect(await sweep.execute({ stalledAfterMs: 20 * 60_000, limit: 100 })).toBe(1);
    expect(await sweep.execute({ stalledAfterMs: 20 * 60_000, limit: 100 })).toBe(0); // touched: not twice
    // The fresh one (its dispatcher could still be posting it) is taken only once it is as old.
    await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: fresh.id }).update({ updated_at: old });
    expect(await sweep.execute({ stalledAfterMs: 20 * 60_000, limit: 100 })).toBe(1);
    h.startWorkers();
    await eventually(async () => (receiver.on('/lost').length && receiver.on('/fresh').length ? true : undefined));
    const row = await eventually(async () => {
      const d = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).first();
      return d.status === 'succeeded' ? d : undefined;
    });
    expect(row.attempt_number).toBe(1);
    expect(receiver.on('/lost')).toHaveLength(1);
    expect(receiver.on('/fresh')).toHaveLength(1);
  });
});

describe('SSRF at connect time (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'false' });
  const receiver = useReceiver();
  beforeAll(() => h.startWorkers());

  // Rows written past the registration check stand for a name that resolved to a public address
  // when saved and was rebound since: the sender must refuse at connect time.
  it.each([
    ['a loopback literal', (port: number) => `https://127.0.0.1:${port}/x`],
    ['a name resolving to loopback', (port: number) => `https://localhost:${port}/x`],
    ['plain http', (port: number) => `http://127.0.0.1:${port}/x`],
  ])('refuses %s and never connects', async (_what, url) => {
    const caller = await h.aPrincipal();
    const [row] = await h.database
      .db('webhook_endpoints')
      .insert({ channel_id: caller.channelId, url: url(receiver.port), event_types: ['subscriber.created'], retries_to_attempt: 0, secret: 'whsec_test' })
      .returning('id');
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    const d = await eventually(async () => {
      const found = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: row.id }).first();
      return found?.status === 'failed' ? found : undefined;
    });
    expect(d.error_message).toMatch(/^refused_destination: /);
    expect(d.response_status).toBeNull();
    expect(receiver.received).toHaveLength(0);
  });
});

describe('a failure recorded while its endpoint is being deleted', () => {
  const h = useDispatcherHarness({ WEBHOOK_ALLOW_PRIVATE: 'true' });

  it('does not wait for the endpoint row, so it cannot deadlock with the delete', async () => {
    const caller = await h.aPrincipal();
    const e = await h.container.resolve(CreateWebhookEndpoint).execute(caller, { url: 'http://127.0.0.1:9/x', eventTypes: ['subscriber.created'] });
    await h.record({ channelId: caller.channelId, type: 'subscriber.created', data: {}, createdAt: new Date() });
    const [attempt] = (await h.container.resolve(FanOutEvents).execute({ batchSize: 10, leaseMs: 15_000 })).attempts;
    // The delete's first statement: the endpoint row is locked, its deliveries not yet.
    const trx = await h.database.db.transaction();
    await trx('webhook_endpoints').where({ id: e.id }).update({ deleted_at: new Date(), active: false });
    const at = new Date();
    const recording = h.container
      .resolve(RecordWebhookFailure)
      .execute({ attempt: attempt!, result: { kind: 'response', status: 500, body: 'no' }, attemptedAt: at, finishedAt: at });
    recording.catch(() => undefined);
    const outcome = await Promise.race([recording, new Promise((r) => setTimeout(() => r('still waiting'), 2_000))]);
    // The delete's second statement, then its commit: no deadlock either way round.
    await trx('webhook_deliveries').where({ webhook_endpoint_id: e.id, status: 'pending' }).update({ status: 'cancelled' });
    await trx.commit();
    expect(outcome).toMatchObject({ kind: 'retry' });
    const row = await h.database.db('webhook_deliveries').where({ webhook_endpoint_id: e.id }).first();
    expect([row.status, row.attempt_number, row.response_status]).toEqual(['cancelled', 1, 500]);
  });
});

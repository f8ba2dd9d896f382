import { cutOffDatabase } from '@mailcast/testkit';
import { startApi, useApi, type ApiHarness } from '../test-support/harness';
import request from 'supertest';

/** Issue 7: Prometheus metrics at /metrics; health and readiness while the database is away. */
describe('observability', () => {
  const api = useApi();
  let token: string;

  beforeAll(async () => {
    token = (await api.fixtures.aTenant()).token;
  });

  const scrape = async () => {
    const res = await request(api.app).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };
  /** The value of one series, by its exact label set as prom-client prints it. */
  const valueOf = (text: string, series: string): number | undefined => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };

  it('counts requests by route template and status, not by raw path', async () => {
    for (const id of [11, 12, 13]) await request(api.app).get(`/api/v1/broadcasts/${id}`).auth(token, { type: 'bearer' });
    await request(api.app).get('/api/v1/broadcasts').auth(token, { type: 'bearer' });
    await request(api.app).get('/no/such/page');
    // A router mounted at a path (the forms' /f) keeps its prefix in the template.
    await request(api.app).post('/f/no-such-form/submit').send({ email: 'a@example.com' });
    const text = await scrape();
    expect(valueOf(text, 'mailcast_http_requests_total{method="GET",route="/api/v1/broadcasts/:id",status="404",service="api"}')).toBe(3);
    expect(valueOf(text, 'mailcast_http_requests_total{method="GET",route="/api/v1/broadcasts",status="200",service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_http_requests_total{method="GET",route="unmatched",status="404",service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_http_requests_total{method="POST",route="/f/:identifier/submit",status="404",service="api"}')).toBe(1);
    expect(text).not.toContain('/api/v1/broadcasts/11');
    expect(text).not.toContain('no-such-form');
    expect(valueOf(text, 'mailcast_http_request_duration_seconds_count{service="api",method="GET",route="/api/v1/broadcasts/:id",status="404"}')).toBe(3);
    expect(text).toContain('mailcast_process_resident_memory_bytes');
  });

  it('reads the business figures from PostgreSQL at scrape time', async () => {
    const db = api.database.db;
    const { channel } = await api.fixtures.aTenant();
    const broadcast = await api.fixtures.aBroadcast(channel.id);
    const subscribers = await db('subscribers')
      .insert(['a', 'b', 'c', 'd'].map((n) => ({ channel_id: channel.id, email: `${n}@example.com` })))
      .returning('id');
    // Outcomes recorded the way the sending pipeline records them (EmailEvents), a repeat included.
    const recipients = await db('broadcast_recipients')
      .insert(subscribers.map((s: { id: number }, i: number) => ({ broadcast_id: broadcast.id, subscriber_id: s.id, message_id: `<m${i}@test>` })))
      .returning('id');
    const kinds = ['delivered', 'delivered', 'bounced', 'failed'] as const;
    await api.fixtures.repositories.emailEvents.recordMany(
      [...kinds, 'delivered' as const].map((kind, i) => ({
        channelId: channel.id,
        broadcastId: broadcast.id,
        recipientId: (recipients[i % 4] as { id: number }).id,
        subscriberId: (subscribers[i % 4] as { id: number }).id,
        kind,
        occurredAt: new Date(),
      })),
    );
    const [endpoint] = await db('webhook_endpoints')
      .insert({ channel_id: channel.id, url: 'https://hooks.example.com/x', event_types: ['test.webhook'], secret: 'whsec_x' })
      .returning('id');
    const [event] = await db('events')
      .insert({ channel_id: channel.id, type: 'test.webhook', data: {}, created_at: new Date(Date.now() - 2000) })
      .returning('id');
    await db('webhook_deliveries').insert({
      channel_id: channel.id,
      event_id: (event as { id: number }).id,
      webhook_endpoint_id: (endpoint as { id: number }).id,
      event_type: 'test.webhook',
      status: 'succeeded',
      successfully_delivered_at: new Date(),
    });
    await api.fixtures.repositories.jobs.send('webhooks.deliver', { deliveryId: 1, endpointId: (endpoint as { id: number }).id, attempt: 1 });

    const text = await scrape();
    expect(valueOf(text, 'mailcast_database_up{service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_emails{outcome="sent",service="api"}')).toBe(2);
    expect(valueOf(text, 'mailcast_emails{outcome="bounced",service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_emails{outcome="failed",service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_webhook_deliveries{outcome="succeeded",service="api"}')).toBe(1);
    expect(valueOf(text, 'mailcast_webhook_deliveries{outcome="failed",service="api"}')).toBe(0);
    const p50 = valueOf(text, 'mailcast_webhook_delivery_latency_seconds{quantile="0.5",service="api"}');
    expect(p50).toBeGreaterThan(1);
    expect(p50).toBeLessThan(60);
    expect(valueOf(text, 'mailcast_queue_depth{queue="webhooks.deliver",service="api"}')).toBe(1);
  });

  describe('the ages of what waits and of the oldest kept rows (docs/retention.md)', () => {
    let aged: ApiHarness;
    beforeAll(async () => {
      aged = await startApi();
    });
    afterAll(() => aged.close());

    it('reports, in seconds on the database clock, how long the oldest waiting items and kept rows are', async () => {
      const db = aged.database.db;
      const { channel } = await aged.fixtures.aTenant();
      const ago = (seconds: number) => db.raw(`now() - make_interval(secs => ${seconds})`);
      await db('events').insert({ channel_id: channel.id, type: 'email.sent', data: {}, created_at: ago(3 * 3600) });
      const [dispatched] = await db('events')
        .insert({ channel_id: channel.id, type: 'email.sent', data: {}, created_at: ago(2 * 3600), dispatched_at: ago(2 * 3600) })
        .returning('id');
      const [endpoint] = await db('webhook_endpoints')
        .insert({ channel_id: channel.id, url: 'https://hooks.example.com/x', event_types: ['email.sent'], secret: 'whsec_x' })
        .returning('id');
      await db('webhook_deliveries').insert({
        channel_id: channel.id,
        event_id: (dispatched as { id: number }).id,
        webhook_endpoint_id: (endpoint as { id: number }).id,
        event_type: 'email.sent',
        status: 'pending',
        created_at: ago(2 * 3600),
      });
      await db('idempotency_keys').insert({ token_id: 1, key: 'k', fingerprint: 'f', created_at: ago(1800) });

      const res = await request(aged.app).get('/metrics');
      const around = (series: string, seconds: number) => {
        const value = valueOf(res.text, series);
        expect(value).toBeGreaterThanOrEqual(seconds);
        expect(value).toBeLessThan(seconds + 300);
      };
      around('mailcast_oldest_waiting_seconds{what="outbox_event",service="api"}', 3 * 3600);
      around('mailcast_oldest_waiting_seconds{what="webhook_delivery",service="api"}', 2 * 3600);
      expect(valueOf(res.text, 'mailcast_oldest_waiting_seconds{what="send",service="api"}')).toBe(0);
      around('mailcast_oldest_row_age_seconds{table="events",service="api"}', 3 * 3600);
      around('mailcast_oldest_row_age_seconds{table="webhook_deliveries",service="api"}', 2 * 3600);
      around('mailcast_oldest_row_age_seconds{table="idempotency_keys",service="api"}', 1800);
      expect(valueOf(res.text, 'mailcast_oldest_row_age_seconds{table="email_events",service="api"}')).toBe(0);
    });
  });

  it('keeps /healthz up and reports /readyz and /metrics honestly while the database is unreachable', async () => {
    const admin = api.database.db;
    const restore = await cutOffDatabase(api.database.name);
    try {
      expect((await request(api.app).get('/healthz')).status).toBe(200);
      const ready = await request(api.app).get('/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toEqual({ status: 'not_ready', checks: { database: false, migrations: false } });
      expect(valueOf(await scrape(), 'mailcast_database_up{service="api"}')).toBe(0);
    } finally {
      await restore();
    }
    await expect(admin.raw('SELECT 1')).resolves.toBeDefined();
    expect((await request(api.app).get('/readyz')).status).toBe(200);
  });

  it('sets security headers on every answer', async () => {
    const res = await request(api.app).get('/healthz');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
  });

  describe('with METRICS_TOKEN set (docs/security.md "Metrics")', () => {
    const metricsToken = 'scrape-0123456789abcdef';
    let guarded: ApiHarness;
    beforeAll(async () => {
      guarded = await startApi({ env: { METRICS_TOKEN: metricsToken } });
    });
    afterAll(() => guarded.close());

    it('answers 401 without the token, with a wrong one, or with a channel token', async () => {
      const channelToken = (await guarded.fixtures.aTenant()).token;
      for (const header of [undefined, 'Bearer wrong-0123456789abcdef', `Bearer ${channelToken}`, metricsToken, `Basic ${metricsToken}`]) {
        const req = request(guarded.app).get('/metrics');
        const res = header === undefined ? await req : await req.set('Authorization', header);
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ error: 'Unauthorized' });
        expect(res.text).not.toContain('mailcast_');
      }
    });

    it('serves the metrics to its bearer', async () => {
      const res = await request(guarded.app).get('/metrics').set('Authorization', `Bearer ${metricsToken}`);
      expect(res.status).toBe(200);
      expect(res.text).toContain('mailcast_http_requests_total');
    });
  });
});

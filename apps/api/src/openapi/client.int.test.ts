import { MailcastClient, MailcastError, verifyWebhook, WEBHOOK_HEADERS, type Broadcast, type Schemas } from '@mailcast/client';
import { signedHeaders } from '@mailcast/domain';
import { startApi, type ApiHarness } from '../test-support/harness';
import { documentCheckingFetch, serveForClient, type ClientHarness } from './test-support/client';

/**
 * @mailcast/client against the running API on loopback, every answer checked against the
 * OpenAPI document on the way (documentCheckingFetch). Only the routes that exist on this
 * branch are driven here; the others are typed from the same document.
 */
describe('@mailcast/client against the running API', () => {
  let api: ApiHarness;
  let served: ClientHarness;
  let client: MailcastClient;
  let channelId: number;
  const ids: number[] = [];

  beforeAll(async () => {
    api = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '50' } });
    served = await serveForClient(api.app);
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    client = served.client(tenant.token);
    for (let i = 0; i < 3; i++) {
      ids.push((await api.fixtures.aBroadcast(channelId, { name: `b${i}` }, new Date(Date.UTC(2026, 0, 1, 0, 0, i)))).id);
    }
  });
  afterAll(async () => {
    await served.close();
    await api.close();
  });

  it('lists broadcasts, newest first, with limit and offset, and reads the rate-limit headers', async () => {
    const all = await client.broadcasts.list();
    expect(all.total).toBe(3);
    expect(all.data.map((b) => b.id)).toEqual([...ids].reverse());
    const page = await client.broadcasts.list({ limit: 1, offset: 1 });
    expect(page).toEqual({ data: [expect.objectContaining({ id: ids[1], name: 'b1' })], total: 3 });
    expect(client.rateLimit).toEqual({ limit: 50, remaining: expect.any(Number), reset: expect.any(Date) });
    expect(client.rateLimit!.remaining).toBeLessThan(50);
  });

  it('asks whoami and status first, as clients of the reference service do', async () => {
    await expect(client.whoami()).resolves.toMatchObject({
      type: 'channel_scoped',
      token_type: 'channel',
      token: { id: expect.any(Number), type: 'channel_scoped', permissions: expect.objectContaining({ segments_read: true, broadcasts_write: true }) },
      channel: { id: channelId, name: 'Test channel', slug: 'test-channel' },
    });
    await expect(client.status()).resolves.toEqual({
      status: 'ok',
      channel: { id: channelId, name: 'Test channel', sender_email: null, sender_name: 'Test channel' },
      email_servers: 0,
      subscribers: { total: 0, active: 0 },
      readiness: { broadcasts: false, sequences: false, transactionals: false },
      ready: false,
    });
    await expect(client.prime()).resolves.toMatchObject({ platform: { name: 'Mailcast' }, rate_limit: { requests_per_minute: 50 } });
    await expect(client.skill()).resolves.toMatch(/^---\nname: mailcast\n/);
    await expect(client.channelDesign()).resolves.toMatchObject({ layout: { width: 600, radius: 6 } });
  });

  it('gets one broadcast as the typed Broadcast of the document', async () => {
    const broadcast: Broadcast = await client.broadcasts.get(ids[0]!);
    expect(broadcast).toMatchObject({ id: ids[0], name: 'b0', status: 'draft', html_body: null, tags: [] });
    const status: Schemas['BroadcastStatus'] = broadcast.status;
    expect(status).toBe('draft');
  });

  it('rejects with a MailcastError carrying status and the error body', async () => {
    const missing = await client.broadcasts.get(999_999_999).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MailcastError);
    expect(missing).toMatchObject({ status: 404, error: 'Broadcast not found', body: { error: 'Broadcast not found' }, operationId: 'getBroadcast' });
    expect((missing as Error).message).toBe('getBroadcast failed with 404: Broadcast not found');

    const invalid = await client.broadcasts.list({ limit: -1 }).catch((e: unknown) => e);
    expect(invalid).toMatchObject({ status: 422, error: 'limit must be a non-negative integer' });

    const stranger = served.client('mc_not-a-real-token');
    await expect(stranger.broadcasts.list()).rejects.toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
  });

  it('refuses to be built without a token', () => {
    expect(() => new MailcastClient({ baseUrl: served.baseUrl, token: '' })).toThrow('MailcastClient needs a token');
  });

  it('surfaces Retry-After on 429', async () => {
    const limited = await startApi({ env: { RATE_LIMIT_PER_MINUTE: '1' } });
    const server = await serveForClient(limited.app);
    try {
      const c = server.client((await limited.fixtures.aTenant()).token);
      await c.broadcasts.list();
      const refused = await c.broadcasts.list().catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(MailcastError);
      const error = refused as MailcastError;
      expect(error.status).toBe(429);
      expect(error.error).toBe('Rate limit exceeded');
      expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
      expect(error.rateLimit).toMatchObject({ limit: 1, remaining: 0 });
    } finally {
      await server.close();
      await limited.close();
    }
  });

  it('sends a transactional from a template with an Idempotency-Key, replayed on retry, and reads it back', async () => {
    const template = await client.templates.create({ label: 'Receipt', subject: 'Receipt {{ data.n }}', body: 'Order {{ data.n }}' });
    const body = { to: 'buyer@example.com', template_id: template.id, data: { n: 7 }, double_opt_in: false };
    const first = await client.transactionals.create(body, { idempotencyKey: 'order-7' });
    expect(first).toMatchObject({ to: 'buyer@example.com', subject: 'Receipt {{ data.n }}', status: 'queued' });
    expect(await client.transactionals.create(body, { idempotencyKey: 'order-7' })).toEqual(first);
    const other = await client.transactionals.create({ ...body, data: { n: 8 } }, { idempotencyKey: 'order-7' }).catch((e: unknown) => e);
    expect(other).toBeInstanceOf(MailcastError);
    expect((other as MailcastError).status).toBe(422);
    expect(await client.transactionals.get(first.id)).toMatchObject({ id: first.id, status: 'queued', message_id: null, error: null });
    // The log (one entry, whatever the replays) and its events, checked against the document by the matcher.
    expect(await client.transactionals.list({ email: 'BUYER@', status: 'queued' })).toEqual({ data: [expect.objectContaining({ id: first.id })], total: 1 });
    expect(await client.transactionals.events(first.id)).toEqual({ data: [] });
  });

  it('re-exports the webhook verifier of the domain package', () => {
    const secret = 'whsec_dGVzdC1zZWNyZXQtZm9yLXRoZS1jbGllbnQtcGFja2FnZQ==';
    const body = JSON.stringify({ id: 7, type: 'test.webhook', created_at: '2026-11-22T10:00:00Z', data: {} });
    const now = 1_795_000_000;
    const headers = signedHeaders({ eventId: 7, secret, timestamp: now, rawBody: body });
    expect(Object.keys(headers).sort()).toEqual(Object.values(WEBHOOK_HEADERS).sort());
    expect(verifyWebhook(secret, headers, body, { now: now * 1000 })).toEqual({ ok: true, id: '7', timestamp: now });
    expect(verifyWebhook(secret, headers, body + ' ', { now: now * 1000 })).toEqual({ ok: false, reason: 'invalid_signature' });
  });

  it('fails a call whose answer the document does not describe (the check is live)', async () => {
    const lying: typeof fetch = async () =>
      new Response(JSON.stringify({ id: 'not-a-number' }), { status: 200, headers: { 'content-type': 'application/json' } });
    const checked = new MailcastClient({ baseUrl: served.baseUrl, token: 'mc_x', fetch: documentCheckingFetch(lying) });
    await expect(checked.broadcasts.get(1)).rejects.toThrow(/GET \/api\/v1\/broadcasts\/\{id\} → 200: body does not match/);
  });

  it('sends request bodies the document accepts, in the nested form', async () => {
    const seen: Array<{ method: string; path: string; body: unknown }> = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push({ method: init!.method!, path: new URL(String(input)).pathname, body: JSON.parse(String(init!.body)) });
      return new Response(JSON.stringify({ id: 1 }), { status: 201, headers: { 'content-type': 'application/json' } });
    };
    const checked = new MailcastClient({ baseUrl: 'http://127.0.0.1:1', token: 'mc_x', fetch: documentCheckingFetch(recording) });
    await expect(checked.broadcasts.create({ subject: 'Hi', email_headers: [{ key: 'X-A', value: 'b' }] })).resolves.toEqual({ id: 1 });
    expect(seen).toEqual([{ method: 'POST', path: '/api/v1/broadcasts', body: { broadcast: { subject: 'Hi', email_headers: [{ key: 'X-A', value: 'b' }] } } }]);
    // A body the document refuses never leaves the client in these tests.
    await expect(checked.broadcasts.create({} as never)).rejects.toThrow(/POST \/api\/v1\/broadcasts request: body does not match/);
    expect(seen).toHaveLength(1);
  });

  it('drives opt-in forms: create, update, variant, duplicate, analytics, list, delete', async () => {
    const form = await client.optInForms.createOptInForm({ label: 'Client form', trigger_settings: { frequency: 'once' } });
    expect(form).toMatchObject({ label: 'Client form', trigger_settings: { frequency: 'once' }, variants_count: 0 });
    const updated = await client.optInForms.updateOptInForm(form.id, { security_settings: { rate_limit_max: 7 } });
    expect(updated.security_settings).toMatchObject({ rate_limit_max: 7, honeypot: true });
    await expect(client.optInForms.createVariant(form.id, { weight: 25 })).resolves.toMatchObject({ variant_name: 'Variant B', variant_weight: 25 });
    await expect(client.optInForms.duplicate(form.id)).resolves.toMatchObject({ label: 'Client form (Copy)', variants_count: 0 });
    const analytics = await client.optInForms.getAnalytics(form.id, { start_date: '2026-01-01', end_date: '2026-01-02' });
    expect(analytics.daily).toHaveLength(2);
    const list = await client.optInForms.listOptInForms({ filter: 'Client form' });
    expect(list.opt_in_forms.map((f) => f.label)).toEqual(['Client form', 'Client form (Copy)']);
    await expect(client.optInForms.deleteOptInForm(form.id)).resolves.toEqual({ message: 'Opt-in form deleted' });
    await expect(client.optInForms.getOptInForm(form.id)).rejects.toMatchObject({ status: 404, error: 'Opt-in form not found' });
  });
});

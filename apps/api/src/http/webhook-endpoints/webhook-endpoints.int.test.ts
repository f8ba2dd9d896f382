import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';

/** Spec: Webhook endpoints (routes, redaction, validation, permissions). Delivery is tested in the dispatcher. */
describe('webhook endpoints API', () => {
  let api: ApiHarness;
  let token: string;
  let channelId: number;
  let readOnly: string;
  let writeOnly: string;
  let otherToken: string;

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
    readOnly = await api.fixtures.aToken(channelId, ['webhook_endpoints_read']);
    writeOnly = await api.fixtures.aToken(channelId, ['webhook_endpoints_write']);
    otherToken = (await api.fixtures.aTenant()).token;
  });
  afterAll(() => api.close());

  const as = (t: string) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${t}`),
    post: (path: string, body?: object) => request(api.app).post(path).set('Authorization', `Bearer ${t}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${t}`).send(body),
    delete: (path: string) => request(api.app).delete(path).set('Authorization', `Bearer ${t}`),
  });

  const create = (body: object, t = token) => as(t).post('/api/v1/webhook_endpoints', body);
  const REDACTED = /^whsec_\*{40}[A-Za-z0-9+/=]{4}$/;

  it('creates an endpoint: 201, the full secret once, defaults retries 6 and active true', async () => {
    const res = await create({ webhook_endpoint: { url: 'https://example.com/hooks', event_types: ['subscriber.created', 'email.sent'] } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      url: 'https://example.com/hooks',
      description: '',
      active: true,
      event_types: ['subscriber.created', 'email.sent'],
      retries_to_attempt: 6,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      last_response_code: null,
      last_sent_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const secret = res.body.secret as string;

    const got = await as(token).get(`/api/v1/webhook_endpoints/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body.secret).toMatch(REDACTED);
    expect(got.body.secret.slice(-4)).toBe(secret.slice(-4));
    expect(got.body.secret).toHaveLength(secret.length);
    expect({ ...got.body, secret: undefined }).toEqual({ ...res.body, secret: undefined });

    const list = await as(readOnly).get('/api/v1/webhook_endpoints');
    expect(list.status).toBe(200);
    expect(list.body.data.find((e: { id: number }) => e.id === res.body.id).secret).toMatch(REDACTED);
    expect(JSON.stringify(list.body)).not.toContain(secret);
  });

  it('accepts the flat body form and every optional field', async () => {
    const res = await create({
      url: 'https://example.com/flat',
      description: 'CRM sync',
      event_types: ['broadcast.sent'],
      retries_to_attempt: 0,
      active: false,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ description: 'CRM sync', event_types: ['broadcast.sent'], retries_to_attempt: 0, active: false });
  });

  it.each([
    [{}, "Url can't be blank, Event types can't be blank"],
    [{ webhook_endpoint: { url: '', event_types: [] } }, "Url can't be blank, Event types can't be blank"],
    [{ webhook_endpoint: { url: '  ', event_types: ['email.sent'] } }, "Url can't be blank"],
    [{ webhook_endpoint: { url: 'https://example.com' } }, "Event types can't be blank"],
    [{ webhook_endpoint: { url: 'https://example.com', event_types: ['email.sent', 'nope.nope'] } }, 'Event types contains unknown event type(s): nope.nope'],
    [
      { webhook_endpoint: { url: 'https://example.com', event_types: ['email.sent'], retries_to_attempt: 21 } },
      'Retries to attempt must be an integer from 0 to 20',
    ],
    [
      { webhook_endpoint: { url: 'https://example.com', event_types: ['email.sent'], retries_to_attempt: -1 } },
      'Retries to attempt must be an integer from 0 to 20',
    ],
    [
      { webhook_endpoint: { url: 'https://example.com', event_types: ['email.sent'], retries_to_attempt: 1.5 } },
      'Retries to attempt must be an integer from 0 to 20',
    ],
    [{ webhook_endpoint: { url: 'ftp://example.com', event_types: ['email.sent'] } }, 'Url must use HTTPS'],
    [{ webhook_endpoint: { url: 'not a url', event_types: ['email.sent'] } }, 'Url is not a valid URL'],
    [
      { webhook_endpoint: { url: 5, event_types: 'email.sent', active: 'yes' } },
      'Url must be a string, Event types must be an array of strings, Active must be true or false',
    ],
  ])('refuses %j with 422 and one joined message', async (body, message) => {
    const before = (await api.database.db('webhook_endpoints').count({ n: '*' }).first())?.n;
    const res = await create(body);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: message });
    expect((await api.database.db('webhook_endpoints').count({ n: '*' }).first())?.n).toBe(before);
  });

  it('updates changed fields only, validates them, and never shows the secret', async () => {
    const created = await create({ url: 'https://example.com/a', event_types: ['email.sent'], description: 'keep me' });
    const id = created.body.id as number;
    const res = await as(token).patch(`/api/v1/webhook_endpoints/${id}`, { webhook_endpoint: { retries_to_attempt: 3, active: false } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, url: 'https://example.com/a', description: 'keep me', retries_to_attempt: 3, active: false });
    expect(res.body.secret).toMatch(REDACTED);

    const bad = await as(token).patch(`/api/v1/webhook_endpoints/${id}`, { event_types: [], url: '' });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ error: "Url can't be blank, Event types can't be blank" });
    const unknown = await as(token).patch(`/api/v1/webhook_endpoints/${id}`, { event_types: ['email.sent', 'x.y'] });
    expect(unknown.body).toEqual({ error: 'Event types contains unknown event type(s): x.y' });
    expect((await as(token).get(`/api/v1/webhook_endpoints/${id}`)).body.event_types).toEqual(['email.sent']);
  });

  it('deletes: 200 {message}, then every operation on it is a 404', async () => {
    const id = (await create({ url: 'https://example.com/d', event_types: ['email.sent'] })).body.id as number;
    const res = await as(token).delete(`/api/v1/webhook_endpoints/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Webhook endpoint deleted' });
    const notFound = { error: 'Webhook endpoint not found' };
    expect((await as(token).get(`/api/v1/webhook_endpoints/${id}`)).body).toEqual(notFound);
    expect((await as(token).get(`/api/v1/webhook_endpoints/${id}/deliveries`)).status).toBe(404);
    expect((await as(token).delete(`/api/v1/webhook_endpoints/${id}`)).status).toBe(404);
    expect((await as(token).patch(`/api/v1/webhook_endpoints/${id}`, { active: true })).status).toBe(404);
    expect((await as(token).post(`/api/v1/webhook_endpoints/${id}/test`)).status).toBe(404);
    const list = await as(token).get('/api/v1/webhook_endpoints?limit=100');
    expect(list.body.data.map((e: { id: number }) => e.id)).not.toContain(id);
  });

  it('answers 404 for unknown ids, ids of another channel and malformed ids', async () => {
    const id = (await create({ url: 'https://example.com/mine', event_types: ['email.sent'] })).body.id as number;
    for (const path of [`/api/v1/webhook_endpoints/${id}`, '/api/v1/webhook_endpoints/999999', '/api/v1/webhook_endpoints/abc']) {
      const t = path.endsWith(String(id)) ? otherToken : token;
      const res = await as(t).get(path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'Webhook endpoint not found' });
    }
  });

  it('lists newest first with limit, offset and total', async () => {
    const tenant = await api.fixtures.aTenant();
    const ids: number[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ url: `https://example.com/${i}`, event_types: ['email.sent'] }, tenant.token)).body.id);
    const page = await as(tenant.token).get('/api/v1/webhook_endpoints?limit=2&offset=1');
    expect(page.body.total).toBe(3);
    expect(page.body.data.map((e: { id: number }) => e.id)).toEqual([ids[1], ids[0]]);
    expect((await as(tenant.token).get('/api/v1/webhook_endpoints?limit=-1')).status).toBe(422);
  });

  it('test: queues test.webhook or a subscribed type, refuses others', async () => {
    const id = (await create({ url: 'https://example.com/t', event_types: ['email.sent'] })).body.id as number;
    const res = await as(token).post(`/api/v1/webhook_endpoints/${id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Test webhook queued', event_type: 'test.webhook', delivery_id: expect.any(Number) });
    const subscribed = await as(token).post(`/api/v1/webhook_endpoints/${id}/test`, { event_type: 'email.sent' });
    expect(subscribed.body.event_type).toBe('email.sent');
    const refused = await as(token).post(`/api/v1/webhook_endpoints/${id}/test`, { event_type: 'email.opened' });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ error: 'Event type is not subscribed by this endpoint' });

    const deliveries = await as(readOnly).get(`/api/v1/webhook_endpoints/${id}/deliveries`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.total).toBe(2);
    expect(deliveries.body.data.map((d: { id: number }) => d.id)).toEqual([subscribed.body.delivery_id, res.body.delivery_id]);
    expect(deliveries.body.data[1]).toEqual({
      id: res.body.delivery_id,
      event_type: 'test.webhook',
      event_data: { message: 'This is a test webhook from Mailcast', webhook_endpoint_id: id, sent_at: expect.any(String) },
      status: 'pending',
      attempt_number: 0,
      response_status: null,
      response_body: null,
      error_message: null,
      first_attempt_at: null,
      last_attempt_at: null,
      next_retry_at: null,
      successfully_delivered_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const jobs = (await api.database.db.raw(`SELECT data FROM pgboss.job WHERE name = 'webhooks.deliver'`)).rows.map((r: { data: unknown }) => r.data);
    expect(jobs).toEqual(expect.arrayContaining([{ deliveryId: res.body.delivery_id, endpointId: id, attempt: 1 }]));
  });

  it('needs webhook_endpoints_read to read and webhook_endpoints_write to write (401 otherwise)', async () => {
    const id = (await create({ url: 'https://example.com/p', event_types: ['email.sent'] })).body.id as number;
    expect((await as(writeOnly).get('/api/v1/webhook_endpoints')).status).toBe(401);
    expect((await as(writeOnly).get(`/api/v1/webhook_endpoints/${id}`)).status).toBe(401);
    expect((await as(writeOnly).get(`/api/v1/webhook_endpoints/${id}/deliveries`)).status).toBe(401);
    expect((await create({ url: 'https://example.com', event_types: ['email.sent'] }, readOnly)).status).toBe(401);
    expect((await as(readOnly).patch(`/api/v1/webhook_endpoints/${id}`, { active: false })).status).toBe(401);
    expect((await as(readOnly).delete(`/api/v1/webhook_endpoints/${id}`)).status).toBe(401);
    expect((await as(readOnly).post(`/api/v1/webhook_endpoints/${id}/test`)).status).toBe(401);
    expect((await as(writeOnly).post(`/api/v1/webhook_endpoints/${id}/test`)).status).toBe(200);
  });
});

describe('webhook endpoint URLs without WEBHOOK_ALLOW_PRIVATE (SSRF)', () => {
  let api: ApiHarness;
  let token: string;
  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'false' } });
    token = (await api.fixtures.aTenant()).token;
  });
  afterAll(() => api.close());

  it.each([
    ['http://example.com/hook', 'Url must use HTTPS'],
    ['https://127.0.0.1/hook', 'Url address 127.0.0.1 is not allowed'],
    ['https://10.1.2.3/hook', 'Url address 10.1.2.3 is not allowed'],
    ['https://192.168.0.10/hook', 'Url address 192.168.0.10 is not allowed'],
    ['https://169.254.169.254/latest/meta-data', 'Url address 169.254.169.254 is not allowed'],
    ['https://[::1]/hook', 'Url address ::1 is not allowed'],
    ['https://localhost/hook', 'Url localhost resolves to an address that is not allowed'],
    ['https://[::7f00:1]/hook', 'Url address ::7f00:1 is not allowed'],
    ['https://[::ffff:0:7f00:1]/hook', 'Url address ::ffff:0:7f00:1 is not allowed'],
    ['https://[2002:a9fe:a9fe::1]/hook', 'Url address 2002:a9fe:a9fe::1 is not allowed'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'Url address 2001:0:4136:e378:8000:63bf:3fff:fdd2 is not allowed'],
    ['https://user:pw@example.com/hook', 'Url must not carry credentials'],
  ])('refuses %s at create and update', async (url, message) => {
    const res = await request(api.app)
      .post('/api/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${token}`)
      .send({ webhook_endpoint: { url, event_types: ['email.sent'] } });
    expect(res.status).toBe(422);
    expect(res.body.error).toContain(message);
    // What a host name resolves to is never echoed (docs/security.md "Webhook destinations").
    if (url.includes('localhost')) expect(res.body.error).not.toMatch(/127\.0\.0\.1|::1/);

    const ok = await request(api.app)
      .post('/api/v1/webhook_endpoints')
      .set('Authorization', `Bearer ${token}`)
      .send({ webhook_endpoint: { url: 'https://93.184.215.14/hook', event_types: ['email.sent'] } });
    expect(ok.status).toBe(201);
    const update = await request(api.app).patch(`/api/v1/webhook_endpoints/${ok.body.id}`).set('Authorization', `Bearer ${token}`).send({ url });
    expect(update.status).toBe(422);
    expect(update.body.error).toContain(message);
  });
});

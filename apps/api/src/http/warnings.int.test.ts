import request from 'supertest';
import { expectResponseMatchesDocument } from '../openapi/test-support/match-document';
import { startApi, type ApiHarness } from '../test-support/harness';

/** docs/discovery.md (Warnings): unknown attributes are ignored with a warning, never silently. */
describe('warnings for unrecognized parameters', () => {
  let api: ApiHarness;
  let token: string;

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    token = (await api.fixtures.aTenant()).token;
  });
  afterAll(() => api.close());

  const send = (method: 'post' | 'patch', path: string, body: object) => request(api.app)[method](path).set('Authorization', `Bearer ${token}`).send(body);
  const warning = (param: string) => ({ code: 'unrecognized_parameter', param, message: expect.stringContaining(param) });

  it('creates a broadcast nested or flat and names each unknown attribute', async () => {
    const nested = await send('post', '/api/v1/broadcasts', { broadcast: { subject: 'Hi', body: 'x', colour: 'red' }, extra: 1 });
    expect(nested.status).toBe(201);
    expect(nested.body).toEqual({ id: expect.any(Number), warnings: [warning('colour'), warning('extra')] });
    expectResponseMatchesDocument(nested);

    const flat = await send('post', '/api/v1/broadcasts', { subject: 'Hi', body: 'x', audience: 'all' });
    expect(flat.body).toEqual({ id: expect.any(Number), warnings: [warning('audience')] });

    const clean = await send('post', '/api/v1/broadcasts', { broadcast: { subject: 'Hi', body: 'x', segment_ids: [] } });
    expect(clean.body).toEqual({ id: expect.any(Number) });

    const updated = await send('patch', `/api/v1/broadcasts/${nested.body.id}`, { broadcast: { name: 'n', status: 'sent' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ id: nested.body.id, name: 'n', status: 'draft', warnings: [warning('status')] });
    expectResponseMatchesDocument(updated);
  });

  it('creates and updates a subscriber with a warning beside the subscriber', async () => {
    const created = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'w@example.com', favourite: 'tea' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'w@example.com', is_active: true, warnings: [warning('favourite')] });
    expectResponseMatchesDocument(created);

    const updated = await send('patch', '/api/v1/subscribers.json', { email: 'w@example.com', subscriber: { first_name: 'W', nickname: 'dub' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ first_name: 'W', warnings: [warning('nickname')] });

    const plain = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'plain@example.com' }, double_opt_in: false });
    expect(plain.body.warnings).toBeUndefined();
  });

  it('creates and updates a webhook endpoint with a warning', async () => {
    const created = await send('post', '/api/v1/webhook_endpoints', {
      webhook_endpoint: { url: 'https://example.com/h', event_types: ['email.sent'], format: 'xml' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://example.com/h', warnings: [warning('format')] });
    expectResponseMatchesDocument(created);
    const updated = await send('patch', `/api/v1/webhook_endpoints/${created.body.id}`, { description: 'd', secret: 'mine' });
    expect(updated.body).toMatchObject({ description: 'd', warnings: [warning('secret')] });
  });

  it('honours is_active: false on subscriber create, for a new and an existing address', async () => {
    const created = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'off@example.com', is_active: false } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ email: 'off@example.com', is_active: false });
    expect(created.body.warnings).toBeUndefined();
    const stored = await api.database.db('subscribers').where({ email: 'off@example.com' }).first();
    expect(stored.is_active).toBe(false);

    // Create on an existing address updates it; is_active: false leaves it inactive, true reactivates.
    const again = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'off@example.com', first_name: 'Off', is_active: false } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ first_name: 'Off', is_active: false });
    const on = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'off@example.com', is_active: true } });
    expect(on.body).toMatchObject({ is_active: true });

    const bad = await send('post', '/api/v1/subscribers.json', { subscriber: { email: 'bad@example.com', is_active: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(bad.body).toEqual({ errors: { is_active: ['must be true or false'] } });
  });
});

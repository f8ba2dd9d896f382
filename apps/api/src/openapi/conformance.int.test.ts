import { type MailcastClient, MailcastError } from '@mailcast/client';
import { startApi, type ApiHarness } from '../test-support/harness';
import { anEmailServer } from '../test-support/broadcasts';
import { serveForClient, type ClientHarness } from './test-support/client';

/**
 * Every authenticated operation once through @mailcast/client, whose fetch holds each request
 * and each answer (status, headers, body) against the OpenAPI document: the document describes
 * what the running API really sends, success and error answers alike.
 */
describe('every operation answers as the OpenAPI document says', () => {
  let api: ApiHarness;
  let served: ClientHarness;
  let client: MailcastClient;

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    served = await serveForClient(api.app);
    const tenant = await api.fixtures.aTenant();
    await anEmailServer(api, tenant.channel.id);
    client = served.client(tenant.token);
  });
  afterAll(async () => {
    await served.close();
    await api.close();
  });

  /** An error answer, checked against the document on the way like any other. */
  const refused = async (call: Promise<unknown>) => {
    const error = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(MailcastError);
    return error as MailcastError;
  };

  it('subscribers: every operation', async () => {
    const email = 'walk@example.com';
    expect(await client.subscribers.create({ email, first_name: 'Walk', tags: ['a'], custom_data: { plan: 'pro', seats: 3 } })).toMatchObject({ email });
    expect(await client.subscribers.create({ email: 'double@example.com' }, { double_opt_in: { reply_to: 'help@example.com' } })).toMatchObject({
      confirmation_status: 'pending',
    });
    expect((await client.subscribers.list({ email: 'walk', custom_data: { plan: 'pro' } })).pagination.total).toBe(1);
    expect(await client.subscribers.find(email)).toMatchObject({ first_name: 'Walk' });
    expect(await client.subscribers.update({ email, last_name: 'Er' })).toMatchObject({ last_name: 'Er' });
    expect(await client.subscribers.addTags(email, ['b'])).toMatchObject({ tags: ['a', 'b'] });
    expect(await client.subscribers.removeTags(email, ['a'])).toMatchObject({ tags: ['b'] });
    expect(await client.subscribers.deactivate(email)).toMatchObject({ is_active: false });
    expect(await client.subscribers.activate(email)).toMatchObject({ is_active: true });
    expect(await client.subscribers.unsubscribe(email)).toMatchObject({ is_active: false });
    expect(await client.subscribers.resubscribe(email)).toMatchObject({ is_active: true, unsubscribed_at: null });
    expect(await client.subscribers.redact(email)).toEqual({ message: expect.any(String) });
    expect((await refused(client.subscribers.find('nobody@example.com'))).status).toBe(404);
    expect((await refused(client.subscribers.create({ email: 'not an email' }))).body).toEqual({ errors: { email: [expect.any(String)] } });
  });

  it('broadcasts: every operation', async () => {
    const { id } = await client.broadcasts.create({ subject: 'Hi {{ subscriber.first_name }}', body: 'Body', name: 'Walk' });
    expect((await client.broadcasts.list({ limit: 5 })).total).toBeGreaterThan(0);
    expect(await client.broadcasts.update(id, { preheader: 'Pre' })).toMatchObject({ id, preheader: 'Pre' });
    expect(await client.broadcasts.schedule(id, { scheduled_send_at: '2099-05-01T09:00:00', scheduled_timezone: 'Europe/Paris' })).toMatchObject({
      status: 'future_scheduled',
      scheduled_send_at: '2099-05-01T07:00:00.000Z',
    });
    expect(await client.broadcasts.cancelSchedule(id)).toMatchObject({ status: 'draft' });
    expect(await client.broadcasts.send(id)).toMatchObject({ status: 'scheduled' });
    expect(await client.broadcasts.pause(id)).toMatchObject({ status: 'paused' });
    expect(await client.broadcasts.resume(id)).toMatchObject({ status: 'scheduled' });
    expect(await client.broadcasts.abort(id)).toMatchObject({ status: 'aborted' });
    expect((await refused(client.broadcasts.update(id, { name: 'late' }))).body).toEqual({ error: 'Broadcast cannot be updated in current status' });
    expect((await client.broadcasts.statistics(id)).broadcast_id).toBe(id);
    expect((await client.broadcasts.timeline(id, { timeframe: '7d', metrics: ['Opens'] })).interval).toBe('6h');
    expect((await client.broadcasts.links(id, { sort: 'unique', order: 'asc', limit: 10 })).links).toEqual([]);
    const draft = await client.broadcasts.create({ subject: 'To delete' });
    expect(await client.broadcasts.delete(draft.id)).toEqual({ message: expect.any(String) });
    expect((await refused(client.broadcasts.get(draft.id))).body).toEqual({ error: 'Broadcast not found' });
    expect((await refused(client.broadcasts.create({ subject: '' }))).body).toEqual({ error: "Subject can't be blank" });
  });

  it('webhook endpoints: every operation', async () => {
    const endpoint = await client.webhookEndpoints.create({ url: 'https://hooks.example.com/walk', event_types: ['subscriber.created'] });
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect((await client.webhookEndpoints.list()).total).toBe(1);
    expect((await client.webhookEndpoints.get(endpoint.id)).secret).toMatch(/^whsec_\*+.{4}$/);
    expect(await client.webhookEndpoints.update(endpoint.id, { retries_to_attempt: 2, description: 'Walk' })).toMatchObject({ retries_to_attempt: 2 });
    expect(await client.webhookEndpoints.test(endpoint.id)).toMatchObject({ event_type: 'test.webhook', delivery_id: expect.any(Number) });
    expect((await client.webhookEndpoints.deliveries(endpoint.id)).data[0]).toMatchObject({ event_type: 'test.webhook', status: 'pending' });
    expect((await refused(client.webhookEndpoints.test(endpoint.id, 'email.opened'))).body).toEqual({
      error: 'Event type is not subscribed by this endpoint',
    });
    expect(await client.webhookEndpoints.delete(endpoint.id)).toEqual({ message: expect.any(String) });
    expect((await refused(client.webhookEndpoints.get(endpoint.id))).body).toEqual({ error: 'Webhook endpoint not found' });
  });
});

import { EVENT_TYPES } from '@mailcast/domain';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../test-support/harness';

/**
 * The event types the reference service's clients list (its Node SDK's EVENT_TYPES, which mirror
 * the server's AVAILABLE_EVENT_TYPES, and the two its Python SDK 0.5 adds) are all
 * accepted on webhook endpoints, those Mailcast never emits included (docs/webhooks.md,
 * "Accepted, never emitted").
 */
const REFERENCE_EVENT_TYPES = [
  'email.sent',
  'email.delivered',
  'email.delivery_delayed',
  'email.complained',
  'email.bounced',
  'email.opened',
  'email.clicked',
  'email.failed',
  'subscriber.created',
  'subscriber.updated',
  'subscriber.deleted',
  'subscriber.subscribed',
  'subscriber.unsubscribed',
  'subscriber.bounced',
  'subscriber.complained',
  'subscribers.purged',
  'subscribers.purge_failed',
  'broadcast.scheduled',
  'broadcast.queueing',
  'broadcast.sending',
  'broadcast.sent',
  'broadcast.failed',
  'broadcast.partial_failure',
  'broadcast.aborted',
  'broadcast.paused',
  'sequence.subscriber_added',
  'sequence.subscriber_completed',
  'sequence.subscriber_moved',
  'sequence.subscriber_removed',
  'sequence.subscriber_paused',
  'sequence.subscriber_resumed',
  'sequence.subscriber_error',
  'message.attempt.exhausted',
  'test.webhook',
  // Python SDK 0.5: accepted, never emitted.
  'email.send_delayed',
  'broadcast.batch_completed',
];

describe("the reference service's event types on webhook endpoints", () => {
  let api: ApiHarness;
  let token: string;
  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true' } });
    token = (await api.fixtures.aTenant()).token;
  });
  afterAll(() => api.close());

  const call = (method: 'post' | 'get', path: string, body?: object) => {
    const req = request(api.app)[method](`/api/v1${path}`).set('Authorization', `Bearer ${token}`);
    return body === undefined ? req : req.send(body);
  };

  it("are every one in the catalogue, whose only others are Mailcast's own subscriber.preferences_updated and broadcast.ab_test_decided (docs/webhooks.md)", () => {
    expect(REFERENCE_EVENT_TYPES.filter((t) => !(EVENT_TYPES as readonly string[]).includes(t))).toEqual([]);
    // docs/subject-tests.md: broadcast.ab_test_decided is Mailcast's own too.
    expect(EVENT_TYPES.filter((t) => !REFERENCE_EVENT_TYPES.includes(t))).toEqual(['subscriber.preferences_updated', 'broadcast.ab_test_decided']);
  });

  it('are accepted on create, stored and answered, and each may be sent by the test operation', async () => {
    const created = await call('post', '/webhook_endpoints', { webhook_endpoint: { url: 'http://127.0.0.1:9/all', event_types: REFERENCE_EVENT_TYPES } });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toBeUndefined();
    expect([...created.body.event_types].sort()).toEqual([...REFERENCE_EVENT_TYPES].sort());
    const read = await call('get', `/webhook_endpoints/${created.body.id}`);
    expect([...read.body.event_types].sort()).toEqual([...REFERENCE_EVENT_TYPES].sort());
    for (const eventType of ['subscribers.purged', 'subscribers.purge_failed', 'email.send_delayed', 'broadcast.batch_completed']) {
      const tested = await call('post', `/webhook_endpoints/${created.body.id}/test`, { event_type: eventType });
      expect([tested.status, tested.body.event_type]).toEqual([200, eventType]);
    }
  });

  it('still refuse a name nobody lists', async () => {
    const refused = await call('post', '/webhook_endpoints', {
      webhook_endpoint: { url: 'http://127.0.0.1:9/x', event_types: ['subscribers.purged', 'subscribers.deleted'] },
    });
    expect([refused.status, refused.body]).toEqual([422, { error: 'Event types contains unknown event type(s): subscribers.deleted' }]);
  });
});

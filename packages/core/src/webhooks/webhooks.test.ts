import { PERMISSIONS, verifyWebhook } from '@mailcast/domain';
import type { Principal } from '../auth/authenticate';
import type { ClaimedAttempt, WebhookDestinations, WebhookPost, WebhookResult, WebhookSender } from '../ports';
import { CountingRandom, FakeTransactor, fakeRepositories, FixedClock } from '../test-support/fakes';
import { CreateWebhookEndpoint } from './create-webhook-endpoint';
import { RecordWebhookFailure } from './record-webhook-failure';
import { SendWebhookAttempt, webhookBody, type AttemptOutcome } from './send-webhook-attempt';

const caller: Principal = { tokenId: 1, channelId: 5, permissions: PERMISSIONS };
const now = new Date('2026-11-22T10:00:00.000Z');

class AllowHttps implements WebhookDestinations {
  async check(url: string) {
    return url.startsWith('https://') ? ({ ok: true } as const) : ({ ok: false, reason: 'must use HTTPS' } as const);
  }
}

class RecordingSender implements WebhookSender {
  readonly posts: WebhookPost[] = [];
  constructor(private readonly result: WebhookResult) {}
  async post(request: WebhookPost): Promise<WebhookResult> {
    this.posts.push(request);
    return this.result;
  }
}

const attempt = (overrides: Partial<ClaimedAttempt> = {}): ClaimedAttempt => ({
  deliveryId: 9,
  channelId: 5,
  attempt: 1,
  eventId: 77,
  eventType: 'subscriber.created',
  eventData: { subscriber_id: 1 },
  eventCreatedAt: new Date('2026-11-22T09:59:59.000Z'),
  endpointId: 3,
  url: 'https://example.com/hook',
  secret: 'whsec_secret',
  retriesToAttempt: 2,
  firstAttemptAt: null,
  ...overrides,
});

describe('CreateWebhookEndpoint', () => {
  const create = (repositories = fakeRepositories()) => new CreateWebhookEndpoint(repositories, new AllowHttps(), new CountingRandom(), new FixedClock(now));

  it('joins the blank-field messages the way the spec shows', async () => {
    await expect(create().execute(caller, {})).rejects.toThrow("Url can't be blank, Event types can't be blank");
  });

  it('defaults retries to 6 and active to true, and generates a whsec_ secret', async () => {
    const repositories = fakeRepositories();
    const endpoint = await create(repositories).execute(caller, { url: ' https://example.com/h ', eventTypes: ['email.sent', 'email.sent'] });
    expect(endpoint).toMatchObject({ channelId: 5, url: 'https://example.com/h', retriesToAttempt: 6, active: true, eventTypes: ['email.sent'] });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });

  it('refuses unknown event types and a refused destination together', async () => {
    await expect(create().execute(caller, { url: 'http://example.com', eventTypes: ['nope'], retriesToAttempt: 21 })).rejects.toThrow(
      'Url must use HTTPS, Event types contains unknown event type(s): nope, Retries to attempt must be an integer from 0 to 20',
    );
  });
});

describe('SendWebhookAttempt', () => {
  it('sends the envelope it signs, with the event id as the delivery id', async () => {
    const sender = new RecordingSender({ kind: 'response', status: 200, body: 'ok' });
    const outcome = await new SendWebhookAttempt(sender, new FixedClock(now)).execute(attempt());
    const [post] = sender.posts;
    expect(post!.body).toBe('{"id":77,"type":"subscriber.created","created_at":"2026-11-22T09:59:59.000Z","data":{"subscriber_id":1}}');
    expect(post!.body).toBe(webhookBody(attempt()));
    expect(post!.headers['broadcast-webhook-id']).toBe('77');
    expect(post!.headers['broadcast-webhook-timestamp']).toBe(String(now.getTime() / 1000));
    expect(verifyWebhook('whsec_secret', post!.headers, post!.body, { now })).toEqual({ ok: true, id: '77', timestamp: now.getTime() / 1000 });
    expect(outcome.attemptedAt).toEqual(now);
  });
});

describe('RecordWebhookFailure', () => {
  const failure = (a: ClaimedAttempt): AttemptOutcome => ({
    attempt: a,
    result: { kind: 'failed', reason: 'timeout', message: 'no response within 30000 ms' },
    attemptedAt: now,
    finishedAt: new Date(now.getTime() + 30_000),
  });

  it('queues the next attempt at the schedule delay in the same unit of work', async () => {
    const repositories = fakeRepositories();
    const transactor = new FakeTransactor(repositories);
    const next = await new RecordWebhookFailure(transactor, [1000, 2000]).execute(failure(attempt({ attempt: 2 })));
    expect(next).toEqual({ kind: 'retry', at: new Date(now.getTime() + 30_000 + 2000) });
    expect(repositories.jobs.sent).toEqual([
      { name: 'webhooks.deliver', data: { deliveryId: 9, endpointId: 3, attempt: 3 }, startAfter: new Date(now.getTime() + 32_000) },
    ]);
    expect(repositories.webhookDeliveries.failures[0]).toMatchObject({ attempt: 2, error: 'timeout: no response within 30000 ms', status: null });
    expect(repositories.outbox.events).toEqual([]);
    expect(transactor.runs).toBe(1);
  });

  it('exhausts after retries_to_attempt retries and emits message.attempt.exhausted', async () => {
    const repositories = fakeRepositories();
    const next = await new RecordWebhookFailure(new FakeTransactor(repositories), [1000]).execute(failure(attempt({ attempt: 3 })));
    expect(next).toEqual({ kind: 'exhausted' });
    expect(repositories.jobs.sent).toEqual([]);
    expect(repositories.outbox.events).toEqual([
      {
        id: 1,
        channelId: 5,
        type: 'message.attempt.exhausted',
        createdAt: new Date(now.getTime() + 30_000),
        data: {
          delivery_id: 9,
          webhook_endpoint_id: 3,
          attempts: 3,
          last_error: 'timeout: no response within 30000 ms',
          first_attempted_at: now.toISOString(),
          last_attempted_at: now.toISOString(),
          original_event_type: 'subscriber.created',
        },
      },
    ]);
  });

  it('never retries a message.attempt.exhausted delivery, and emits nothing more', async () => {
    const repositories = fakeRepositories();
    const next = await new RecordWebhookFailure(new FakeTransactor(repositories), [1000]).execute(
      failure(attempt({ eventType: 'message.attempt.exhausted', retriesToAttempt: 20 })),
    );
    expect(next).toEqual({ kind: 'exhausted' });
    expect(repositories.jobs.sent).toEqual([]);
    expect(repositories.outbox.events).toEqual([]);
    expect(repositories.webhookDeliveries.failures[0]!.nextRetryAt).toBeNull();
  });
});

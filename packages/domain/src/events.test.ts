import { BROADCAST_STATUSES } from './broadcast';
import { EVENT_TYPES, EVENT_TYPE_GROUPS, broadcastEventType, isEventType } from './events';

describe('event catalogue', () => {
  test('38 types in six groups, each group sharing its prefix', () => {
    expect(EVENT_TYPES).toHaveLength(38);
    expect(new Set(EVENT_TYPES).size).toBe(38);
    expect(Object.fromEntries(Object.entries(EVENT_TYPE_GROUPS).map(([g, types]) => [g, types.length]))).toEqual({
      email: 9,
      subscriber: 8,
      subscribers: 2,
      broadcast: 10,
      sequence: 7,
      system: 2,
    });
    for (const group of ['email', 'subscriber', 'subscribers', 'broadcast', 'sequence'] as const) {
      for (const t of EVENT_TYPE_GROUPS[group]) expect(t.startsWith(`${group}.`)).toBe(true);
    }
    expect([...EVENT_TYPE_GROUPS.system]).toEqual(['message.attempt.exhausted', 'test.webhook']);
  });

  test.each([
    ['email.delivery_delayed', true],
    ['subscriber.subscribed', true],
    ['sequence.subscriber_error', true],
    ['test.webhook', true],
    ['subscribers.purged', true],
    ['subscribers.purge_failed', true],
    ['email.send_delayed', true],
    ['broadcast.batch_completed', true],
    ['email.*', false],
    ['broadcast.draft', false],
    ['Email.sent', false],
  ])('isEventType(%j) is %s', (s, expected) => {
    expect(isEventType(s)).toBe(expected);
  });
});

describe('broadcastEventType', () => {
  const expected: Record<string, string | null> = {
    draft: null,
    future_scheduled: null,
    scheduled: 'broadcast.scheduled',
    queueing: 'broadcast.queueing',
    sending: 'broadcast.sending',
    sent: 'broadcast.sent',
    failed: 'broadcast.failed',
    partial_failure: 'broadcast.partial_failure',
    aborted: 'broadcast.aborted',
    paused: 'broadcast.paused',
  };
  test.each(BROADCAST_STATUSES.map((s) => [s, expected[s]] as const))('%s → %s', (status, type) => {
    expect(broadcastEventType(status)).toBe(type);
  });
});

import { trackingToken } from '@mailcast/domain';
import { fakeRepositories, FakeTransactor, FixedClock } from '../test-support/fakes';
import { RecordClick } from './record-click';
import { RecordOpen } from './record-open';
import { UnsubscribeByToken } from './unsubscribe-by-token';

const SECRET = Buffer.alloc(32, 1);
const TOKEN = trackingToken(SECRET, 7);

function world() {
  const repositories = fakeRepositories();
  const clock = new FixedClock(new Date('2026-11-22T10:00:00Z'));
  const transactor = new FakeTransactor(repositories);
  repositories.recipients.secrets.set(3, SECRET);
  repositories.recipients.recipients.push({
    id: 7,
    channelId: 1,
    broadcastId: 3,
    messageId: '<3.9.x@example.test>',
    status: 'sent',
    deliveredAt: new Date('2026-11-22T09:00:00Z'),
    openedAt: null,
    clickedAt: null,
    subscriber: {
      id: 9,
      email: 'ann@example.test',
      firstName: 'Ann',
      lastName: null,
      tags: [],
      customData: {},
      isActive: true,
      source: 'api_subscription',
      subscribedAt: new Date('2026-01-01T00:00:00Z'),
      unsubscribedAt: null,
    },
  });
  repositories.recipients.links.push({ id: 5, broadcastId: 3, identifier: 'abc', url: 'https://example.test/page' });
  return { repositories, clock, transactor };
}

describe('tracking', () => {
  it('records every open, with the first open time in the event', async () => {
    const w = world();
    const open = new RecordOpen(w.transactor, w.clock);
    expect(await open.execute({ token: TOKEN })).toBe(true);
    w.clock.current = new Date('2026-11-22T11:00:00Z');
    expect(await open.execute({ token: TOKEN })).toBe(true);
    expect(w.repositories.emailEvents.events.map((e) => [e.kind, e.occurredAt.toISOString()])).toEqual([
      ['opened', '2026-11-22T10:00:00.000Z'],
      ['opened', '2026-11-22T11:00:00.000Z'],
    ]);
    expect(w.repositories.outbox.events.map((e) => [e.type, e.data.opened_at])).toEqual([
      ['email.opened', '2026-11-22T10:00:00.000Z'],
      ['email.opened', '2026-11-22T10:00:00.000Z'],
    ]);
  });

  it('refuses malformed and unknown tokens without touching anything', async () => {
    const w = world();
    expect(await new RecordOpen(w.transactor, w.clock).execute({ token: 'nope' })).toBe(false);
    expect(await new RecordOpen(w.transactor, w.clock).execute({ token: trackingToken(Buffer.alloc(32, 2), 7) })).toBe(false);
    expect(await new RecordOpen(w.transactor, w.clock).execute({ token: trackingToken(SECRET, 8) })).toBe(false);
    expect(await new RecordClick(w.transactor, w.clock).execute({ token: TOKEN, link: 'zzz' })).toBeNull();
    expect(w.repositories.emailEvents.events).toEqual([]);
    expect(w.repositories.outbox.events).toEqual([]);
  });

  it('gives the stored URL of a click and records it with its link', async () => {
    const w = world();
    expect(await new RecordClick(w.transactor, w.clock).execute({ token: TOKEN, link: 'abc' })).toBe('https://example.test/page');
    expect(w.repositories.emailEvents.events).toEqual([expect.objectContaining({ kind: 'clicked', linkId: 5, recipientId: 7 })]);
    expect(w.repositories.outbox.events.map((e) => e.type)).toEqual(['email.clicked']);
  });

  it('unsubscribes once, however often the link is used', async () => {
    const w = world();
    const unsubscribe = new UnsubscribeByToken(w.transactor, w.clock);
    expect(await unsubscribe.execute({ token: TOKEN })).toEqual({ email: 'ann@example.test', changed: true });
    expect(await unsubscribe.execute({ token: TOKEN })).toEqual({ email: 'ann@example.test', changed: false });
    expect(w.repositories.emailEvents.events.map((e) => e.kind)).toEqual(['unsubscribed']);
    expect(w.repositories.outbox.events.map((e) => [e.type, e.data.is_active, e.data.unsubscribed_at])).toEqual([
      ['subscriber.unsubscribed', false, '2026-11-22T10:00:00.000Z'],
    ]);
  });
});

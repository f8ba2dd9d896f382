import { DeliverBroadcast, QueueRecipients } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import { startSendingHarness, type SendingHarness } from './test-support/sending-harness';

const recipientsOf = (h: SendingHarness, broadcastId: number) =>
  h.api.database
    .db('broadcast_recipients as r')
    .join('subscribers as s', 's.id', 'r.subscriber_id')
    .where('r.broadcast_id', broadcastId)
    .orderBy('s.email')
    .select('s.email', 'r.status') as Promise<Array<{ email: string; status: string }>>;

describe('suppressions stop email (HTTP, dispatcher workers, real SMTP)', () => {
  let h: SendingHarness;
  beforeAll(async () => {
    // bounce@ is refused permanently, as a real server refuses an unknown mailbox.
    h = await startSendingHarness({ verdictFor: (to) => (to.startsWith('bounce@') ? { code: 550, message: '5.1.1 No such user' } : undefined) });
    for (const name of ['ann', 'bob', 'bounce', 'cid', 'dee']) {
      expect((await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: `${name}@example.com` } })).status).toBe(201);
    }
  }, 60_000);
  afterAll(() => h.close());

  const receivedBy = (from: number) =>
    h.smtp.messages
      .slice(from)
      .map((m) => m.to[0])
      .sort();

  it('a hard bounce and a manual suppression each stop the next broadcast to that address', async () => {
    const first = await h.broadcast({ subject: 'One', body: 'First' });
    expect(first.status).toBe('partial_failure');
    expect(receivedBy(0)).toEqual(['ann@example.com', 'bob@example.com', 'cid@example.com', 'dee@example.com']);
    expect((await h.request('GET', '/api/v1/suppressions/check.json?email=bounce@example.com')).body).toEqual({
      email: 'bounce@example.com',
      suppressed: true,
      scope: 'channel',
      reason: 'bounce',
    });

    // The bounced subscriber is made active again: only the suppression keeps it from the list.
    expect((await h.request('POST', '/api/v1/subscribers/activate.json', { email: 'bounce@example.com' })).body.is_active).toBe(true);
    expect((await h.request('POST', '/api/v1/suppressions.json', { email: 'cid@example.com' })).status).toBe(201);
    // The installation-wide list is an admin token's (docs/auth.md).
    const admin = await h.api.fixtures.anAdminToken();
    const global = await h.request('POST', '/api/v1/global_suppressions.json', { email: 'dee@example.com' }, { authorization: `Bearer ${admin}` });
    expect(global.status).toBe(201);

    const before = h.smtp.messages.length;
    const second = await h.broadcast({ subject: 'Two', body: 'Second' });
    expect(second.status).toBe('sent');
    expect(receivedBy(before)).toEqual(['ann@example.com', 'bob@example.com']);
    // Counted as skipped, and the broadcast is complete with them.
    expect(await recipientsOf(h, second.id)).toEqual([
      { email: 'ann@example.com', status: 'sent' },
      { email: 'bob@example.com', status: 'sent' },
      { email: 'bounce@example.com', status: 'skipped' },
      { email: 'cid@example.com', status: 'skipped' },
      { email: 'dee@example.com', status: 'skipped' },
    ]);
    const shown = await h.request('GET', `/api/v1/broadcasts/${second.id}`);
    expect(shown.body).toMatchObject({ total_recipients: 5, broadcast_recipients_count: 5 });

    // Off the list again, the address receives the next one.
    expect((await h.request('DELETE', '/api/v1/suppressions.json', { email: 'cid@example.com' })).body).toEqual({ removed: true });
    const next = h.smtp.messages.length;
    await h.broadcast({ subject: 'Three', body: 'Third' });
    expect(receivedBy(next)).toEqual(['ann@example.com', 'bob@example.com', 'cid@example.com']);
  }, 90_000);

  it('sends no confirmation email to a suppressed address', async () => {
    await h.request('POST', '/api/v1/suppressions.json', { email: 'eve@example.com' });
    const before = h.smtp.messages.length;
    const created = await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: 'eve@example.com' }, double_opt_in: true });
    expect(created.status).toBe(201);
    await eventually(async () => {
      const { rows } = await h.api.database.db.raw(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'subscribers.confirmation' AND state = 'completed'`);
      return rows[0].n === 1 ? true : undefined;
    });
    expect(h.smtp.messages.slice(before)).toEqual([]);
  });
});

describe('the check just before sending', () => {
  let h: SendingHarness;
  beforeAll(async () => {
    // No workers: the test runs queueing and sending itself, to suppress in between.
    h = await startSendingHarness({ handlers: [] });
  }, 60_000);
  afterAll(() => h.close());

  it('skips an address suppressed after the broadcast was queued', async () => {
    for (const name of ['ann', 'bob']) await h.request('POST', '/api/v1/subscribers.json', { email: `${name}@example.com` });
    const created = await h.request('POST', '/api/v1/broadcasts', { subject: 'Late', body: 'Late' });
    await h.request('POST', `/api/v1/broadcasts/${created.body.id}/send_broadcast`);
    const queued = await h.dispatcher.resolve(QueueRecipients).execute({ broadcastId: created.body.id });
    expect(queued?.status).toBe('sending');
    expect(await recipientsOf(h, created.body.id)).toEqual([
      { email: 'ann@example.com', status: 'pending' },
      { email: 'bob@example.com', status: 'pending' },
    ]);
    await h.request('POST', '/api/v1/suppressions.json', { email: 'bob@example.com' });
    expect(await h.dispatcher.resolve(DeliverBroadcast).execute({ broadcastId: created.body.id })).toBe('finished');
    expect(h.smtp.messages.map((m) => m.to[0])).toEqual(['ann@example.com']);
    expect(await recipientsOf(h, created.body.id)).toEqual([
      { email: 'ann@example.com', status: 'sent' },
      { email: 'bob@example.com', status: 'skipped' },
    ]);
  });
});

import { eventually } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

// Issue 34, finding 6: `"blocked"@example.com` is the mailbox `blocked@example.com` (RFC 5321
// §4.1.2), so it must meet the suppression `blocked@example.com` (docs/subscribers.md, "One form
// of an address").
describe('a quoted local part cannot slip past a suppression (HTTP, dispatcher workers, real SMTP)', () => {
  const h = useSendingHarness();
  /** Every recipient the SMTP server was given, as the mailbox it names. */
  const mailboxesReached = () => h.smtp.messages.flatMap((m) => m.to).map((to) => to.replace(/^"(.*)"@/, '$1@').toLowerCase());

  beforeAll(async () => {
    expect((await h.request('POST', '/api/v1/suppressions.json', { email: 'blocked@example.com' })).status).toBe(201);
    // The installation-wide list is an admin token's (docs/auth.md).
    const admin = await h.api.fixtures.anAdminToken();
    const global = await h.request('POST', '/api/v1/global_suppressions.json', { email: 'everywhere@example.com' }, { authorization: `Bearer ${admin}` });
    expect(global.status).toBe(201);
  });

  it('stores a subscriber given as "blocked"@example.com as blocked@example.com, and check.json says suppressed', async () => {
    const created = await h.request('POST', '/api/v1/subscribers.json', { subscriber: { email: '"blocked"@example.com' } });
    expect(created.status).toBe(201);
    expect(created.body.email).toBe('blocked@example.com');
    const check = await h.request('GET', `/api/v1/suppressions/check.json?email=${encodeURIComponent('"blocked"@example.com')}`);
    expect(check).toEqual({
      status: 200,
      body: { email: 'blocked@example.com', suppressed: true, scope: 'channel', reason: 'manual' },
    });
    // The subscriber is found under either spelling, and a second create is the same subscriber.
    const again = await h.request('POST', '/api/v1/subscribers.json', { email: 'BLOCKED@example.com' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);
  });

  it('records a transactional to "Blocked"@example.com as suppressed, and no email reaches the SMTP server for it', async () => {
    const quoted = await h.sendTransactional({ to: '"Blocked"@example.com', subject: 'Hi', body: 'Hello' });
    expect(quoted.status).toBe(201);
    expect(quoted.body).toMatchObject({ to: 'blocked@example.com', status: 'suppressed' });
    // The installation-wide list is met the same way.
    const check = await h.request('GET', `/api/v1/suppressions/check.json?email=${encodeURIComponent('"Everywhere"@example.com')}`);
    expect(check.body).toEqual({ email: 'everywhere@example.com', suppressed: true, scope: 'global', reason: 'manual' });
    const globally = await h.sendTransactional({ to: '"everywhere"@example.com', subject: 'Hi', body: 'Hello' });
    expect(globally.status).toBe(201);
    expect(globally.body).toMatchObject({ to: 'everywhere@example.com', status: 'suppressed' });
    // A broadcast to the channel reaches the unsuppressed subscriber and not the quoted one.
    expect((await h.request('POST', '/api/v1/subscribers.json', { email: 'ann@example.com' })).status).toBe(201);
    const broadcast = await h.broadcast({ subject: 'News', body: 'News' });
    expect(broadcast.status).toBe('sent');
    // A later transactional to another address arrives: the queue was not merely slow.
    const control = await h.sendTransactional({ to: 'cid@example.com', subject: 'Hi', body: 'Hello' });
    expect(control.body.status).toBe('queued');
    await eventually(async () => (h.received('cid@example.com').length === 1 ? true : undefined));
    expect(mailboxesReached().sort()).toEqual(['ann@example.com', 'cid@example.com']);
    expect((await h.request('GET', `/api/v1/transactionals/${quoted.body.id}.json`)).body.status).toBe('suppressed');
  }, 60_000);

  it("refuses a quoted local part that needs its quotes, with the field's usual message, and writes nothing", async () => {
    for (const email of ['"blocked "@example.com', '"a\\"b"@example.com', '"a,blocked"@example.com', 'a,blocked@example.com']) {
      expect(await h.request('POST', '/api/v1/subscribers.json', { email })).toEqual({ status: 422, body: { errors: { email: ['is invalid'] } } });
      expect(await h.request('POST', '/api/v1/suppressions.json', { email })).toEqual({ status: 422, body: { errors: { email: ['is invalid'] } } });
      expect(await h.sendTransactional({ to: email, subject: 'Hi', body: 'Hello' })).toEqual({ status: 422, body: { errors: { to: ['is invalid'] } } });
    }
    const { rows } = await h.api.database.db.raw(`SELECT count(*)::int AS n FROM subscribers WHERE email LIKE '%"%' OR email LIKE '%,%'`);
    expect(rows[0].n).toBe(0);
  });
});

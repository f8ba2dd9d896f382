import { useSendingHarness } from './test-support/sending-harness';

const FORBIDDEN = { error: 'Admin API token required for global suppressions' };

// Issue 34, finding 2, as far as the SMTP server: channel A, whose token held every permission
// as `channel create` printed it, suppressed an address for every channel, and channel B's
// broadcast then skipped it; A also deleted the installation-wide entries B relied on. The
// installation-wide list is now an admin token's alone (docs/auth.md, Admin tokens).
describe("one channel cannot stop another's email through the installation-wide list (HTTP, dispatcher workers, real SMTP)", () => {
  // The harness's own channel is B, the healthy tenant with an email server.
  const h = useSendingHarness();
  let attacker: string;

  const asAttacker = (method: string, path: string, body?: unknown) => h.request(method, path, body, { authorization: `Bearer ${attacker}` });

  beforeAll(async () => {
    attacker = (await h.api.fixtures.aTenant()).token;
    const admin = await h.api.fixtures.anAdminToken();
    const kept = await h.request('POST', '/api/v1/global_suppressions.json', { email: 'kept@example.com' }, { authorization: `Bearer ${admin}` });
    expect(kept.status).toBe(201);
    expect((await h.request('POST', '/api/v1/suppressions.json', { email: 'b-own@example.com' })).status).toBe(201);
    expect((await h.request('POST', '/api/v1/subscribers.json', { email: 'customer@example.com' })).status).toBe(201);
  });

  it("refuses A's every call on the list with 403, and B's broadcast and transactional still reach the address", async () => {
    // B asks while A attacks: answered at once.
    const timedCheck = async () => {
      const started = performance.now();
      const check = await h.request('GET', '/api/v1/suppressions/check.json?email=b-own@example.com');
      return { check, ms: performance.now() - started };
    };
    const [during, ...attempts] = await Promise.all([
      timedCheck(),
      asAttacker('POST', '/api/v1/global_suppressions.json', { email: 'customer@example.com' }),
      asAttacker('POST', '/api/v1/global_suppressions/bulk.json', { emails: ['customer@example.com'] }),
      asAttacker('GET', '/api/v1/global_suppressions.json?email=example'),
      asAttacker('DELETE', '/api/v1/global_suppressions.json', { email: 'kept@example.com' }),
      asAttacker('DELETE', '/api/v1/global_suppressions/bulk.json', { emails: ['kept@example.com', 'b-own@example.com'] }),
    ]);
    expect(during.ms).toBeLessThan(1_000);
    expect(during.check.body).toMatchObject({ suppressed: true, scope: 'channel' });

    // B's email still reaches the address A tried to suppress for every channel.
    const broadcast = await h.broadcast({ subject: 'News', body: 'News' });
    expect(broadcast.status).toBe('sent');
    expect(h.received('customer@example.com')).toHaveLength(1);
    const transactional = await h.sendTransactional({ to: 'customer@example.com', subject: 'Receipt', body: 'Thanks' });
    expect(transactional.status).toBe(201);
    expect((await h.transactionalOutcome(transactional.body.id)).status).toBe('sent');
    expect(h.received('customer@example.com')).toHaveLength(2);

    // The installation's entries B relies on, and B's own, survive A's deletes.
    expect((await h.request('GET', '/api/v1/suppressions/check.json?email=customer@example.com')).body).toEqual({
      email: 'customer@example.com',
      suppressed: false,
      scope: null,
      reason: null,
    });
    expect((await h.request('GET', '/api/v1/suppressions/check.json?email=kept@example.com')).body.scope).toBe('global');
    expect((await h.request('GET', '/api/v1/suppressions/check.json?email=b-own@example.com')).body.scope).toBe('channel');
    expect(attempts).toEqual(attempts.map(() => ({ status: 403, body: FORBIDDEN })));
  }, 60_000);
});

import { RecordBounce } from '@mailcast/core';
import { eventually } from '@mailcast/testkit';
import { useSendingHarness } from '../test-support/sending-harness';

/**
 * The reputation guard (docs/reputation-guard.md) with one dispatcher, a real SMTP server that
 * refuses (550) the addresses in `bad`, and the api over HTTP: pause on the hard bounce and the
 * complaint limit, min_sent, a disabled guard, resume, and the per-server 24 h limits.
 */
describe('reputation guard', () => {
  const bad = new Set<string>();
  const h = useSendingHarness({
    verdictFor: (to) => (bad.has(to) ? { code: 550, message: 'No such user' } : undefined),
    env: { MAILCAST_SEND_CONCURRENCY: '2' },
  });
  const db = () => h.api.database.db;
  let run = 0;

  /** `count` subscribers of the harness channel; those whose index `isBad` says are refused. */
  const audience = async (count: number, isBad: (i: number) => boolean) => {
    const tag = `r${++run}`;
    const emails = Array.from({ length: count }, (_, i) => `${tag}-${i}@guard.example.test`);
    emails.forEach((e, i) => isBad(i) && bad.add(e));
    // Earlier runs' subscribers leave the audience: each test sends to its own.
    await db()('subscribers').where({ channel_id: h.channelId }).update({ is_active: false });
    await db()('subscribers').insert(emails.map((email) => ({ channel_id: h.channelId, email, is_active: true })));
    return tag;
  };
  const settings = async (guard: Record<string, unknown>) => {
    const res = await h.request('PATCH', '/api/v1/channel/settings', { reputation_guard: guard });
    expect(res.status).toBe(200);
  };
  const start = async (subject: string) => {
    const created = await h.request('POST', '/api/v1/broadcasts', { broadcast: { subject, body: 'Hello' } });
    const id = created.body.id as number;
    expect((await h.request('POST', `/api/v1/broadcasts/${id}/send_broadcast`)).status).toBe(200);
    return id;
  };
  const broadcast = async (id: number) => (await h.request('GET', `/api/v1/broadcasts/${id}`)).body;
  const until = (id: number, statuses: string[], ms = 30_000) =>
    eventually(
      async () => {
        const b = await broadcast(id);
        return statuses.includes(b.status) ? b : undefined;
      },
      ms,
      50,
    );
  const pausedEvents = async (id: number) =>
    (await db()('events').where({ type: 'broadcast.paused' }).orderBy('id')).map((e) => e.data).filter((d) => d.broadcast_id === id);
  const server = async () => (await h.request('GET', `/api/v1/email_servers/${h.emailServerId}`)).body;

  afterEach(async () => {
    // Every test judges the server afresh: its history and its switch go back to none and on.
    await db()('email_server_reputation').delete();
    await db()('email_servers').where({ id: h.emailServerId }).update({ active: true, deactivated_reason: null, guard_reset: null, max_per_second: null });
  });

  it('pauses a sending broadcast past the hard bounce rate, with the figures; resume clears the reason and judges what comes after', async () => {
    await settings({ enabled: true, min_sent: 20, max_hard_bounce_rate: 10, max_complaint_rate: 0.1 });
    // Every third refused (33%), so whatever order the recipients go in (their rows are written in
    // four ranges side by side), the first look after min_sent finds the rate over the limit.
    await audience(60, (i) => i % 3 === 0);
    const id = await start('Guarded');
    const paused = await until(id, ['paused', 'sent', 'partial_failure', 'failed']);
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'hard_bounce_rate' });

    const [event, ...more] = await pausedEvents(id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ broadcast_id: id, status: 'paused', reason: 'hard_bounce_rate', limit: 10, complaints: 0, complaint_rate: 0 });
    expect(event.sent).toBeGreaterThanOrEqual(20);
    expect(event.hard_bounces * 100).toBeGreaterThan(10 * event.sent);
    expect(event.hard_bounce_rate).toBe(Math.round((event.hard_bounces * 10_000) / event.sent) / 100);

    // Nothing more goes out until a person resumes it.
    const settledClaims = () =>
      eventually(async () => {
        const claimed = await db()('broadcast_recipients').where({ broadcast_id: id, status: 'claimed' }).count({ n: '*' });
        return Number(claimed[0]!.n) === 0 ? true : undefined;
      }, 10_000);
    await settledClaims();
    const handed = async () =>
      Number((await db()('broadcast_recipients').where({ broadcast_id: id }).whereIn('status', ['sent', 'bounced']).count({ n: '*' }))[0]!.n);
    const atPause = await handed();
    expect(atPause).toBeLessThan(60);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await handed()).toBe(atPause);
    expect((await broadcast(id)).status).toBe('paused');

    // The server crossed the same limits over its last 24 h: out of rotation; a person switches it on.
    expect(await server()).toMatchObject({ active: false, deactivated_reason: 'hard_bounce_rate' });
    const on = await h.request('PATCH', `/api/v1/email_servers/${h.emailServerId}`, { active: true });
    expect(on.body).toMatchObject({ active: true, deactivated_reason: null });

    // From now on the server accepts everyone: what goes after the resume bounces no more.
    bad.clear();
    const resumed = await h.request('POST', `/api/v1/broadcasts/${id}/resume_broadcast`);
    expect(resumed.body).toMatchObject({ status: 'sending' });
    expect((await broadcast(id)).pause_reason).toBeNull();
    // Judged on what came after the pause (all accepted), it goes to the end.
    const done = await until(id, ['sent', 'partial_failure', 'failed', 'paused']);
    expect(done).toMatchObject({ status: 'partial_failure', pause_reason: null });
    expect(await pausedEvents(id)).toHaveLength(1);
    expect(await server()).toMatchObject({ active: true, deactivated_reason: null });
  }, 90_000);

  it('judges nothing before min_sent', async () => {
    await settings({ enabled: true, min_sent: 1000, max_hard_bounce_rate: 5 });
    await audience(60, (i) => i % 2 === 0);
    const id = await start('Too few to judge');
    expect(await until(id, ['sent', 'partial_failure', 'failed', 'paused'])).toMatchObject({ status: 'partial_failure', pause_reason: null });
    expect(await pausedEvents(id)).toEqual([]);
    expect(await server()).toMatchObject({ active: true });
  }, 60_000);

  it('does nothing when disabled', async () => {
    await settings({ enabled: false, min_sent: 1, max_hard_bounce_rate: 1 });
    await audience(60, (i) => i % 2 === 0);
    const id = await start('Unguarded');
    expect(await until(id, ['sent', 'partial_failure', 'failed', 'paused'])).toMatchObject({ status: 'partial_failure', pause_reason: null });
    expect(await pausedEvents(id)).toEqual([]);
    expect(await server()).toMatchObject({ active: true, deactivated_reason: null });
  }, 60_000);

  it('pauses past the complaint rate when complaints arrive while it sends', async () => {
    await settings({ enabled: true, min_sent: 10, max_hard_bounce_rate: 5, max_complaint_rate: 5 });
    // Slow enough to still be sending when the complaints come: 5 a second.
    await db()('email_servers').where({ id: h.emailServerId }).update({ max_per_second: 5 });
    await audience(150, () => false);
    const id = await start('Complained about');
    const sent = async () => db()('broadcast_recipients').where({ broadcast_id: id, status: 'sent' }).orderBy('id');
    const first = await eventually(async () => {
      const rows = await sent();
      return rows.length >= 20 ? rows : undefined;
    }, 30_000);
    const record = (messageId: string) => h.dispatcher.resolve(RecordBounce).execute({ source: 'dsn', kind: 'complaint', messageId, reason: 'abuse' });
    // One complaint of 20 or more: 5% at most, not past the limit.
    expect(await record(first[0]!.message_id)).toBe('recorded');
    expect((await broadcast(id)).status).toBe('sending');
    // Two or three of fewer than 40 (sending goes on at 5 a second): past it.
    expect(await record(first[1]!.message_id)).toBe('recorded');
    expect(await record(first[2]!.message_id)).toBe('recorded');
    const paused = await until(id, ['paused', 'sent'], 10_000);
    expect(paused).toMatchObject({ status: 'paused', pause_reason: 'complaint_rate' });
    const [event, ...more] = await pausedEvents(id);
    expect(more).toEqual([]);
    expect(event).toMatchObject({ reason: 'complaint_rate', hard_bounces: 0, limit: 5 });
    expect([2, 3]).toContain(event.complaints);
    expect(event.complaints * 100).toBeGreaterThan(5 * event.sent);
    expect(event.complaint_rate).toBe(Math.round((event.complaints * 10_000) / event.sent) / 100);
    // The complaints counted against the server that sent those emails too.
    const counted = await db()('email_server_reputation').where({ email_server_id: h.emailServerId }).sum({ complaints: 'complaints' });
    expect(Number(counted[0]!.complaints)).toBe(3);
    await h.request('POST', `/api/v1/broadcasts/${id}/abort_broadcast`);
  }, 60_000);

  it("takes a server out of rotation on its own last 24 h, while the broadcast's own figures are under min_sent", async () => {
    await settings({ enabled: true, min_sent: 500, max_hard_bounce_rate: 5 });
    // The server's earlier hours today: 1,000 sent, 48 hard bounces (4.8%).
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    hourAgo.setUTCMinutes(0, 0, 0);
    await db()('email_server_reputation').insert({ email_server_id: h.emailServerId, hour: hourAgo, shard: 0, sent: 1000, hard_bounces: 48, complaints: 0 });
    await audience(60, (i) => i % 6 === 0);
    const id = await start('Through a tired server');
    // With its only server gone, the broadcast pauses with the server's reason rather than failing the rest.
    expect(await until(id, ['paused', 'sent', 'partial_failure', 'failed'])).toMatchObject({ status: 'paused', pause_reason: 'hard_bounce_rate' });
    expect(await server()).toMatchObject({ active: false, deactivated_reason: 'hard_bounce_rate' });
    const [event] = await pausedEvents(id);
    expect(event).toMatchObject({ reason: 'hard_bounce_rate', limit: 5 });
    expect(event.sent).toBeGreaterThan(1000);
    await h.request('POST', `/api/v1/broadcasts/${id}/abort_broadcast`);
  }, 60_000);
});

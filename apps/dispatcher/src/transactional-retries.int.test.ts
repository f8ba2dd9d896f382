import { freePort } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

/** A temporary failure (4xx, or no connection) is retried on a bounded schedule (docs/transactionals.md). */
describe('transactional retries (HTTP, dispatcher workers, real SMTP)', () => {
  const deferrals = new Map<string, number>();
  const h = useSendingHarness({
    // Two retries, 100 ms and 200 ms after the first and second attempts.
    env: { MAILCAST_SEND_RETRY_SCHEDULE: '100ms,200ms' },
    verdictFor: (to) => {
      const left = deferrals.get(to) ?? 0;
      if (left === 0) return undefined;
      deferrals.set(to, left - 1);
      return { code: 451, message: '4.7.1 Try again later' };
    },
  });

  const send = (body: Record<string, unknown>) => h.sendTransactional(body);
  const settled = (id: number) => h.transactionalOutcome(id, 15_000);
  const eventTypes = async (id: number) =>
    (await h.api.database.db('events').where({ channel_id: h.channelId }).orderBy('id'))
      .filter((e: { data: { transactional_id?: number } }) => e.data.transactional_id === id)
      .map((e: { type: string }) => e.type);

  it('a 4xx answer is retried until accepted, once delivered, with the same Message-ID', async () => {
    deferrals.set('later@example.com', 2);
    const res = await send({ to: 'later@example.com', subject: 'Receipt', body: 'Thanks' });
    expect(res.status).toBe(201);
    const done = await settled(res.body.id);
    expect(done).toMatchObject({ status: 'sent', error: null });
    const received = h.received('later@example.com');
    expect(received).toHaveLength(1);
    expect(received[0]!.raw.toString()).toContain(done.message_id);
    expect(await eventTypes(res.body.id)).toEqual([
      'email.sent',
      'email.delivery_delayed',
      'email.sent',
      'email.delivery_delayed',
      'email.sent',
      'email.delivered',
    ]);
    const row = await h.api.database.db('transactionals').where({ id: res.body.id }).first();
    expect(row.attempts).toBe(3);
  });

  it('gives up after the schedule: an unreachable server is tried three times, then failed', async () => {
    const closed = await h.api.fixtures.aCaptureServer(h.channelId, await freePort(), { fromEmail: 'news@example.com', fromName: 'Example News' });
    const res = await send({ to: 'nowhere@example.com', subject: 'S', body: 'B', email_server_id: closed.id });
    const done = await settled(res.body.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/ECONNREFUSED|connect/i);
    expect(await eventTypes(res.body.id)).toEqual(['email.delivery_delayed', 'email.delivery_delayed', 'email.failed']);
    const row = await h.api.database.db('transactionals').where({ id: res.body.id }).first();
    expect(row.attempts).toBe(3);
    // Nothing more is scheduled: the count stays.
    const jobs = await h.api.database.db.raw(
      `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'transactionals.send' AND data->>'transactionalId' = ? AND state IN ('created', 'retry')`,
      [String(res.body.id)],
    );
    expect(jobs.rows[0].n).toBe(0);
  });
});

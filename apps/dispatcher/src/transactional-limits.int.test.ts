import { busiestWindow, eventually } from '@mailcast/testkit';
import { useSendingHarness } from './test-support/sending-harness';

/** An email server's sending limits hold for transactionals too (docs/transactionals.md, docs/sending-limits.md). */
describe("transactionals under an email server's sending limits (HTTP, dispatcher workers, real SMTP)", () => {
  const h = useSendingHarness();

  it('never sends more than the per-second limit, and sends each transactional once', async () => {
    const limited = await h.api.fixtures.aCaptureServer(h.channelId, h.smtp.port, { fromEmail: 'news@example.com', maxPerSecond: 2 });
    const to = Array.from({ length: 6 }, (_, i) => `burst${i}@example.com`);
    const created = await Promise.all(to.map((address) => h.sendTransactional({ to: address, subject: 'Code', body: 'Yours', email_server_id: limited.id })));
    expect(created.map((res) => res.status)).toEqual(to.map(() => 201));
    for (const res of created) expect(await h.transactionalOutcome(res.body.id, 20_000)).toMatchObject({ status: 'sent' });
    const received = to.flatMap((address) => h.received(address));
    expect(received.map((m) => m.to[0]).sort()).toEqual([...to].sort());
    expect(
      busiestWindow(
        received.map((m) => m.receivedAt.getTime()).sort((a, b) => a - b),
        1000,
      ),
    ).toBeLessThanOrEqual(2);
  }, 60_000);

  it('goes back to the queue when the daily limit is used up: no event, no try used, the next job at the slot', async () => {
    const daily = await h.api.fixtures.aCaptureServer(h.channelId, h.smtp.port, { fromEmail: 'news@example.com', maxPerDay: 1 });
    const first = await h.sendTransactional({ to: 'today@example.com', subject: 'S', body: 'B', email_server_id: daily.id });
    expect(await h.transactionalOutcome(first.body.id, 15_000)).toMatchObject({ status: 'sent' });
    const second = await h.sendTransactional({ to: 'tomorrow@example.com', subject: 'S', body: 'B', email_server_id: daily.id });
    const db = h.api.database.db;
    const job = await eventually(
      async () => {
        const { rows } = await db.raw(
          `SELECT data, start_after FROM pgboss.job WHERE name = 'transactionals.send' AND data->>'transactionalId' = ? AND (data->>'deferrals') IS NOT NULL`,
          [String(second.body.id)],
        );
        return rows[0] as { data: { attempt: number; deferrals: number }; start_after: Date } | undefined;
      },
      15_000,
      50,
    );
    expect(job.data).toMatchObject({ attempt: 2, deferrals: 1 });
    // The next slot of a one-a-day server is about a day away.
    expect(job.start_after.getTime()).toBeGreaterThan(Date.now() + 23 * 3_600_000);
    const row = await db('transactionals').where({ id: second.body.id }).first();
    expect(row).toMatchObject({ status: 'queued', error: 'Sending limit of the email server reached' });
    expect(h.received('tomorrow@example.com')).toEqual([]);
    const events = (await db('events').where({ channel_id: h.channelId })).filter(
      (e: { data: { transactional_id?: number } }) => e.data.transactional_id === second.body.id,
    );
    expect(events).toEqual([]);
  }, 60_000);
});

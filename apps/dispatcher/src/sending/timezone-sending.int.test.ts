import { DeliverBroadcast, GetBroadcastStatistics, ScheduleBroadcast, StartDueBroadcast, SweepDueBroadcasts } from '@mailcast/core';
import { PERMISSIONS } from '@mailcast/domain';
import { testClock } from '@mailcast/testkit';
import { useClockedSending } from '../test-support/clocked-sending';

/**
 * docs/broadcasts-and-sending.md, "Send in each subscriber's time zone": a broadcast scheduled for
 * 02:30 (Europe/London) on 2026-03-29, the night both London and Berlin move their clocks forward,
 * goes to each subscriber at 02:30 on their own clock. The clock port moves; nothing waits hours.
 */
describe('sending in each subscriber’s time zone, across a daylight-saving change', () => {
  const time = testClock(Date.parse('2026-03-28T10:00:00Z'));
  const setClock = (iso: string) => time.advance(Date.parse(iso) - time.current());

  const env = useClockedSending(time);

  // 02:30 on the subscriber's wall clock, 2026-03-29 (London's and Berlin's clocks go forward at 01:00Z).
  const EXPECTED: Record<string, { tz: unknown; at: string }> = {
    sydney: { tz: 'Australia/Sydney', at: '2026-03-28T15:30:00.000Z' }, // AEDT, UTC+11
    tokyo: { tz: 'Asia/Tokyo', at: '2026-03-28T17:30:00.000Z' }, // JST, UTC+9
    berlin: { tz: 'Europe/Berlin', at: '2026-03-29T01:30:00.000Z' }, // 02:30 never happens: 03:30 CEST
    london: { tz: 'Europe/London', at: '2026-03-29T01:30:00.000Z' }, // 02:30 BST
    none: { tz: undefined, at: '2026-03-29T01:30:00.000Z' }, // scheduled_timezone
    invalid: { tz: 'Nowhere/Else', at: '2026-03-29T01:30:00.000Z' }, // scheduled_timezone
    newyork: { tz: 'America/New_York', at: '2026-03-29T06:30:00.000Z' }, // EDT since 2026-03-08, UTC−4
  };

  /** Each recipient's sent_at, by the local part of their address. */
  async function sentAt(broadcastId: number): Promise<Record<string, string | null>> {
    const rows = await env.database
      .db('broadcast_recipients as r')
      .join('subscribers as s', 's.id', 'r.subscriber_id')
      .where({ 'r.broadcast_id': broadcastId })
      .select('s.email', 'r.sent_at');
    return Object.fromEntries(rows.map((r: { email: string; sent_at: Date | null }) => [r.email.split('@')[0], r.sent_at?.toISOString() ?? null]));
  }

  /** When the broadcast's pending send jobs are to start (pg-boss's start_after). */
  async function sendJobsAfter(broadcastId: number, since: Date): Promise<string[]> {
    const { rows } = await env.database.db.raw<{ rows: Array<{ start_after: Date }> }>(
      `SELECT start_after FROM pgboss.job WHERE name = 'broadcasts.send' AND state = 'created' AND (data->>'broadcastId')::bigint = ? AND created_on >= ?`,
      [broadcastId, since],
    );
    return rows.map((r) => r.start_after.toISOString()).sort();
  }

  it('sends each recipient at 02:30 on their own clock, in groups by instant, and finishes as one broadcast', async () => {
    const channel = await env.fixtures.aChannel({ fromEmail: 'news@example.test' });
    await env.fixtures.aCaptureServer(channel.id, env.smtp.port);
    await env.fixtures.aToken(channel.id);
    const tokenRow = await env.database.db('api_tokens').where({ channel_id: channel.id }).first('id');
    for (const [name, { tz }] of Object.entries(EXPECTED)) {
      await env.fixtures.aSubscriber(channel.id, `${name}@example.test`, { customData: tz === undefined ? {} : { timezone: tz } });
    }
    const b = await env.fixtures.aBroadcast(channel.id, { subject: 'Good morning', body: 'Hello' });
    const caller = { tokenId: Number(tokenRow.id), channelId: channel.id, permissions: PERMISSIONS };
    const answer = await env.container.resolve(ScheduleBroadcast).execute(caller, {
      id: b.id,
      scheduledSendAt: '2026-03-29T02:30:00',
      scheduledTimezone: 'Europe/London',
      sendInSubscriberTimezone: true,
    });
    expect(answer.scheduled_send_at).toBe('2026-03-29T01:30:00.000Z');

    // The due job waits for the window's start, 02:30 at UTC+14 (12:30Z the day before).
    const due = await env.database.db.raw<{ rows: Array<{ start_after: Date }> }>(
      `SELECT start_after FROM pgboss.job WHERE name = 'broadcasts.due' AND (data->>'broadcastId')::bigint = ?`,
      [b.id],
    );
    expect(due.rows.map((r) => r.start_after.toISOString())).toEqual(['2026-03-28T12:30:00.000Z']);
    const version = (await env.database.db('broadcasts').where({ id: b.id }).first('version')).version as number;
    setClock('2026-03-28T12:29:59Z');
    expect(await env.container.resolve(StartDueBroadcast).execute({ broadcastId: b.id, version })).toBe('not_due');
    expect(await env.container.resolve(SweepDueBroadcasts).execute()).not.toContain(b.id);
    setClock('2026-03-28T12:30:00Z');
    expect(await env.container.resolve(SweepDueBroadcasts).execute()).toContain(b.id);
    expect((await env.database.db('broadcasts').where({ id: b.id }).first('status')).status).toBe('scheduled');

    // Queued at the window's start: everyone waits for their instant; one job per next instant.
    const deliver = () => env.container.resolve(DeliverBroadcast).execute({ broadcastId: b.id });
    const instants = [...new Set(Object.values(EXPECTED).map((e) => e.at))].sort();
    expect(instants).toEqual(['2026-03-28T15:30:00.000Z', '2026-03-28T17:30:00.000Z', '2026-03-29T01:30:00.000Z', '2026-03-29T06:30:00.000Z']);
    let since = new Date();
    expect(await deliver()).toBe('waiting');
    expect(Object.values(await sentAt(b.id))).toEqual(Object.values(EXPECTED).map(() => null));
    expect(await sendJobsAfter(b.id, since)).toEqual([instants[0]]);

    for (const [i, instant] of instants.entries()) {
      // A second before the instant, nobody of the group is sent.
      setClock(new Date(Date.parse(instant) - 1000).toISOString());
      expect(await deliver()).toBe('waiting');
      const before = await sentAt(b.id);
      for (const [name, e] of Object.entries(EXPECTED)) expect([name, before[name]]).toEqual([name, e.at < instant ? e.at : null]);

      setClock(instant);
      since = new Date();
      const last = i === instants.length - 1;
      expect(await deliver()).toBe(last ? 'finished' : 'waiting');
      const after = await sentAt(b.id);
      for (const [name, e] of Object.entries(EXPECTED)) expect([name, after[name]]).toEqual([name, e.at <= instant ? e.at : null]);
      if (!last) expect(await sendJobsAfter(b.id, since)).toEqual([instants[i + 1]]);
    }

    // One broadcast: sent once to each, one final status, the statistics over all of them.
    const mine = env.smtp.messages.filter((m) => m.to[0]?.endsWith('@example.test') && Object.keys(EXPECTED).includes(m.to[0].split('@')[0]!));
    expect(mine.map((m) => m.to[0]).sort()).toEqual(
      Object.keys(EXPECTED)
        .map((n) => `${n}@example.test`)
        .sort(),
    );
    const row = await env.database.db('broadcasts').where({ id: b.id }).first('status', 'sent_at', 'total_recipients', 'broadcast_recipients_count');
    expect(row).toEqual({ status: 'sent', sent_at: new Date('2026-03-29T06:30:00Z'), total_recipients: 7, broadcast_recipients_count: 7 });
    const finals = await env.database
      .db('events')
      .where({ channel_id: channel.id })
      .whereIn('type', ['broadcast.sent', 'broadcast.sending'])
      .orderBy('id')
      .pluck('type');
    expect(finals).toEqual(['broadcast.sending', 'broadcast.sent']);
    const { summary } = await env.container.resolve(GetBroadcastStatistics).execute(caller, { id: b.id });
    expect(summary.delivery).toEqual({ sent: 7, failed: 0, delivery_rate: 100 });
  });
});

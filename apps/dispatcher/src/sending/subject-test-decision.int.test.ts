import { DecideSubjectTest, DeliverBroadcast, GetBroadcastStatistics } from '@mailcast/core';
import { PERMISSIONS } from '@mailcast/domain';
import { parseEmail } from '@mailcast/devkit';
import { testClock } from '@mailcast/testkit';
import { useClockedSending } from '../test-support/clocked-sending';

/**
 * docs/subject-tests.md, driven through the use cases with the clock port: the decision waits for
 * wait_minutes, a tie goes to the first subject, and the statistics show the figures and the winner.
 */
describe('a subject test’s decision', () => {
  const time = testClock(Date.parse('2026-12-04T10:00:00Z'));

  const env = useClockedSending(time);

  it('waits for wait_minutes by the clock, gives a tie to the first subject, and reports before and after', async () => {
    const channel = await env.fixtures.aChannel({ fromEmail: 'news@example.test' });
    await env.fixtures.aCaptureServer(channel.id, env.smtp.port);
    const everyone = Array.from({ length: 30 }, (_, i) => `t${i}@c${channel.id}.example.test`);
    await env.database.db('subscribers').insert(everyone.map((email) => ({ channel_id: channel.id, email, is_active: true })));
    const b = await env.fixtures.aBroadcast(channel.id, { subject: 'Base', body: 'Hello' });
    const test = { subjects: ['One', 'Two', 'Three'], sample_percent: 30, metric: 'human_clicks', wait_minutes: 30 };
    await env.database
      .db('broadcasts')
      .where({ id: b.id })
      .update({ status: 'scheduled', version: 1, ab_test: JSON.stringify(test) });
    const caller = { tokenId: 0, channelId: channel.id, permissions: PERMISSIONS };
    const stats = async () => (await env.container.resolve(GetBroadcastStatistics).execute(caller, { id: b.id })).abTest;
    const decide = () => env.container.resolve(DecideSubjectTest).execute({ broadcastId: b.id });
    const deliver = () => env.container.resolve(DeliverBroadcast).execute({ broadcastId: b.id });

    // The sample (30% of 30: three per subject) goes; the rest waits, and the broadcast is not done.
    expect(await deliver()).toBe('waiting');
    expect(await deliver()).toBe('waiting');
    expect((await env.database.db('broadcasts').where({ id: b.id }).first('status')).status).toBe('sending');
    expect(await stats()).toEqual({
      metric: 'human_clicks',
      variants: test.subjects.map((subject) => ({ subject, sent: 3, human_opens: 0, human_clicks: 0 })),
      winner: null,
      decided_at: null,
    });

    // Early by our clock: not decided, the job waits again (one waiting job for the broadcast).
    time.advance(29 * 60_000);
    expect(await decide()).toBe('not_due');
    const waiting = await env.database.db.raw(
      `SELECT count(*) AS n FROM pgboss.job WHERE name = 'broadcasts.ab_decide' AND state = 'created' AND (data->>'broadcastId')::bigint = ?`,
      [b.id],
    );
    expect(Number(waiting.rows[0].n)).toBe(1);
    expect((await env.database.db('broadcasts').where({ id: b.id }).first('ab_decided_at')).ab_decided_at).toBeNull();

    // Due: nobody clicked, a tie of three, so the first subject wins; once.
    time.advance(60_000);
    expect(await decide()).toBe('decided');
    expect(await decide()).toBe('already_decided');
    const decidedAt = new Date(time.current()).toISOString();
    expect(await deliver()).toBe('finished');
    const report = await stats();
    expect(report).toMatchObject({ winner: { index: 0, subject: 'One' }, decided_at: decidedAt });
    expect(report!.variants.map((v) => v.sent)).toEqual([3, 3, 3]);

    const mine = await Promise.all(
      env.smtp.messages.filter((m) => everyone.includes(m.to[0]!)).map(async (m) => ({ to: m.to[0]!, ...(await parseEmail(m.raw)) })),
    );
    expect(mine.map((m) => m.to).sort()).toEqual([...everyone].sort());
    const counts = mine.reduce<Record<string, number>>((acc, m) => ({ ...acc, [m.subject!]: (acc[m.subject!] ?? 0) + 1 }), {});
    expect(counts).toEqual({ One: 3 + 21, Two: 3, Three: 3 });
    const events = await env.database.db('events').where({ channel_id: channel.id, type: 'broadcast.ab_test_decided' });
    expect(events).toHaveLength(1);
    expect((await env.database.db('broadcasts').where({ id: b.id }).first('status')).status).toBe('sent');
  });
});

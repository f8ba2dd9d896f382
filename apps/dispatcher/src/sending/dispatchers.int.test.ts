import { createBoss } from '@mailcast/adapters';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, createTestDatabase, dispatcherProcesses, eventually, Fixtures, type Spawned, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';

/**
 * Real dispatcher processes against one database and one SMTP server: they share a broadcast
 * without sending anyone twice, and a dispatcher killed mid-send loses nothing.
 */
describe('dispatcher processes sending one broadcast', () => {
  let database: TestDatabase;
  let boss: PgBoss;
  let fixtures: Fixtures;
  let smtp: SmtpCapture;
  const dispatchers = dispatcherProcesses();

  // docs/broadcasts-and-sending.md: at most the dispatcher's SMTP concurrency may be resent after a crash.
  const CONCURRENCY = 10;

  beforeAll(async () => {
    database = await createTestDatabase();
    boss = createBoss(database.url, 'api');
    await boss.start();
    fixtures = new Fixtures(database.db, boss);
    // A slow server, so that the broadcast lasts long enough to share and to kill mid-send.
    smtp = await startSmtpCapture({ onMessage: answeringAfter(15) });
  });
  afterAll(async () => {
    await smtp.close();
    await boss.stop({ graceful: false, close: true, wait: true });
    await database.drop();
  });

  function dispatcher(): Spawned {
    return dispatchers.start(database.url, {
      MAILCAST_SEND_LEASE_MS: '1500',
      MAILCAST_SEND_SWEEP_MS: '500',
      MAILCAST_SEND_CONCURRENCY: String(CONCURRENCY),
    });
  }

  async function aBroadcastTo(active: number, inactive: number): Promise<{ id: number; expected: string[] }> {
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    const email = (i: number) => `p${i}@c${channel.id}.example.test`;
    await database.db('subscribers').insert(
      Array.from({ length: active + inactive }, (_, i) => ({
        channel_id: channel.id,
        email: email(i),
        first_name: `P${i}`,
        is_active: i < active,
      })),
    );
    const b = await fixtures.aBroadcast(channel.id, { subject: 'For {{ subscriber.first_name }}' });
    await database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled', version: 1 });
    return { id: b.id, expected: Array.from({ length: active }, (_, i) => email(i)).sort() };
  }

  const finalStatus = (id: number) =>
    eventually(
      async () => {
        const b = await database.db('broadcasts').where({ id }).first();
        return ['sent', 'partial_failure', 'failed'].includes(b.status) ? b : undefined;
      },
      60_000,
      200,
    );

  async function received(expected: string[]) {
    const wanted = new Set(expected);
    const mine = smtp.messages.filter((m) => wanted.has(m.to[0]!));
    return Promise.all(mine.map(async (m) => ({ to: m.to[0]!, ...(await parseEmail(m.raw)) })));
  }

  it('two dispatchers share a broadcast and send each recipient exactly once', async () => {
    dispatcher();
    dispatcher();
    const { id, expected } = await aBroadcastTo(400, 25);
    await boss.send('broadcasts.send', { broadcastId: id }, { retryLimit: 0 });

    const b = await finalStatus(id);
    expect(b).toMatchObject({ status: 'sent', total_recipients: 400, broadcast_recipients_count: 400 });
    const messages = await received(expected);
    expect(messages.map((m) => m.to).sort()).toEqual(expected);
    expect(messages[0]!.subject).toMatch(/^For P\d+$/);
    // Both processes sent a share (claimed_by is host:pid:slice).
    const workers = await database.db('broadcast_recipients').where({ broadcast_id: id }).pluck('claimed_by');
    const processes = new Set(workers.map((w: string) => w.split(':').slice(0, 2).join(':')));
    expect(processes.size).toBe(2);
  }, 90_000);

  it('a dispatcher killed mid-send is replaced: nothing lost, only in-flight mail resent, with its Message-ID', async () => {
    const first = dispatcher();
    const { id, expected } = await aBroadcastTo(300, 0);
    await boss.send('broadcasts.send', { broadcastId: id }, { retryLimit: 0 });
    const wanted = new Set(expected);
    await eventually(async () => (smtp.messages.filter((m) => wanted.has(m.to[0]!)).length >= 80 ? true : undefined), 30_000, 20);
    first.child.kill('SIGKILL');
    await first.exited;
    const atKill = (await database.db('broadcast_recipients').where({ broadcast_id: id, status: 'sent' }).count({ n: '*' }))[0]!.n;
    expect(Number(atKill)).toBeLessThan(300);

    dispatcher();
    const b = await finalStatus(id);
    expect(b).toMatchObject({ status: 'sent', total_recipients: 300, broadcast_recipients_count: 300 });

    const messages = await received(expected);
    const byRecipient = new Map<string, string[]>();
    for (const m of messages) byRecipient.set(m.to, [...(byRecipient.get(m.to) ?? []), m.messageId!]);
    // Nothing lost.
    expect([...byRecipient.keys()].sort()).toEqual(expected);
    // Resent only what was in flight, and a copy carries the original Message-ID.
    const resent = [...byRecipient.values()].filter((ids) => ids.length > 1);
    expect(messages.length - expected.length).toBeLessThanOrEqual(CONCURRENCY);
    for (const ids of resent) expect(new Set(ids).size).toBe(1);
    expect(new Set(messages.map((m) => m.messageId)).size).toBe(300);
  }, 90_000);

  it('a dispatcher stopped with SIGTERM mid-send exits promptly, hands its work back, and nothing is sent twice', async () => {
    const first = dispatcher();
    const { id, expected } = await aBroadcastTo(300, 0);
    await boss.send('broadcasts.send', { broadcastId: id }, { retryLimit: 0 });
    const wanted = new Set(expected);
    await eventually(async () => (smtp.messages.filter((m) => wanted.has(m.to[0]!)).length >= 60 ? true : undefined), 30_000, 20);
    const stoppedAt = Date.now();
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(Date.now() - stoppedAt).toBeLessThan(15_000);

    // Nothing is left claimed: what it had not sent went back for another dispatcher.
    const rows = await database.db('broadcast_recipients').where({ broadcast_id: id }).select('status');
    const counts = rows.reduce<Record<string, number>>((acc, r: { status: string }) => ({ ...acc, [r.status]: (acc[r.status] ?? 0) + 1 }), {});
    expect(counts.claimed ?? 0).toBe(0);
    expect(counts.sent).toBeLessThan(300);
    const sentAtStop = counts.sent!;
    expect(smtp.messages.filter((m) => wanted.has(m.to[0]!))).toHaveLength(sentAtStop);

    dispatcher();
    expect(await finalStatus(id)).toMatchObject({ status: 'sent', broadcast_recipients_count: 300 });
    // A graceful stop resends nothing at all: exactly one message per recipient.
    const messages = await received(expected);
    expect(messages.map((m) => m.to).sort()).toEqual(expected);
  }, 90_000);
});

import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, dispatcherProcesses, eventually, Fixtures, type Spawned } from '@mailcast/testkit';
import { RestartableDatabase } from '../test-support/private-cluster';

/**
 * PostgreSQL stopped while two dispatcher processes send one broadcast, for less than the send
 * lease (60 s by default, kept here): every recipient gets the email exactly once. The
 * dispatchers keep the outcomes of what the SMTP server accepted in memory, write them once
 * the database is back, and keep their claims meanwhile (docs/sending-reliability.md). Past
 * the lease, what was in flight may go twice, never more than that and never with a new Message-ID.
 */
describe('PostgreSQL outages mid-send and the send lease, two dispatchers', () => {
  const RECIPIENTS = 1_000;
  const pg = new RestartableDatabase();
  let smtp: SmtpCapture;
  const dispatchers = dispatcherProcesses();

  beforeAll(async () => {
    await pg.start();
    // A slow server, so that the broadcast is mid-send when the database goes away.
    smtp = await startSmtpCapture({ onMessage: answeringAfter(20) });
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    await pg.close();
  }, 60_000);

  const dispatcher = (env: Record<string, string> = {}): Spawned =>
    dispatchers.start(pg.url, { ...env, MAILCAST_SMTP_CONNECTIONS: '4', MAILCAST_SEND_SWEEP_MS: '500' });
  const output = () => dispatchers.output();
  const step = <T>(name: string, work: Promise<T>): Promise<T> =>
    work.catch(async (error: Error) => {
      const state = pg.db
        ? await pg.db.raw(`SELECT status, claimed_by, lease_expires_at > now() AS live, count(*)::int AS n FROM broadcast_recipients GROUP BY 1, 2, 3`).then(
            (r) => JSON.stringify(r.rows),
            () => 'unknown',
          )
        : '';
      const jobs = pg.db
        ? await pg.db.raw(`SELECT name, state, count(*)::int AS n FROM pgboss.job GROUP BY 1, 2`).then(
            (r) => JSON.stringify(r.rows),
            () => 'unknown',
          )
        : '';
      throw new Error(`${name}: ${error.message} smtp ${smtp.messages.length}\nrecipients ${state}\njobs ${jobs}\n${output()}`);
    });

  /** A broadcast of RECIPIENTS, sent by two dispatchers, with PostgreSQL stopped mid-send. */
  const sendThroughOutage = async (outageMs: number, env: Record<string, string> = {}) => {
    const fixtures = new Fixtures(pg.db, pg.boss);
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    const email = (i: number) => `p${i}@c${channel.id}.example.test`;
    await pg.db('subscribers').insert(Array.from({ length: RECIPIENTS }, (_, i) => ({ channel_id: channel.id, email: email(i), is_active: true })));
    const expected = Array.from({ length: RECIPIENTS }, (_, i) => email(i)).sort();
    const b = await fixtures.aBroadcast(channel.id, { subject: 'Outage' });
    await pg.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled', version: 1 });
    const mine = () => smtp.messages.filter((m) => m.to[0]!.endsWith(`@c${channel.id}.example.test`));

    dispatcher(env);
    dispatcher(env);
    await pg.boss.send('broadcasts.send', { broadcastId: b.id }, { retryLimit: 0 });
    await step(
      'mid-send',
      eventually(async () => (mine().length >= 150 ? true : undefined), 30_000, 10),
    );
    const { restartedAt } = await pg.outage(outageMs);
    const receivedWhileDown = mine().length;
    expect(receivedWhileDown).toBeLessThan(RECIPIENTS);

    const done = await step(
      'broadcast finished',
      eventually(
        async () => {
          const row = await pg
            .db('broadcasts')
            .where({ id: b.id })
            .first()
            .catch(() => undefined);
          return row && ['sent', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
        },
        40_000,
        100,
      ),
    );
    const recoverySeconds = (Date.now() - restartedAt) / 1000;
    for (const d of dispatchers.running) expect(d.child.exitCode).toBeNull();
    expect(done).toMatchObject({ status: 'sent', total_recipients: RECIPIENTS });

    const parsed = await Promise.all(mine().map(async (m) => ({ to: m.to[0]!, id: (await parseEmail(m.raw)).messageId })));
    const duplicates = parsed.length - new Set(parsed.map((m) => m.to)).size;
    const losses = expected.filter((e) => !parsed.some((m) => m.to === e)).length;
    // The figures of the run, for the record (docs/sending-reliability.md).
    process.stdout.write(
      `outage ${outageMs} ms: ${parsed.length} received, ${duplicates} duplicates, ${losses} lost, finished ${recoverySeconds.toFixed(1)} s after the restart\n`,
    );
    expect([...new Set(parsed.map((m) => m.to))].sort()).toEqual(expected);
    return { channelId: channel.id, broadcastId: b.id, parsed, duplicates, losses };
  };

  it.each([3_000, 20_000])(
    'PostgreSQL away for %i ms mid-send: every recipient exactly once',
    async (outageMs) => {
      const { channelId, broadcastId, duplicates, losses } = await sendThroughOutage(outageMs);
      expect({ duplicates, losses }).toEqual({ duplicates: 0, losses: 0 });
      const statuses = await pg.db('broadcast_recipients').where({ broadcast_id: broadcastId }).groupBy('status').select('status').count({ n: '*' });
      expect(statuses).toEqual([{ status: 'sent', n: RECIPIENTS }]);
      const delivered = await pg.db('events').where({ channel_id: channelId, type: 'email.delivered' }).count({ n: '*' });
      expect(Number(delivered[0]!.n)).toBe(RECIPIENTS);
    },
    120_000,
  );

  it('PostgreSQL away three times the lease: duplicates within the in-flight window, each with the original Message-ID', async () => {
    // A 4 s lease, so the outage outlasts it; 4 connections × 5 in flight per dispatcher.
    const { parsed, duplicates, losses } = await sendThroughOutage(12_000, { MAILCAST_SEND_LEASE_MS: '4000' });
    expect(losses).toBe(0);
    expect(duplicates).toBeLessThanOrEqual(2 * 5 * 4);
    const idsByRecipient = new Map<string, Set<string | undefined>>();
    for (const m of parsed) idsByRecipient.set(m.to, (idsByRecipient.get(m.to) ?? new Set()).add(m.id));
    expect([...idsByRecipient.values()].filter((ids) => ids.size !== 1)).toEqual([]);
  }, 120_000);
});

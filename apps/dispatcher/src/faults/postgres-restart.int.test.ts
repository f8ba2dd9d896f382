import { createBoss, createDatabase, migrate, type Database } from '@mailcast/adapters';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, dispatcherProcesses, eventually, Fixtures, freePort, type Spawned } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type PgBoss from 'pg-boss';
import { startCluster, type Cluster } from '../test-support/private-cluster';
import { startReceiver } from '../test-support/webhook-harness';

/**
 * PostgreSQL restarted under a dispatcher process that is sending a broadcast and delivering
 * its webhooks. A private cluster (the suite's shared one must not restart): stopped mid-send,
 * started again on the same data directory and port.
 */
describe('PostgreSQL restarted while a broadcast sends and webhooks deliver', () => {
  const CONCURRENCY = 10;
  const ACTIVE = 200;
  let dataDir: string;
  let port: number;
  let cluster: Cluster;
  let db: Database;
  let boss: PgBoss;
  let smtp: SmtpCapture;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const dispatchers = dispatcherProcesses('all');
  let dispatcher: Spawned | undefined;

  const start = () => startCluster(dataDir, port);

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-fault-pg-'));
    port = await freePort();
    cluster = await start();
    db = createDatabase(cluster.url, { poolMax: 4 });
    await migrate(db, cluster.url);
    boss = createBoss(cluster.url, 'api');
    // The test's own clients see the restart too; they reconnect, and their errors are expected.
    boss.on('error', () => undefined);
    await boss.start();
    smtp = await startSmtpCapture({ onMessage: answeringAfter(15) });
    receiver = await startReceiver();
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    await receiver?.close();
    await boss?.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
    await db?.destroy();
    await cluster?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  /**
   * Names the step that timed out, whether the dispatcher is still running, and its log: a
   * dispatcher that died looks like one that hangs (it did, when pg-boss ended the process).
   */
  const step = <T>(name: string, work: Promise<T>): Promise<T> =>
    work.catch((error: Error) => {
      const child = dispatcher?.child;
      const ended = child?.exitCode ?? child?.signalCode ?? null;
      const state = ended === null ? 'the dispatcher is running' : `the dispatcher exited (${ended})`;
      throw new Error(`${name}: ${error.message}; ${state}\n--- dispatcher output ---\n${dispatcher?.output().slice(-4000) ?? ''}`);
    });

  it('finishes the broadcast with each recipient once and delivers every committed event', async () => {
    const fixtures = new Fixtures(db, boss);
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    await db('webhook_endpoints').insert({
      channel_id: channel.id,
      url: receiver.url('/events'),
      event_types: ['email.delivered', 'broadcast.sent'],
      retries_to_attempt: 20,
      secret: `whsec_${randomBytes(32).toString('base64')}`,
    });
    const email = (i: number) => `p${i}@c${channel.id}.example.test`;
    await db('subscribers').insert(
      Array.from({ length: ACTIVE }, (_, i) => ({ channel_id: channel.id, email: email(i), first_name: `P${i}`, is_active: true })),
    );
    const expected = Array.from({ length: ACTIVE }, (_, i) => email(i)).sort();
    const b = await fixtures.aBroadcast(channel.id, { subject: 'For {{ subscriber.first_name }}' });
    await db('broadcasts').where({ id: b.id }).update({ status: 'scheduled', version: 1 });

    dispatcher = dispatchers.start(cluster.url, {
      MAILCAST_SEND_LEASE_MS: '1500',
      MAILCAST_SEND_SWEEP_MS: '300',
      MAILCAST_SEND_CONCURRENCY: String(CONCURRENCY),
      MAILCAST_SEND_RETRY_SCHEDULE: '200ms,400ms,800ms,1s,1s,1s',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s',
      WEBHOOK_TIMEOUT_MS: '1000',
      // A delivery job lost with the database (its outcome could not be recorded, or the job
      // itself failed) is found again by the stalled-delivery sweep: 20 minutes by default.
      MAILCAST_WEBHOOK_SWEEP_MS: '500',
      MAILCAST_WEBHOOK_STALLED_MS: '3000',
    });
    await boss.send('broadcasts.send', { broadcastId: b.id }, { retryLimit: 0 });

    // Mid-send, with webhooks already flowing: PostgreSQL goes down for a second and comes back.
    await step(
      'mid-send',
      eventually(async () => (smtp.messages.length >= 50 && receiver.received.length > 0 ? true : undefined), 30_000, 10),
    );
    const logBefore = dispatcher.output().length;
    await cluster.stop();
    const sentWhileDown = smtp.messages.length;
    expect(sentWhileDown).toBeLessThan(ACTIVE);
    // Down until the dispatcher has been refused by it: its job listener logs each failed reconnect.
    const refused = () => dispatcher!.output().slice(logBefore).includes('job listener reconnecting');
    await step(
      'outage seen',
      eventually(async () => (refused() ? true : undefined), 15_000, 20),
    );
    cluster = await start();

    const done = await step(
      'broadcast finished',
      eventually(
        async () => {
          const row = await db('broadcasts').where({ id: b.id }).first();
          return ['sent', 'partial_failure', 'failed'].includes(row.status) ? row : undefined;
        },
        30_000,
        200,
      ),
    );
    expect(dispatcher.child.exitCode).toBeNull();
    expect(done).toMatchObject({ status: 'sent', total_recipients: ACTIVE, broadcast_recipients_count: ACTIVE });
    expect(smtp.messages.length).toBeGreaterThan(sentWhileDown);

    // Each recipient once; a copy only for mail in flight when the database went away, and
    // then with the original Message-ID.
    const parsed = await Promise.all(smtp.messages.map(async (m) => ({ to: m.to[0]!, id: (await parseEmail(m.raw)).messageId })));
    expect([...new Set(parsed.map((m) => m.to))].sort()).toEqual(expected);
    expect(parsed.length - ACTIVE).toBeLessThanOrEqual(CONCURRENCY);
    const idsOf = new Map<string, Set<string | undefined>>();
    for (const m of parsed) idsOf.set(m.to, (idsOf.get(m.to) ?? new Set()).add(m.id));
    for (const ids of idsOf.values()) expect(ids.size).toBe(1);

    // One email.delivered per recipient (a settlement that rolled back left no event), and
    // every committed event reached the receiver, which saw nothing that was not committed.
    const events = await db('events').where({ channel_id: channel.id }).whereIn('type', ['email.delivered', 'broadcast.sent']).select('id', 'type', 'data');
    const delivered = events.filter((e: { type: string }) => e.type === 'email.delivered');
    expect(delivered.map((e: { data: { email: string } }) => e.data.email).sort()).toEqual(expected);
    expect(events.filter((e: { type: string }) => e.type === 'broadcast.sent')).toHaveLength(1);
    const committed = new Set(events.map((e: { id: string }) => String(e.id)));
    await step(
      'every event received',
      eventually(
        async () => {
          const seen = new Set(receiver.on('/events').map((r) => String(r.headers['broadcast-webhook-id'])));
          return [...committed].every((id) => seen.has(id)) ? true : undefined;
        },
        20_000,
        200,
      ),
    );
    for (const r of receiver.on('/events')) expect(committed.has(String(r.headers['broadcast-webhook-id']))).toBe(true);
    const deliveries = await step(
      'deliveries succeeded',
      eventually(
        async () => {
          const rows = await db('webhook_deliveries').where({ channel_id: channel.id });
          return rows.length === committed.size && rows.every((r: { status: string }) => r.status === 'succeeded') ? rows : undefined;
        },
        10_000,
        200,
      ),
    ).catch(async (error: Error) => {
      const rows = await db('webhook_deliveries').where({ channel_id: channel.id }).whereNot({ status: 'succeeded' });
      throw new Error(`${error.message}; committed ${committed.size}; not succeeded: ${JSON.stringify(rows.slice(0, 5))}`);
    });
    expect(deliveries).toHaveLength(ACTIVE + 1);
  }, 60_000);
});

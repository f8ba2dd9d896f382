import { createBoss, createDatabase, migrate, type Database } from '@mailcast/adapters';
import { parseEmail, startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { answeringAfter, dispatcherProcesses, eventually, Fixtures, freePort } from '@mailcast/testkit';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type PgBoss from 'pg-boss';
import { startCluster, type Cluster } from '../test-support/private-cluster';

/**
 * docs/sequences.md, "Runtime": built dispatcher processes running a sequence's steps while one
 * is killed (SIGKILL) mid-send, and while PostgreSQL restarts under two of them. A private
 * cluster, since the suite's shared one must not restart.
 */
describe('sequence steps under process faults', () => {
  const CONCURRENCY = 10;
  let dataDir: string;
  let port: number;
  let cluster: Cluster;
  let db: Database;
  let boss: PgBoss;
  let fixtures: Fixtures;
  const smtps: SmtpCapture[] = [];
  const dispatchers = dispatcherProcesses('each');
  const settings = {
    MAILCAST_SEND_LEASE_MS: '1500',
    MAILCAST_SEND_CONCURRENCY: String(CONCURRENCY),
    MAILCAST_SEND_RETRY_SCHEDULE: '200ms,400ms,800ms,1s,1s,1s',
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'mailcast-fault-seq-'));
    port = await freePort();
    cluster = await startCluster(dataDir, port);
    db = createDatabase(cluster.url, { poolMax: 4 });
    await migrate(db, cluster.url);
    boss = createBoss(cluster.url, 'api');
    // The test's own clients see the restart too; they reconnect, and their errors are expected.
    boss.on('error', () => undefined);
    await boss.start();
    fixtures = new Fixtures(db, boss);
  }, 60_000);
  afterAll(async () => {
    await Promise.all(smtps.map((s) => s.close()));
    await boss?.stop({ graceful: false, close: true, wait: true }).catch(() => undefined);
    await db?.destroy();
    await cluster?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  /** A channel whose SMTP server answers each message after `answerMs`, `count` subscribers enrolled in a sequence of `steps`. */
  async function enrolled(count: number, answerMs: number, steps: Parameters<Fixtures['aSequence']>[1]) {
    const smtp = await startSmtpCapture({ onMessage: answeringAfter(answerMs) });
    smtps.push(smtp);
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    const { sequence, steps: stepIds } = await fixtures.aSequence(channel.id, steps);
    const emails = Array.from({ length: count }, (_, i) => `q${i}@c${channel.id}.example.test`);
    for (const email of emails) {
      const subscriber = await fixtures.aSubscriber(channel.id, email, { firstName: 'Q' });
      await fixtures.repositories.sequences.enrol(sequence, subscriber.id, 'active', new Date());
    }
    return { smtp, channel, sequence, stepIds, emails: emails.sort() };
  }

  /** Waits for `count` enrolments of `sequenceId` to complete, naming the dispatchers' output if they do not. */
  const completed = (sequenceId: number, count: number) =>
    eventually(
      async () => {
        const [row] = await db('subscriber_sequences').where({ sequence_id: sequenceId, status: 'completed' }).count({ n: '*' });
        return Number(row?.n) === count ? true : undefined;
      },
      30_000,
      100,
    ).catch((error: Error) => {
      throw new Error(`${error.message}\n${dispatchers.output()}`);
    });

  /** Every address received its email, copies only for mail in flight and with the original Message-ID; each step ran and was counted once. */
  async function exactlyOnce(run: Awaited<ReturnType<typeof enrolled>>, inFlight: number) {
    const parsed = await Promise.all(run.smtp.messages.map(async (m) => ({ to: m.to[0]!, id: (await parseEmail(m.raw)).messageId })));
    expect([...new Set(parsed.map((m) => m.to))].sort()).toEqual(run.emails);
    expect(parsed.length - run.emails.length).toBeLessThanOrEqual(inFlight);
    const idsOf = new Map<string, Set<string | undefined>>();
    for (const m of parsed) idsOf.set(m.to, (idsOf.get(m.to) ?? new Set()).add(m.id));
    for (const ids of idsOf.values()) expect(ids.size).toBe(1);
    for (const stepId of run.stepIds) {
      const [ran] = await db('sequence_step_runs').where({ step_id: stepId }).count({ n: '*' });
      expect(Number(ran?.n)).toBe(run.emails.length);
    }
    const sent = await db('events').where({ channel_id: run.channel.id, type: 'email.sent' }).select('data');
    expect(sent.map((e: { data: { email: string } }) => e.data.email).sort()).toEqual(run.emails);
    // The step's `sent` figure: its sharded counter of emails handed to SMTP.
    const [figures] = await db('sequence_step_statistics').where({ step_id: run.stepIds[0], counter: 'processed' }).sum({ sent: 'recipients' });
    expect(Number(figures?.sent)).toBe(run.emails.length);
  }

  it('a dispatcher killed mid-send loses no step: the next one takes the lapsed claims, each email recorded and counted once', async () => {
    const run = await enrolled(100, 60, [{ action: 'send_email', settings: { subject: 'Hello {{ subscriber.first_name }}', body: 'Welcome.' } }]);
    const doomed = dispatchers.start(cluster.url, settings);
    await eventually(async () => (run.smtp.messages.length >= 20 ? true : undefined), 30_000, 5);
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const sentByTheKilled = run.smtp.messages.length;
    expect(sentByTheKilled).toBeLessThan(100);

    dispatchers.start(cluster.url, settings);
    await completed(run.sequence.id, 100);
    await exactlyOnce(run, CONCURRENCY);
  }, 60_000);

  it('PostgreSQL restarted under two dispatchers: every step runs once, the emails sent once but for those in flight', async () => {
    const run = await enrolled(200, 15, [
      { action: 'send_email', settings: { subject: 'Hello {{ subscriber.first_name }}', body: 'Welcome.' } },
      { action: 'add_tag_to_subscriber', settings: { tags: ['welcomed'] } },
    ]);
    const both = [dispatchers.start(cluster.url, settings), dispatchers.start(cluster.url, settings)];
    await eventually(async () => (run.smtp.messages.length >= 50 ? true : undefined), 30_000, 5);
    const logBefore = both.map((d) => d.output().length);
    await cluster.stop();
    // Down until a dispatcher has been refused by it: its job listener logs each failed reconnect.
    await eventually(async () => (both.some((d, i) => d.output().slice(logBefore[i]).includes('job listener reconnecting')) ? true : undefined), 15_000, 20);
    expect(run.smtp.messages.length).toBeLessThan(200);
    cluster = await startCluster(dataDir, port);

    await completed(run.sequence.id, 200);
    for (const d of both) expect(d.child.exitCode).toBeNull();
    await exactlyOnce(run, 2 * CONCURRENCY);
    const tagged = await db('subscribers').where({ channel_id: run.channel.id }).whereRaw(`tags @> ARRAY['welcomed']`).count({ n: '*' });
    expect(Number(tagged[0]?.n)).toBe(200);
  }, 90_000);
});

import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { dispatcherProcesses, eventually, Fixtures } from '@mailcast/testkit';
import { randomBytes } from 'node:crypto';
import { RestartableDatabase } from '../test-support/private-cluster';

/**
 * A double opt-in confirmation job hit by a 3 s database outage while its email is with the
 * SMTP server: the email goes out once, and is recorded as sent once the database is back
 * (docs/sending-reliability.md).
 */
describe('a confirmation email job during a database outage', () => {
  const pg = new RestartableDatabase();
  const dispatchers = dispatcherProcesses('all');
  let smtp: SmtpCapture;
  let outage: Promise<unknown> | undefined;

  beforeAll(async () => {
    await pg.start();
    // The database goes away as the message arrives; the server answers a little later.
    smtp = await startSmtpCapture({
      onMessage: () => {
        outage ??= pg.outage(3_000);
        return new Promise((resolve) => setTimeout(resolve, 500));
      },
    });
  }, 60_000);
  afterAll(async () => {
    await smtp?.close();
    await pg.close();
  }, 60_000);

  it('sends the email once and records it', async () => {
    const fixtures = new Fixtures(pg.db, pg.boss);
    const channel = await fixtures.aChannel({ fromEmail: 'news@example.test' });
    await fixtures.aCaptureServer(channel.id, smtp.port);
    const [subscriber] = await pg
      .db('subscribers')
      .insert({ channel_id: channel.id, email: 'optin@example.test', is_active: true, requires_confirmation: true })
      .returning('id');
    const [confirmation] = await pg
      .db('subscriber_confirmations')
      .insert({ channel_id: channel.id, subscriber_id: subscriber.id, token_hash: randomBytes(32) })
      .returning('id');
    const dispatcher = dispatchers.start(pg.url);
    await pg.boss.send('subscribers.confirmation', { confirmationId: confirmation.id }, { retryLimit: 0 });

    await eventually(async () => (outage ? true : undefined), 30_000, 50);
    const { restartedAt } = (await outage) as { restartedAt: number };
    const sent = await eventually(
      async () => {
        const row = await pg
          .db('subscriber_confirmations')
          .where({ id: confirmation.id })
          .first()
          .catch(() => undefined);
        return row?.email_sent_at ? row : undefined;
      },
      30_000,
      100,
    );
    process.stdout.write(`confirmation recorded as sent ${((Date.now() - restartedAt) / 1000).toFixed(1)} s after the restart\n`);
    expect(sent.email_sent_at).toBeInstanceOf(Date);
    // Once: the job ended as completed, with one email out.
    await eventually(
      async () => {
        const { rows } = await pg.db.raw(`SELECT state FROM pgboss.job WHERE name = 'subscribers.confirmation'
                                         UNION ALL SELECT state FROM pgboss.archive WHERE name = 'subscribers.confirmation'`);
        return rows.length === 1 && rows[0].state === 'completed' ? true : undefined;
      },
      30_000,
      100,
    );
    expect(smtp.messages.filter((m) => m.to[0] === 'optin@example.test')).toHaveLength(1);
    expect(dispatcher.child.exitCode).toBeNull();
  }, 90_000);
});

import { createBoss, loadConfig } from '@mailcast/adapters';
import { Mailer, PriorityMailer } from '@mailcast/core';
import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { eventually, findPlaintext, memoryLogger } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import request from 'supertest';
import type { DependencyContainer } from 'tsyringe';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';
import { buildContainer } from '../container';
import { HANDLERS } from '../handlers';
import { startWorkers, type JobWorkers } from '../workers/job-workers';

/**
 * Secrets at rest (docs/secrets.md): after an email server with a password, a webhook endpoint
 * and a sent broadcast exist, no column of the database holds any of their secrets as they are,
 * and no log line does either.
 */
describe('secrets at rest', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let boss: PgBoss;
  let dispatcher: DependencyContainer;
  let workers: JobWorkers;
  const dispatcherLogs = memoryLogger();
  const password = 'Sm7p-pass-word-of-the-test';

  beforeAll(async () => {
    api = await startApi({ env: { WEBHOOK_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '0' } });
    smtp = await startSmtpCapture();
    boss = createBoss(api.database.url, 'dispatcher');
    boss.on('error', () => undefined);
    await boss.start();
    dispatcher = buildContainer({
      config: loadConfig({ DATABASE_URL: api.database.url, SMTP_ALLOW_PRIVATE: 'true' }),
      logger: dispatcherLogs.logger,
      db: api.database.db,
      boss,
    });
    workers = startWorkers(boss, dispatcher, HANDLERS);
  }, 30_000);
  afterAll(async () => {
    await workers.stop();
    await boss.stop({ graceful: false, close: true, wait: true });
    await dispatcher.resolve<Mailer>(Mailer).close();
    await dispatcher.resolve<Mailer>(PriorityMailer).close();
    await smtp.close();
    await api.close();
  });

  it('finds no SMTP password, webhook secret or tracking secret in plaintext in any column', async () => {
    const { channel, token } = await api.fixtures.aTenant();
    const auth = { Authorization: `Bearer ${token}` };
    await api.fixtures.repositories.emailServers.create({
      channelId: channel.id,
      host: '127.0.0.1',
      port: smtp.port,
      tls: 'none',
      username: 'sender',
      password,
      fromEmail: 'news@example.com',
      fromName: null,
    });
    const endpoint = await request(api.app)
      .post('/api/v1/webhook_endpoints')
      .set(auth)
      .send({ webhook_endpoint: { url: 'http://127.0.0.1:9/hooks', event_types: ['email.sent'] } });
    expect(endpoint.status).toBe(201);
    const webhookSecret = endpoint.body.secret as string;
    expect(webhookSecret).toMatch(/^whsec_/);

    await api.fixtures.aSubscriber(channel.id, 'ann@example.com');
    const created = await request(api.app)
      .post('/api/v1/broadcasts')
      .set(auth)
      .send({ broadcast: { subject: 'Hi', html_body: '<p>Hi <a href="https://example.com/a">a</a></p>', track_opens: true, track_clicks: true } });
    expect((await request(api.app).post(`/api/v1/broadcasts/${created.body.id}/send_broadcast`).set(auth)).status).toBe(200);
    await eventually(
      async () => {
        const b = await request(api.app).get(`/api/v1/broadcasts/${created.body.id}`).set(auth);
        return b.body.status === 'sent' ? true : undefined;
      },
      30_000,
      100,
    );
    expect(smtp.messages).toHaveLength(1);

    const recipient = await api.database.db('broadcast_recipients').where({ broadcast_id: created.body.id }).first('id');
    const tracked = await api.fixtures.repositories.recipients.findTracked(Number(recipient.id));
    const trackingSecret = Buffer.from(tracked!.secret!);
    expect(trackingSecret).toHaveLength(32);

    const needles: Array<[string, string | Buffer]> = [
      ['password', password],
      ['webhook secret', webhookSecret],
      ['webhook secret without its prefix', webhookSecret.slice('whsec_'.length)],
      ['tracking secret (bytes)', trackingSecret],
      ['tracking secret (base64)', trackingSecret.toString('base64')],
      ['tracking secret (base64url)', trackingSecret.toString('base64url')],
      ['tracking secret (hex)', trackingSecret.toString('hex')],
    ];
    for (const [name, needle] of needles) {
      expect({ name, hits: await findPlaintext(api.database.db, needle) }).toEqual({ name, hits: [] });
    }
    // The scan can see: the sealed columns hold envelopes, and an unsealed value would be found.
    const server = await api.database.db('email_servers').where({ channel_id: channel.id }).first('password');
    expect(server.password).toMatch(/^mcs1\./);
    expect(await findPlaintext(api.database.db, 'news@example.com')).toContain('public.email_servers.from_email');

    const logs = JSON.stringify([api.logs, dispatcherLogs.entries]);
    for (const [, needle] of needles.filter(([, n]) => typeof n === 'string')) expect(logs).not.toContain(needle);
  });
});

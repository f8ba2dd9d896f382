import { createBoss, loadConfig } from '@mailcast/adapters';
import { Mailer, PriorityMailer, Templates } from '@mailcast/core';
import { startSmtpCapture, type RecipientVerdict, type SmtpCapture } from '@mailcast/devkit';
import { freePort, memoryLogger } from '@mailcast/testkit';
import http from 'node:http';
import type PgBoss from 'pg-boss';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';
import { buildContainer } from '../container';
import { HANDLERS } from '../handlers';
import { startWorkers } from '../workers/job-workers';
import { startWebhookWorkers } from '../workers/webhook-workers';

/**
 * What an end-to-end test runs against (the dashboard's browser tests, the controlled send): the
 * api on a real port, the dispatcher's workers, a mailbox, a webhook receiver.
 */
export interface Stack {
  api: ApiHarness;
  /** The api's origin, e.g. http://127.0.0.1:4321 (also its PUBLIC_URL, so tracking links point here). */
  url: string;
  smtp: SmtpCapture;
  /** The POSTs the webhook receiver got, in order. */
  hooks: Array<{ headers: http.IncomingHttpHeaders; body: string }>;
  receiverUrl: string;
  channelId: number;
  token: string;
  close(): Promise<void>;
}

/**
 * The product as `npm start` runs it, in one process: the api app served on a free loopback port,
 * the dispatcher's job and webhook workers on the same database, a capturing SMTP server as the
 * channel's email server and an HTTP receiver for webhooks.
 */
export async function startStack(options: { verdictFor?: (to: string) => RecipientVerdict } = {}): Promise<Stack> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { PUBLIC_URL: url, WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_ALLOW_PRIVATE: 'true', RATE_LIMIT_PER_MINUTE: '0' };
  const api = await startApi({ env });
  const server = http.createServer(api.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const smtp = await startSmtpCapture(options.verdictFor ? { verdictFor: options.verdictFor } : {});
  const hooks: Stack['hooks'] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body });
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));

  const boss: PgBoss = createBoss(api.database.url, 'dispatcher');
  boss.on('error', () => undefined);
  await boss.start();
  const dispatcher = buildContainer({
    config: loadConfig({ DATABASE_URL: api.database.url, ...env }),
    logger: memoryLogger().logger,
    db: api.database.db,
    boss,
  });
  const workers = startWorkers(boss, dispatcher, HANDLERS);
  const webhookWorkers = startWebhookWorkers(boss, dispatcher);

  const tenant = await api.fixtures.aTenant();
  await api.fixtures.aCaptureServer(tenant.channel.id, smtp.port, { fromEmail: 'news@example.com', fromName: 'Example News' });

  return {
    api,
    url,
    smtp,
    hooks,
    receiverUrl: `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hooks`,
    channelId: tenant.channel.id,
    token: tenant.token,
    async close() {
      await Promise.all([webhookWorkers.stop(), workers.stop()]);
      await boss.stop({ graceful: false, close: true, wait: true });
      await Promise.all([
        dispatcher.resolve<Mailer>(Mailer).close(),
        dispatcher.resolve<Mailer>(PriorityMailer).close(),
        dispatcher.resolve<Templates>(Templates).close(),
      ]);
      for (const s of [server, receiver]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
      await smtp.close();
      await api.close();
    },
  };
}

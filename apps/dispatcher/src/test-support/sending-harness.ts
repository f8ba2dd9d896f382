import { createBoss, listenForJobs, loadConfig } from '@mailcast/adapters';
import { BroadcastRendering, Mailer, PriorityMailer, Templates } from '@mailcast/core';
import { startSmtpCapture, type CapturedMessage, type RecipientVerdict, type SmtpCapture } from '@mailcast/devkit';
import { eventually, freePort, memoryLogger, suiteResource } from '@mailcast/testkit';
import http from 'node:http';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';
import { loadDispatcherConfig } from '../config';
import { buildContainer } from '../container';
import { HANDLERS, type JobHandler } from '../handlers';
import { startWorkers, type JobWorkers } from '../workers/job-workers';
import { observedBoss } from './observed-boss';

export interface SendingHarness {
  api: ApiHarness;
  smtp: SmtpCapture;
  dispatcher: DependencyContainer;
  /** Where the api listens (its PUBLIC_URL). */
  baseUrl: string;
  channelId: number;
  emailServerId: number;
  /** An authenticated JSON request to the api over real HTTP. */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: any }>;
  /** Creates a broadcast over HTTP, sends it, and waits for its final status. */
  broadcast(fields: Record<string, unknown>, timeoutMs?: number): Promise<{ id: number; status: string }>;
  /** `POST /api/v1/transactionals.json`, with an Idempotency-Key when one is given. */
  sendTransactional(body: Record<string, unknown>, idempotencyKey?: string): Promise<{ status: number; body: any }>;
  /** Waits until the transactional has left `queued`, and answers it as the api shows it. */
  transactionalOutcome(id: number, timeoutMs?: number): Promise<any>;
  /** What the SMTP server has received for `address` so far. */
  received(address: string): CapturedMessage[];
  close(): Promise<void>;
}

export interface SendingHarnessOptions {
  verdictFor?: (to: string) => RecipientVerdict;
  handlers?: readonly JobHandler[];
  env?: Record<string, string>;
  /** Told of every fetch the workers make: the queue and how many jobs it answered. */
  onFetch?: (queue: string, jobs: number) => void;
}

/** A sending harness for the enclosing describe: started in its beforeAll, closed in its afterAll. */
export function useSendingHarness(options: SendingHarnessOptions = {}): SendingHarness {
  return suiteResource(
    () => startSendingHarness(options),
    (h) => h.close(),
  );
}

/**
 * The api over HTTP, the dispatcher's workers and a real SMTP server, on one private database,
 * with one channel that has an email server: what a test of email leaving the product needs.
 */
export async function startSendingHarness(options: SendingHarnessOptions = {}): Promise<SendingHarness> {
  const port = await freePort();
  const env = { PUBLIC_URL: `http://127.0.0.1:${port}`, RATE_LIMIT_PER_MINUTE: '0', SMTP_ALLOW_PRIVATE: 'true', ...options.env };
  const api = await startApi({ env });
  const server = http.createServer(api.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const smtp = await startSmtpCapture(options.verdictFor ? { verdictFor: options.verdictFor } : {});
  const boss: PgBoss = createBoss(api.database.url, 'dispatcher');
  boss.on('error', () => undefined);
  await boss.start();
  const dispatcher = buildContainer(
    {
      config: loadConfig({ DATABASE_URL: api.database.url, ...env }),
      logger: memoryLogger().logger,
      db: api.database.db,
      boss,
    },
    [],
    { config: loadDispatcherConfig(env.PUBLIC_URL, { ...process.env, ...env }) },
  );
  const workers: JobWorkers = startWorkers(observedBoss(boss, { onFetch: options.onFetch }), dispatcher, options.handlers ?? HANDLERS);
  const listener = listenForJobs(api.database.url, (queue) => workers.wake(queue));
  const tenant = await api.fixtures.aTenant();
  const emailServer = await api.fixtures.aCaptureServer(tenant.channel.id, smtp.port, { fromEmail: 'news@example.com', fromName: 'Example News' });

  const request: SendingHarness['request'] = async (method, path, body, headers = {}) => {
    const res = await fetch(`${env.PUBLIC_URL}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };

  return {
    api,
    smtp,
    dispatcher,
    baseUrl: env.PUBLIC_URL,
    channelId: tenant.channel.id,
    emailServerId: emailServer.id,
    request,
    async broadcast(fields, timeoutMs = 30_000) {
      const created = await request('POST', '/api/v1/broadcasts', { broadcast: fields });
      if (created.status !== 201) throw new Error(`broadcast create: ${created.status} ${JSON.stringify(created.body)}`);
      const id = created.body.id as number;
      const sent = await request('POST', `/api/v1/broadcasts/${id}/send_broadcast`);
      if (sent.status !== 200) throw new Error(`broadcast send: ${sent.status} ${JSON.stringify(sent.body)}`);
      return eventually(
        async () => {
          const b = await request('GET', `/api/v1/broadcasts/${id}`);
          return ['sent', 'partial_failure', 'failed'].includes(b.body.status) ? { id, status: b.body.status as string } : undefined;
        },
        timeoutMs,
        100,
      );
    },
    sendTransactional: (body, idempotencyKey) =>
      request('POST', '/api/v1/transactionals.json', body, idempotencyKey === undefined ? {} : { 'Idempotency-Key': idempotencyKey }),
    transactionalOutcome: (id, timeoutMs = 10_000) =>
      eventually(async () => {
        const res = await request('GET', `/api/v1/transactionals/${id}.json`);
        return res.body.status === 'queued' ? undefined : res.body;
      }, timeoutMs),
    received: (address) => smtp.messages.filter((m) => m.to.includes(address)),
    async close() {
      await listener.close();
      await workers.stop();
      await boss.stop({ graceful: false, close: true, wait: true });
      await Promise.all([
        dispatcher.resolve<Mailer>(Mailer).close(),
        dispatcher.resolve<Mailer>(PriorityMailer).close(),
        dispatcher.resolve<BroadcastRendering>(BroadcastRendering).close(),
        dispatcher.resolve<Templates>(Templates).close(),
      ]);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await smtp.close();
      await api.close();
    },
  };
}

import { createBoss, loadConfig } from '@mailcast/adapters';
import {
  BroadcastRendering,
  Clock,
  Mailer,
  PriorityMailer,
  RunSequenceSteps,
  SyncSegmentEnrolments,
  Templates,
  Timers,
  WebhookSender,
  type SendingOptions,
} from '@mailcast/core';
import { startSmtpCapture, type CapturedMessage, type SmtpCapture } from '@mailcast/devkit';
import { freePort, memoryLogger, suiteResource, testClock } from '@mailcast/testkit';
import http from 'node:http';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { startApi, type ApiHarness } from '../../../api/src/test-support/harness';
import { loadDispatcherConfig } from '../config';
import { buildContainer, type Override } from '../container';

/** A request the HTTP receiver got. */
export interface Hit {
  method: string;
  path: string;
  body: string;
  headers: http.IncomingHttpHeaders;
}

export interface SequenceHarness {
  api: ApiHarness;
  smtp: SmtpCapture;
  baseUrl: string;
  channelId: number;
  /** The dispatchers' clock: it moves only when the test says (and never behind real time). */
  clock: ReturnType<typeof testClock>;
  /** A dispatcher on the shared database and clock (a second one shares the work with the first). */
  /** `sending` changes the dispatcher's sending options (smaller claims, fewer in flight). */
  dispatcher(sending?: Partial<SendingOptions>, overrides?: readonly Override[]): DependencyContainer;
  /** One runtime turn of `on` (the first dispatcher by default), the clock caught up with real time first. */
  runDue(on?: DependencyContainer): Promise<number>;
  syncSegments(): Promise<number>;
  request(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** An active sequence with `steps` appended one after another; answers its id and the steps' ids in order. */
  sequence(steps: ReadonlyArray<Record<string, unknown>>, fields?: Record<string, unknown>): Promise<{ id: number; steps: number[] }>;
  enrol(sequenceId: number, email: string, extra?: Record<string, unknown>): Promise<any>;
  /** The enrolment as list_subscribers shows it. */
  enrolment(sequenceId: number, email: string): Promise<any>;
  /** Outbox events of the channel, oldest first, optionally of one type. */
  events(type?: string): Promise<Array<{ type: string; data: any }>>;
  received(address: string): CapturedMessage[];
  /**
   * The HTTP receiver: its URL for `path`, what it got, the status it answers per path (200
   * unless set), and work to finish per path before it answers.
   */
  receiver: { url(path: string): string; hits: Hit[]; status: Map<string, number>; before: Map<string, () => Promise<unknown>> };
  close(): Promise<void>;
}

export function useSequenceHarness(env: Record<string, string> = {}): SequenceHarness {
  return suiteResource(
    () => startSequenceHarness(env),
    (h) => h.close(),
  );
}

/**
 * The api over real HTTP, a real SMTP server, an HTTP receiver on loopback, and dispatcher
 * containers whose sequence runtime a test turns by hand on a clock it moves.
 */
export async function startSequenceHarness(extraEnv: Record<string, string> = {}): Promise<SequenceHarness> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const env = {
    PUBLIC_URL: baseUrl,
    RATE_LIMIT_PER_MINUTE: '0',
    SMTP_ALLOW_PRIVATE: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...extraEnv,
  };
  const api = await startApi({ env });
  const server = http.createServer(api.app);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  // Addresses starting with bounce- get a hard bounce.
  const smtp = await startSmtpCapture({ verdictFor: (to) => (to.startsWith('bounce-') ? { code: 550, message: 'No such user' } : undefined) });
  const hits: Hit[] = [];
  const status = new Map<string, number>();
  const before = new Map<string, () => Promise<unknown>>();
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const path = req.url ?? '/';
      hits.push({ method: req.method ?? '', path, body, headers: req.headers });
      void (before.get(path)?.() ?? Promise.resolve()).finally(() => res.writeHead(status.get(path) ?? 200, { 'Content-Type': 'text/plain' }).end('ok'));
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverPort = (receiver.address() as { port: number }).port;

  const boss: PgBoss = createBoss(api.database.url, 'dispatcher');
  boss.on('error', () => undefined);
  await boss.start();
  const clock = testClock(Date.now());
  const containers: DependencyContainer[] = [];
  const dispatcher = (sending: Partial<SendingOptions> = {}, overrides: readonly Override[] = []) => {
    const config = loadDispatcherConfig(baseUrl, { ...process.env, ...env });
    const c = buildContainer(
      { config: loadConfig({ DATABASE_URL: api.database.url, ...env }), logger: memoryLogger().logger, db: api.database.db, boss },
      [{ token: Clock, value: clock.clock }, { token: Timers, value: clock.timers }, ...overrides],
      { config: { ...config, sending: { ...config.sending, ...sending } }, workerName: `test-${containers.length}` },
    );
    containers.push(c);
    return c;
  };
  const first = dispatcher();
  const catchUp = () => {
    const behind = Date.now() - clock.current();
    if (behind > 0) clock.advance(behind);
  };

  const tenant = await api.fixtures.aTenant();
  await api.fixtures.aCaptureServer(tenant.channel.id, smtp.port, { fromEmail: 'news@example.com', fromName: 'Example News' });
  const request: SequenceHarness['request'] = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === '' ? null : JSON.parse(text) };
  };
  const must = async (method: string, path: string, body?: unknown) => {
    const res = await request(method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  return {
    api,
    smtp,
    baseUrl,
    channelId: tenant.channel.id,
    clock,
    dispatcher,
    async runDue(on = first) {
      catchUp();
      return on.resolve(RunSequenceSteps).execute();
    },
    async syncSegments() {
      catchUp();
      return first.resolve(SyncSegmentEnrolments).execute();
    },
    request,
    async sequence(steps, fields = {}) {
      const created = await must('POST', '/api/v1/sequences', { label: 'Welcome', active: true, ...fields });
      const ids: number[] = [];
      for (const step of steps) ids.push((await must('POST', `/api/v1/sequences/${created.id}/steps`, step)).id as number);
      return { id: created.id as number, steps: ids };
    },
    enrol: (sequenceId, email, extra = {}) => must('POST', `/api/v1/sequences/${sequenceId}/add_subscriber`, { email, ...extra }),
    async enrolment(sequenceId, email) {
      const page = await must('GET', `/api/v1/sequences/${sequenceId}/list_subscribers`);
      return (page.subscriber_sequences as any[]).find((e) => e.subscriber.email === email);
    },
    async events(type) {
      const q = api.database.db('events').where({ channel_id: tenant.channel.id }).orderBy('id').select('type', 'data');
      const rows = (await (type === undefined ? q : q.where({ type }))) as Array<{ type: string; data: any }>;
      return rows;
    },
    received: (address) => smtp.messages.filter((m) => m.to.includes(address)),
    receiver: { url: (path) => `http://127.0.0.1:${receiverPort}${path}`, hits, status, before },
    async close() {
      await boss.stop({ graceful: false, close: true, wait: true });
      for (const c of containers) {
        await Promise.all([
          c.resolve<Mailer>(Mailer).close(),
          c.resolve<Mailer>(PriorityMailer).close(),
          c.resolve<BroadcastRendering>(BroadcastRendering).close(),
          c.resolve<Templates>(Templates).close(),
          c.resolve<WebhookSender>(WebhookSender).close?.(),
        ]);
      }
      for (const s of [server, receiver]) {
        s.closeAllConnections();
        await new Promise((resolve) => s.close(resolve));
      }
      await smtp.close();
      await api.close();
    },
  };
}

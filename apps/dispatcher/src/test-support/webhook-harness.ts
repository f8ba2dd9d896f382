import { createBoss, listenForJobs, loadConfig, OUTBOX_WAKE, type Infrastructure, type JobListener } from '@mailcast/adapters';
import { Transactor, type OutboxEvent, type Principal, type RecordedEvent } from '@mailcast/core';
import { PERMISSIONS } from '@mailcast/domain';
import { createTestDatabase, Fixtures, memoryLogger, suiteResource, type TestDatabase } from '@mailcast/testkit';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer } from '../container';
import { startWebhookWorkers, type WebhookWorkersOptions } from '../workers/webhook-workers';

export interface Received {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  /** The body exactly as it arrived, for verifying the signature over raw bytes. */
  raw: Buffer;
  at: number;
}

export type Reply = { status: number; body?: string } | 'hang';

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;

/** A real HTTP receiver on loopback; each path answers as `reply` says (default 200). */
export async function startReceiver(reply: (path: string, nth: number) => Reply = () => ({ status: 200 })) {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const hanging = new Set<http.ServerResponse>();
  const open = new Map<string, number>();
  const maxOpen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const opened = req.url ?? '/';
    open.set(opened, (open.get(opened) ?? 0) + 1);
    maxOpen.set(opened, Math.max(maxOpen.get(opened) ?? 0, open.get(opened)!));
    res.on('close', () => open.set(opened, open.get(opened)! - 1));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '/';
      const nth = (counts.get(path) ?? 0) + 1;
      counts.set(path, nth);
      received.push({ path, method: req.method ?? '', headers: req.headers, raw: Buffer.concat(chunks), at: Date.now() });
      const answer = reply(path, nth);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      res.writeHead(answer.status, { 'content-type': 'text/plain' }).end(answer.body ?? 'ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    on: (path: string) => received.filter((r) => r.path === path),
    /** The most requests to `path` that were open at once. */
    maxOpen: (path: string) => maxOpen.get(path) ?? 0,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface DispatcherHarness {
  database: TestDatabase;
  boss: PgBoss;
  container: DependencyContainer;
  fixtures: Fixtures;
  startWorkers(options?: WebhookWorkersOptions): void;
  stopWorkers(): Promise<void>;
  aPrincipal(): Promise<Principal>;
  record(event: OutboxEvent): Promise<RecordedEvent>;
  errors: unknown[];
  close(): Promise<void>;
}

/** The dispatcher's composition with its webhook workers in-process, on a private database. */
export async function startDispatcherHarness(env: NodeJS.ProcessEnv): Promise<DispatcherHarness> {
  const database = await createTestDatabase();
  const boss = createBoss(database.url, 'dispatcher');
  boss.on('error', () => undefined);
  await boss.start();
  const { logger } = memoryLogger();
  const infra: Infrastructure = { config: loadConfig({ DATABASE_URL: database.url, SMTP_ALLOW_PRIVATE: 'true', ...env }), logger, db: database.db, boss };
  const container = buildContainer(infra);
  const errors: unknown[] = [];
  let workers: { stop(): Promise<void> } | undefined;
  let listener: JobListener | undefined;
  const harness: DispatcherHarness = {
    database,
    boss,
    container,
    fixtures: new Fixtures(database.db, boss),
    errors,
    startWorkers(options = {}) {
      const started = startWebhookWorkers(boss, container, {
        relay: { idleMs: 20, ...options.relay },
        delivery: { idleMs: 20, ...options.delivery },
        onError: (error) => errors.push(error),
      });
      workers = started;
      // As the dispatcher does: a writer's NOTIFY after committing events wakes the relay.
      listener = listenForJobs(database.url, (queue) => queue === OUTBOX_WAKE && started.wake());
    },
    async stopWorkers() {
      await listener?.close();
      listener = undefined;
      await workers?.stop();
      workers = undefined;
    },
    async aPrincipal() {
      const channel = await harness.fixtures.aChannel();
      return { tokenId: 0, channelId: channel.id, permissions: PERMISSIONS };
    },
    record(event) {
      return container.resolve<Transactor>(Transactor).run((r) => r.outbox.record(event));
    },
    async close() {
      await harness.stopWorkers();
      await boss.stop({ graceful: false, close: true, wait: true });
      await database.drop();
    },
  };
  return harness;
}

/** A dispatcher harness for the enclosing describe (started in beforeAll, closed in afterAll). */
export function useDispatcherHarness(env: NodeJS.ProcessEnv): DispatcherHarness {
  return suiteResource(
    () => startDispatcherHarness(env),
    (h) => h.close(),
  );
}

/** A webhook receiver for the enclosing describe (started in beforeAll, closed in afterAll). */
export function useReceiver(reply?: (path: string, nth: number) => Reply): Receiver {
  return suiteResource(
    () => startReceiver(reply),
    (r) => r.close(),
  );
}

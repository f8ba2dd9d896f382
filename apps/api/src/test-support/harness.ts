import {
  createBoss,
  createDatabase,
  DEFAULT_CONNECTIONS_PER_SERVER,
  Htmlparser2Reader,
  LiquidTemplates,
  loadConfig,
  type Infrastructure,
} from '@mailcast/adapters';
import { BroadcastRendering, defaultSendingOptions, InProcessBroadcastRendering, Mailer, SendingOptions } from '@mailcast/core';
import { createTestDatabase, Fixtures, memoryLogger, suiteResource, type TestDatabase } from '@mailcast/testkit';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer, closeContainer, type Override } from '../container';
import { auditTrailOf, createApp } from '../http/app';

export interface ApiHarness {
  app: Express;
  container: DependencyContainer;
  database: TestDatabase;
  fixtures: Fixtures;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/**
 * The overrides that let a test run DeliverBroadcast in the api's container, as the dispatcher
 * would: sending options for `publicUrl` (no helper jobs), the test's mailer, and rendering in
 * this process (the api binds no rendering; only the dispatcher renders).
 */
export function sendingInProcess(publicUrl: string, mailer: Mailer): Override[] {
  return [
    { token: SendingOptions, value: { ...defaultSendingOptions(publicUrl, DEFAULT_CONNECTIONS_PER_SERVER), helperJobs: 0 } },
    { token: Mailer, value: mailer },
    { token: BroadcastRendering, value: new InProcessBroadcastRendering(new LiquidTemplates(), new Htmlparser2Reader()) },
  ];
}

/** The real api app on a private database; overrides swap single ports (the clock, say). */
export async function startApi(options: { overrides?: readonly Override[]; env?: NodeJS.ProcessEnv; statementTimeoutMs?: number } = {}): Promise<ApiHarness> {
  const database = await createTestDatabase();
  // The app's own pool, as openInfrastructure makes the api's, when a test sets a statement time-out.
  const appDb = options.statementTimeoutMs === undefined ? database.db : createDatabase(database.url, { statementTimeoutMs: options.statementTimeoutMs });
  const boss = createBoss(database.url, 'api');
  const { logger, entries } = memoryLogger();
  // As in openInfrastructure: a lost connection is logged, not an unhandled 'error' event.
  boss.on('error', (error: Error) => logger.error('queue error', { error: error.message }));
  await boss.start();
  const infra: Infrastructure = {
    // The tests' SMTP servers listen on loopback (docs/email-servers.md, "Addresses"); a test may turn it off.
    config: loadConfig({ DATABASE_URL: database.url, SMTP_ALLOW_PRIVATE: 'true', ...options.env }),
    logger,
    db: appDb,
    boss,
  };
  const container = buildContainer(infra, options.overrides);
  const app = createApp(container);
  return {
    app,
    container,
    database,
    fixtures: new Fixtures(database.db, boss),
    logs: entries,
    async close() {
      await auditTrailOf(app).idle();
      await closeContainer(container);
      await boss.stop({ graceful: false, close: true, wait: true });
      if (appDb !== database.db) await appDb.destroy();
      await database.drop();
    },
  };
}

/** The api harness for the enclosing describe: started in its beforeAll, closed in its afterAll. */
export function useApi(options: Parameters<typeof startApi>[0] = {}): ApiHarness {
  return suiteResource(
    () => startApi(options),
    (api) => api.close(),
  );
}

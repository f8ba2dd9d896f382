import { createBoss, loadConfig, type Infrastructure } from '@mailcast/adapters';
import { createTestDatabase, Fixtures, memoryLogger, type TestDatabase } from '@mailcast/testkit';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer, closeContainer, type Override } from '../container';
import { createApp } from '../http/app';

export interface ApiHarness {
  app: Express;
  container: DependencyContainer;
  database: TestDatabase;
  fixtures: Fixtures;
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** The real api app on a private database; overrides swap single ports (the clock, say). */
export async function startApi(options: { overrides?: readonly Override[]; env?: NodeJS.ProcessEnv } = {}): Promise<ApiHarness> {
  const database = await createTestDatabase();
  const boss = createBoss(database.url, 'api');
  const { logger, entries } = memoryLogger();
  // As in openInfrastructure: a lost connection is logged, not an unhandled 'error' event.
  boss.on('error', (error: Error) => logger.error('queue error', { error: error.message }));
  await boss.start();
  const infra: Infrastructure = {
    config: loadConfig({ DATABASE_URL: database.url, ...options.env }),
    logger,
    db: database.db,
    boss,
  };
  const container = buildContainer(infra, options.overrides);
  return {
    app: createApp(container),
    container,
    database,
    fixtures: new Fixtures(database.db, boss),
    logs: entries,
    async close() {
      await closeContainer(container);
      await boss.stop({ graceful: false, close: true, wait: true });
      await database.drop();
    },
  };
}

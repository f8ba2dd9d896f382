import { createBoss, loadConfig, type Infrastructure } from '@mailcast/adapters';
import { createTestDatabase, Fixtures, memoryLogger, type TestDatabase } from '@mailcast/testkit';
import type { Express } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer, type Override } from '../container';
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
  // DROP DATABASE … WITH (FORCE) at close may end a pooled connection pg-boss has not closed yet;
  // without a listener that 'error' event would fail the whole test file after its tests passed.
  boss.on('error', () => undefined);
  await boss.start();
  const { logger, entries } = memoryLogger();
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
      await boss.stop({ graceful: false, close: true, wait: true });
      await database.drop();
    },
  };
}

import type { Config } from './config';
import type { Logger } from './logger';
import { createDatabase } from './pg/database';
import { createBoss } from './queue/boss';
import type { Infrastructure } from './register';

export interface OpenInfrastructure extends Infrastructure {
  close(): Promise<void>;
}

/** The database pool and the queue client of one process, opened together and closed together. */
export async function openInfrastructure(options: {
  config: Config;
  logger: Logger;
  databaseUrl: string;
  role: 'api' | 'dispatcher';
}): Promise<OpenInfrastructure> {
  const db = createDatabase(options.databaseUrl, { log: options.logger });
  const boss = createBoss(options.databaseUrl, options.role);
  boss.on('error', (error: Error) => options.logger.error('queue error', { error: error.message }));
  await boss.start();
  return {
    config: options.config,
    logger: options.logger,
    db,
    boss,
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000, close: true, wait: true });
      await db.destroy();
    },
  };
}

import type { Config } from './config';
import type { Logger } from './logger';
import { createDatabase } from './pg/database';
import { createBoss } from './queue/boss';
import type { Infrastructure } from './register';
import { resealSecrets } from './secrets/reseal-secrets';
import { secretBoxFor } from './secrets/secret-keys';

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
  // The api answers people: no statement of a request may hold a connection for long. The
  // dispatcher's statements (queueing a million recipients) legitimately take longer.
  const statementTimeoutMs = options.role === 'api' ? options.config.apiStatementTimeoutMs : undefined;
  const db = createDatabase(options.databaseUrl, { log: options.logger, ...(statementTimeoutMs ? { statementTimeoutMs } : {}) });
  const boss = createBoss(options.databaseUrl, options.role);
  boss.on('error', (error: Error) => options.logger.error('queue error', { error: error.message }));
  await boss.start();
  const secrets = secretBoxFor(options.config, options.logger);
  // Values written before encryption at rest are sealed here, by whichever process starts first.
  const { sealed } = await resealSecrets(db, secrets, 'plaintext');
  if (sealed > 0) options.logger.info(`sealed ${sealed} secrets stored in plaintext`);
  return {
    config: options.config,
    logger: options.logger,
    db,
    boss,
    secrets,
    async close() {
      await boss.stop({ graceful: true, timeout: 10_000, close: true, wait: true });
      await db.destroy();
    },
  };
}

import { createBoss, DEFAULT_CONNECTIONS_PER_SERVER, loadConfig, type Infrastructure } from '@mailcast/adapters';
import { Clock, Mailer, SendingOptions, Timers, defaultSendingOptions } from '@mailcast/core';
import { startSmtpCapture, type SmtpCapture } from '@mailcast/devkit';
import { createTestDatabase, Fixtures, memoryLogger, suiteResource, type testClock, type TestDatabase } from '@mailcast/testkit';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import { buildContainer } from '../container';

export interface ClockedSending {
  database: TestDatabase;
  boss: PgBoss;
  fixtures: Fixtures;
  smtp: SmtpCapture;
  /** The dispatcher's container on the test's clock: the use cases are run by hand, no workers. */
  container: DependencyContainer;
}

/**
 * For the enclosing describe: a private database, a real SMTP server and the dispatcher's
 * container on `time`'s clock and timers (a 2 s lease, no helper jobs), so a test moves time
 * itself and runs the sending use cases one step at a time.
 */
export function useClockedSending(time: ReturnType<typeof testClock>): ClockedSending {
  return suiteResource(
    async () => {
      const database = await createTestDatabase();
      const boss = createBoss(database.url, 'api');
      await boss.start();
      const smtp = await startSmtpCapture();
      const infra: Infrastructure = {
        config: loadConfig({ DATABASE_URL: database.url, SMTP_ALLOW_PRIVATE: 'true' }),
        logger: memoryLogger().logger,
        db: database.db,
        boss,
      };
      const options: SendingOptions = { ...defaultSendingOptions('http://mail.example.test', DEFAULT_CONNECTIONS_PER_SERVER), leaseMs: 2_000, helperJobs: 0 };
      const container = buildContainer(infra, [
        { token: SendingOptions, value: options },
        { token: Clock, value: time.clock },
        { token: Timers, value: time.timers },
      ]);
      return { database, boss, fixtures: new Fixtures(database.db, boss), smtp, container };
    },
    async ({ database, boss, smtp, container }) => {
      await container.resolve<Mailer>(Mailer).close();
      await smtp.close();
      await boss.stop({ graceful: false, close: true, wait: true });
      await database.drop();
    },
  );
}

import 'reflect-metadata';
import { createLogger, exitOnStartupError, loadConfig, onShutdown, openInfrastructure, type Logger } from '@mailcast/adapters';
import { resolveDatabase } from '@mailcast/devkit';
import type http from 'node:http';
import { buildContainer } from './container';
import { HANDLERS, startWorkers } from './handlers/registry';
import { startWebhookWorkers } from './handlers/webhooks';
import { portOf, startHealthServer } from './health-server';

/** Any number of dispatchers may run against one database; pg-boss hands each job to one. */
async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = loadConfig();
    logger = createLogger({ level: config.logLevel, production: config.production, service: 'dispatcher' });
    const database = await resolveDatabase(config.databaseUrl);
    const infra = await openInfrastructure({ config, logger, databaseUrl: database.url, role: 'dispatcher' });
    const container = buildContainer(infra);
    const log = logger;
    await startWorkers(infra.boss, container, HANDLERS, {
      onJobFailed: (queue, jobId, error) =>
        log.warn('job failed', { queue, jobId, error: error instanceof Error ? error.message : String(error) }),
    });
    const webhooks = startWebhookWorkers(infra.boss, container, {
      onError: (error, context) =>
        log.error('webhook worker error', { context, error: error instanceof Error ? error.message : String(error) }),
    });
    let stopping = false;
    let health: http.Server | undefined;
    if (config.dispatcherMetricsPort !== undefined) {
      health = await startHealthServer(config.dispatcherMetricsPort, () => !stopping);
      logger.info(`dispatcher health on http://localhost:${portOf(health)}/healthz`);
    }
    logger.info(`dispatcher working ${HANDLERS.length} queue(s)`);

    onShutdown(log, async () => {
      stopping = true;
      await webhooks.stop();
      // pg-boss stops fetching and waits for the jobs in hand; unfinished ones go back.
      await infra.close();
      await database.stop();
      health?.close();
      log.info('dispatcher stopped');
    });
  } catch (error) {
    exitOnStartupError(logger, error);
  }
}

void main();

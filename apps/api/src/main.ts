import 'reflect-metadata';
import {
  createLogger,
  exitOnStartupError,
  loadConfig,
  onShutdown,
  openInfrastructure,
  type Logger,
  loadDevkitPackage,
  resolveDatabase,
} from '@mailcast/adapters';
import type { AddressInfo } from 'node:net';
import { buildContainer, closeContainer } from './container';
import { auditTrailOf, createApp } from './http/app';
import { createHttpServer } from './http/server';

async function main(): Promise<void> {
  let logger: Logger | undefined;
  try {
    const config = loadConfig();
    logger = createLogger({ level: config.logLevel, production: config.production, service: 'api' });
    const database = await resolveDatabase(config.databaseUrl, loadDevkitPackage);
    const infra = await openInfrastructure({ config, logger, databaseUrl: database.url, role: 'api' });
    const container = buildContainer(infra);
    const app = createApp(container);
    const server = createHttpServer(app).listen(config.port);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
    });
    const { port } = server.address() as AddressInfo;
    logger.info(`api listening on http://localhost:${port}`);

    const log = logger;
    onShutdown(log, async () => {
      // Stop accepting, let in-flight requests finish, then release the pool.
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await auditTrailOf(app).idle();
      await closeContainer(container);
      await infra.close();
      await database.stop();
      log.info('api stopped');
    });
  } catch (error) {
    exitOnStartupError(logger, error);
  }
}

void main();

import { startDsnServer, type Config, type DsnServer, type Logger } from '@mailcast/adapters';
import { RecordBounce } from '@mailcast/core';
import type { DependencyContainer } from 'tsyringe';

/**
 * The optional inbound SMTP listener for delivery status notifications (docs/bounces.md): on
 * when INBOUND_SMTP_PORT is set. Each report is recorded through RecordBounce.
 */
export async function startDsnListener(container: DependencyContainer, config: Config, logger: Logger): Promise<DsnServer | null> {
  const smtp = config.inbound.smtp;
  if (smtp === null) return null;
  const server = await startDsnServer({
    port: smtp.port,
    host: smtp.host,
    logger,
    record: (report) => container.resolve(RecordBounce).execute(report),
  });
  logger.info(`dispatcher receiving delivery status notifications on SMTP port ${server.port}`);
  return server;
}

import type { BounceReport, BounceResult } from '@mailcast/core';
import { parseVerpAddress } from '@mailcast/domain';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream } from 'smtp-server';
import type { Logger } from '../logger';
import { dsnReports } from './dsn';

/** A DSN quotes at most the original's headers, usually: 1 MB is plenty. */
export const DSN_MAX_BYTES = 1024 * 1024;

export interface DsnServer {
  port: number;
  close(): Promise<void>;
}

/**
 * The inbound SMTP listener for delivery status notifications (docs/bounces.md). It accepts mail
 * only for VERP addresses (`bounces+<recipient id>-<MAC>@…`, any domain), no AUTH, no relaying,
 * at most DSN_MAX_BYTES; each report is recorded through `record`. A failure to record is a 451,
 * so the sending server tries again later; anything else is accepted (250), so no bounce of a
 * bounce is ever generated.
 */
export async function startDsnServer(options: {
  port: number;
  host: string;
  logger: Logger;
  record: (report: BounceReport) => Promise<BounceResult>;
}): Promise<DsnServer> {
  const { logger, record } = options;
  const server = new SMTPServer({
    name: 'mailcast-bounces',
    banner: 'Mailcast bounce processing',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: DSN_MAX_BYTES,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (parseVerpAddress(address.address) === null) {
        callback(Object.assign(new Error('5.1.1 No such recipient'), { responseCode: 550 }));
        return;
      }
      callback();
    },
    onData(stream: SMTPServerDataStream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (stream.sizeExceeded) {
          callback(Object.assign(new Error('5.3.4 Message too big'), { responseCode: 552 }));
          return;
        }
        const recipients = session.envelope.rcptTo.map((r) => r.address);
        void (async () => {
          const reports = await dsnReports(Buffer.concat(chunks), recipients);
          const results = [];
          for (const report of reports) results.push(await record(report));
          logger.info('delivery status notification', { reports: reports.length, results });
        })().then(
          () => callback(),
          (error: unknown) => {
            logger.error('delivery status notification not recorded', { error: error instanceof Error ? error.message : String(error) });
            callback(Object.assign(new Error('4.3.0 Try again later'), { responseCode: 451 }));
          },
        );
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  server.on('error', (error) => logger.warn('inbound SMTP error', { error: error.message }));
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

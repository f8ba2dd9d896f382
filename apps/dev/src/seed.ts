import 'reflect-metadata';
import { composeContainer, createBoss, createDatabase, createLogger, type Config } from '@mailcast/adapters';
import { AddEmailServer, CreateChannel, Repositories } from '@mailcast/core';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface SeedResult {
  created: boolean;
  channelId: number | null;
  token: string | null;
}

/**
 * First run of `npm start`: a default channel, an email server pointing at the capture server
 * and a token with every permission. The token is kept in `.data/dev-token` (mode 600) so later
 * runs can show it again; the database itself keeps only its hash.
 */
export async function seedDevelopmentData(options: { config: Config; databaseUrl: string; smtpPort: number; tokenFile: string }): Promise<SeedResult> {
  const db = createDatabase(options.databaseUrl, { poolMax: 2 });
  const logger = createLogger({ level: 'warn', production: false, service: 'seed' });
  const container = composeContainer({
    config: options.config,
    logger,
    db,
    boss: createBoss(options.databaseUrl, 'api'),
  });
  try {
    if ((await container.resolve<Repositories>(Repositories).channels.count()) > 0) {
      const token = existsSync(options.tokenFile) ? readFileSync(options.tokenFile, 'utf8').trim() : null;
      return { created: false, channelId: null, token };
    }
    const { channel, token } = await container
      .resolve(CreateChannel)
      .execute({ name: 'Default channel', fromEmail: 'newsletter@mailcast.localhost', fromName: 'Mailcast' });
    await container.resolve(AddEmailServer).execute({
      channelId: channel.id,
      host: '127.0.0.1',
      port: options.smtpPort,
      // The capture server speaks no TLS; a loopback host may use none (docs/email-servers.md).
      tls: 'none',
      username: null,
      password: null,
      fromEmail: null,
      fromName: null,
    });
    writeFileSync(options.tokenFile, token + '\n', { mode: 0o600 });
    return { created: true, channelId: channel.id, token };
  } finally {
    await db.destroy();
  }
}

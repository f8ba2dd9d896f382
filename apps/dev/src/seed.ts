import 'reflect-metadata';
import { composeContainer, createBoss, createDatabase, createLogger, type Config } from '@mailcast/adapters';
import { AddEmailServer, CreateChannel, PasswordHasher, Repositories, UserRepository } from '@mailcast/core';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface SeedResult {
  created: boolean;
  channelId: number | null;
  token: string | null;
  /** Set on the run that made the first user: its address and its password, shown this once. */
  firstUser: { email: string; password: string } | null;
}

/** npm start's first user (docs/teams.md, The first user): sudo, to sign in to the dashboard. */
export const FIRST_USER_EMAIL = 'admin@localhost';

/**
 * First run of `npm start`: a default channel, an email server pointing at the capture server
 * (the system sender's too: reset links arrive there), a token with every permission, and the
 * first user, `admin@localhost` (sudo) with a one-time password. The token is kept in `.data/dev-token` (mode 600) so later
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
    // While the installation has no user at all: made apart from the channel, so an installation
    // seeded before users existed gets one too.
    let firstUser: SeedResult['firstUser'] = null;
    const users = container.resolve<UserRepository>(UserRepository);
    if ((await users.list({ limit: 1, offset: 0 })).total === 0) {
      // One-time: printed once, never written anywhere; only its argon2id hash is kept.
      const password = randomBytes(18).toString('base64url');
      const passwordHash = await container.resolve<PasswordHasher>(PasswordHasher).hash(password);
      await users.create({ email: FIRST_USER_EMAIL, firstName: 'Admin', lastName: null, passwordHash, sudo: true });
      firstUser = { email: FIRST_USER_EMAIL, password };
    }
    if ((await container.resolve<Repositories>(Repositories).channels.count()) > 0) {
      const token = existsSync(options.tokenFile) ? readFileSync(options.tokenFile, 'utf8').trim() : null;
      return { created: false, channelId: null, token, firstUser };
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
    return { created: true, channelId: channel.id, token, firstUser };
  } finally {
    await db.destroy();
  }
}

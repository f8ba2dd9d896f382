import type { EmailServer, Mailer, SystemMail } from '@mailcast/core';
import type { Knex } from 'knex';
import { randomUUID } from 'node:crypto';
import { PgEmailServerRepository } from '../pg/pg-email-server.repository';
import type { SecretBox } from '../secrets/secret-box';

export class SystemMailUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SystemMailUnavailable';
  }
}

/**
 * The installation's own email (docs/teams.md, The system sender): from MAILCAST_SYSTEM_FROM,
 * through the first active email server of the installation (the lowest id; under npm start
 * the capture server), with the same SMTP adapter the send engine uses. No tracking, no
 * unsubscribe: it is a message to one user about their account.
 */
export class SmtpSystemMail implements SystemMail {
  private readonly servers: PgEmailServerRepository;

  constructor(
    private readonly db: Knex,
    secrets: SecretBox,
    /** A mailer for one message: system email is rare, so no connection is kept open between them. */
    private readonly mailerFor: () => Mailer & { close(): Promise<void> },
    private readonly from: { name: string | null; email: string },
  ) {
    this.servers = new PgEmailServerRepository(db, secrets);
  }

  private async server(): Promise<EmailServer> {
    const first = (await this.db('email_servers').where({ active: true }).orderBy('id').select('id', 'channel_id').first()) as
      { id: string | number; channel_id: string | number } | undefined;
    const server = first === undefined ? null : await this.servers.findById(Number(first.channel_id), Number(first.id));
    if (server === null) throw new SystemMailUnavailable('no active email server to send the installation’s email through');
    return server;
  }

  async send(message: { to: string; subject: string; text: string; html?: string }): Promise<void> {
    const server = await this.server();
    const domain = this.from.email.split('@')[1] ?? 'localhost';
    const mailer = this.mailerFor();
    const outcome = await mailer
      .send(server, {
        messageId: `<${randomUUID()}@${domain}>`,
        from: { email: this.from.email, name: this.from.name },
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html ?? null,
      })
      .finally(() => mailer.close());
    if (outcome.kind !== 'accepted') throw new SystemMailUnavailable(`the email server refused the message: ${outcome.message}`);
  }
}

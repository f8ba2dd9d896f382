import type { EmailServer, EmailServerCopier } from '@mailcast/core';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { PgEmailServerRepository } from './pg-email-server.repository';

/**
 * Every setting a copy carries (docs/email-servers.md, "Copy to another channel"). The password
 * and the DKIM key are copied sealed, as stored: the column is the GCM associated data, and a
 * copy stays in the same column, so it opens as the original does and is never decrypted here.
 */
const COPIED = [
  'name',
  'host',
  'port',
  'tls',
  'username',
  'password',
  'from_email',
  'from_name',
  'active',
  'max_per_second',
  'max_per_minute',
  'max_per_hour',
  'max_per_day',
  'dkim_domain',
  'dkim_selector',
  'dkim_private_key',
  'bounce_domain',
] as const;

export class PgEmailServerCopier implements EmailServerCopier {
  private readonly servers: PgEmailServerRepository;

  constructor(
    private readonly db: Knex,
    secrets: SecretBox,
  ) {
    this.servers = new PgEmailServerRepository(db, secrets);
  }

  async channelOf(id: number): Promise<number | null> {
    const row = await this.db('email_servers').where({ id }).first<{ channel_id: string | number } | undefined>('channel_id');
    return row === undefined ? null : Number(row.channel_id);
  }

  async copy(id: number, sourceChannelId: number, targetChannelId: number): Promise<EmailServer | null> {
    const columns = COPIED.map((c) => `"${c}"`).join(', ');
    const { rows } = await this.db.raw<{ rows: { id: string | number }[] }>(
      `INSERT INTO email_servers (channel_id, ${columns}, created_at, updated_at)
       SELECT ?, ${columns}, now(), now() FROM email_servers WHERE id = ? AND channel_id = ?
       RETURNING id`,
      [targetChannelId, id, sourceChannelId],
    );
    const copied = rows[0];
    return copied === undefined ? null : this.servers.findById(targetChannelId, Number(copied.id));
  }
}

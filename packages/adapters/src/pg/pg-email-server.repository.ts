import type { EmailServer, EmailServerRepository, NewEmailServer } from '@mailcast/core';
import type { Knex } from 'knex';

interface EmailServerRow {
  id: number;
  channel_id: number;
  host: string;
  port: number;
  secure: boolean;
  username: string | null;
  password: string | null;
  from_email: string | null;
  from_name: string | null;
}

const toEmailServer = (row: EmailServerRow): EmailServer => ({
  id: row.id,
  channelId: row.channel_id,
  host: row.host,
  port: row.port,
  secure: row.secure,
  username: row.username,
  password: row.password,
  fromEmail: row.from_email,
  fromName: row.from_name,
});

export class PgEmailServerRepository implements EmailServerRepository {
  constructor(private readonly db: Knex) {}

  async create(server: NewEmailServer): Promise<EmailServer> {
    const [row] = await this.db<EmailServerRow>('email_servers')
      .insert({
        channel_id: server.channelId,
        host: server.host,
        port: server.port,
        secure: server.secure,
        username: server.username,
        password: server.password,
        from_email: server.fromEmail,
        from_name: server.fromName,
      })
      .returning('*');
    return toEmailServer(row as EmailServerRow);
  }

  async listForChannel(channelId: number): Promise<EmailServer[]> {
    const rows = await this.db<EmailServerRow>('email_servers').where({ channel_id: channelId }).orderBy('id');
    return rows.map(toEmailServer);
  }
}

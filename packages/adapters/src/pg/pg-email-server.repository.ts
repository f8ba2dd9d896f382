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
  max_per_second: number | null;
  max_per_minute: number | null;
  max_per_hour: number | null;
  max_per_day: number | null;
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
  maxPerSecond: row.max_per_second,
  maxPerMinute: row.max_per_minute,
  maxPerHour: row.max_per_hour,
  maxPerDay: row.max_per_day,
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
        max_per_second: server.maxPerSecond ?? null,
        max_per_minute: server.maxPerMinute ?? null,
        max_per_hour: server.maxPerHour ?? null,
        max_per_day: server.maxPerDay ?? null,
      })
      .returning('*');
    return toEmailServer(row as EmailServerRow);
  }

  async listForChannel(channelId: number): Promise<EmailServer[]> {
    const rows = await this.db<EmailServerRow>('email_servers').where({ channel_id: channelId }).orderBy('id');
    return rows.map(toEmailServer);
  }
}

import type { Channel, ChannelRepository, NewChannel } from '@mailcast/core';
import type { Knex } from 'knex';

interface ChannelRow {
  id: number;
  name: string;
  from_email: string | null;
  from_name: string | null;
  track_opens: boolean;
  track_clicks: boolean;
  created_at: Date;
}

const toChannel = (row: ChannelRow): Channel => ({
  id: row.id,
  name: row.name,
  fromEmail: row.from_email,
  fromName: row.from_name,
  trackOpens: row.track_opens,
  trackClicks: row.track_clicks,
  createdAt: row.created_at,
});

export class PgChannelRepository implements ChannelRepository {
  constructor(private readonly db: Knex) {}

  async create(channel: NewChannel): Promise<Channel> {
    const [row] = await this.db<ChannelRow>('channels')
      .insert({ name: channel.name, from_email: channel.fromEmail ?? null, from_name: channel.fromName ?? null })
      .returning('*');
    return toChannel(row as ChannelRow);
  }

  async findById(id: number): Promise<Channel | null> {
    const row = await this.db<ChannelRow>('channels').where({ id }).first();
    return row ? toChannel(row) : null;
  }

  async count(): Promise<number> {
    const row = await this.db('channels').count<{ count: number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }
}

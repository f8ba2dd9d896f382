import type { Channel, ChannelRepository, NewChannel } from '@mailcast/core';
import { channelSlug, type BrandKitPatch } from '@mailcast/domain';
import type { Knex } from 'knex';

interface ChannelRow {
  id: number;
  name: string;
  slug: string;
  from_email: string | null;
  from_name: string | null;
  track_opens: boolean;
  track_clicks: boolean;
  created_at: Date;
}

const toChannel = (row: ChannelRow): Channel => ({
  id: row.id,
  name: row.name,
  slug: row.slug,
  fromEmail: row.from_email,
  fromName: row.from_name,
  trackOpens: row.track_opens,
  trackClicks: row.track_clicks,
  createdAt: row.created_at,
});

export class PgChannelRepository implements ChannelRepository {
  constructor(private readonly db: Knex) {}

  /**
   * The slug is the name's (docs/archive.md, Channel slugs), with the next free `-<n>` when it is
   * taken. The unique index decides: a create that loses a race for a slug tries the next one,
   * each attempt in a savepoint so a caller's transaction survives the conflict.
   */
  async create(channel: NewChannel): Promise<Channel> {
    const base = channelSlug(channel.name);
    for (let attempt = 0; ; attempt += 1) {
      const slug = await this.freeSlug(base);
      try {
        const [row] = await this.db.transaction((trx) =>
          trx<ChannelRow>('channels')
            .insert({ name: channel.name, slug, from_email: channel.fromEmail ?? null, from_name: channel.fromName ?? null })
            .returning('*'),
        );
        return toChannel(row as ChannelRow);
      } catch (error) {
        const e = error as { code?: string; constraint?: string };
        if (e.code !== '23505' || e.constraint !== 'channels_slug' || attempt >= 20) throw error;
      }
    }
  }

  /** `base` when no channel has it, else `base-<n>` past the highest taken suffix. */
  private async freeSlug(base: string): Promise<string> {
    const rows = await this.db('channels').where('slug', base).orWhere('slug', '~', `^${base}-[0-9]{1,9}$`).pluck<string[]>('slug');
    if (!rows.includes(base)) return base;
    const highest = Math.max(1, ...rows.map((s) => Number(s.slice(base.length + 1)) || 0));
    return `${base}-${highest + 1}`;
  }

  async findBySlug(slug: string): Promise<Channel | null> {
    const row = await this.db<ChannelRow>('channels').where({ slug }).first();
    return row ? toChannel(row) : null;
  }

  async findById(id: number): Promise<Channel | null> {
    const row = await this.db<ChannelRow>('channels').where({ id }).first();
    return row ? toChannel(row) : null;
  }

  async findDesign(id: number, options: { forUpdate?: boolean } = {}): Promise<BrandKitPatch | null> {
    const query = this.db('channels').select('design').where({ id });
    const row = (await (options.forUpdate ? query.forUpdate() : query).first()) as { design: BrandKitPatch } | undefined;
    return row ? row.design : null;
  }

  async saveDesign(id: number, design: BrandKitPatch): Promise<boolean> {
    // Through JSON.stringify: knex would send a plain object's keys as columns otherwise.
    const updated = await this.db('channels')
      .where({ id })
      .update({ design: JSON.stringify(design) });
    return updated > 0;
  }

  async count(): Promise<number> {
    const row = await this.db('channels').count<{ count: number }[]>({ count: '*' }).first();
    return Number(row?.count ?? 0);
  }
}

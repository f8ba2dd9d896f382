import type { Broadcast, BroadcastArchive } from '@mailcast/core';
import type { Knex } from 'knex';
import { toBroadcast, type BroadcastRow } from './pg-broadcast.repository';

// docs/archive.md: a broadcast that went out to at least part of its audience is published.
const PUBLISHED_STATUSES = ['sent', 'partial_failure'];

/** The archive's reads on the partial index `broadcasts_archive` (channel_id, sent_at DESC, id DESC) WHERE archive. */
export class PgBroadcastArchive implements BroadcastArchive {
  constructor(private readonly db: Knex) {}

  private published(channelId: number) {
    return this.db<BroadcastRow>('broadcasts').where({ channel_id: channelId, archive: true }).whereIn('status', PUBLISHED_STATUSES).whereNotNull('sent_at');
  }

  async listPublished(channelId: number, limit: number): Promise<Broadcast[]> {
    const rows = await this.published(channelId)
      .orderBy([
        { column: 'sent_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map((row) => toBroadcast(row as BroadcastRow));
  }

  async findPublished(channelId: number, id: number): Promise<Broadcast | null> {
    const row = await this.published(channelId).where({ id }).first();
    return row ? toBroadcast(row as BroadcastRow) : null;
  }

  async setArchive(channelId: number, id: number, archive: boolean, now: Date): Promise<Broadcast | null> {
    const [row] = await this.db<BroadcastRow>('broadcasts')
      .where({ channel_id: channelId, id })
      .update({ archive, updated_at: now } as never)
      .returning('*');
    return row ? toBroadcast(row as BroadcastRow) : null;
  }
}

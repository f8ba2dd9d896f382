import type { SubscriberPurger } from '@mailcast/core';
import type { Knex } from 'knex';

/**
 * One batch of a purge (docs/subscribers.md, "Purge"): a single DELETE of at most `limit` rows,
 * its own transaction, so locks are held for one batch only. The rows are found through the
 * (channel_id, email) unique index, in no particular order: an ORDER BY id would walk the
 * primary key past every row already deleted. The foreign keys do the rest: segment
 * memberships, confirmations, recipients, enrolments, form submissions and transactionals
 * cascade; email events (the statistics) stay, their subscriber set to null.
 */
export class PgSubscriberPurger implements SubscriberPurger {
  constructor(private readonly db: Knex) {}

  async deleteBatch(channelId: number, limit: number): Promise<number> {
    const result = await this.db.raw<{ rowCount: number }>('DELETE FROM subscribers WHERE id IN (SELECT id FROM subscribers WHERE channel_id = ? LIMIT ?)', [
      channelId,
      limit,
    ]);
    return result.rowCount;
  }
}

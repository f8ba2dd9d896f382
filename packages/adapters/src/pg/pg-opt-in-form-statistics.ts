import type { OptInFormStatistics } from '@mailcast/core';
import type { Knex } from 'knex';
import { randomInt } from 'node:crypto';

/** Shards of opt_in_form_daily_statistics a count goes to (docs/opt-in-forms.md, "Storage"). */
export const FORM_STATISTICS_SHARDS = 8;

/**
 * Counts into one of FORM_STATISTICS_SHARDS rows per form and day, chosen at random, so
 * concurrent counts of one form rarely wait on one row lock; readers sum the shards.
 */
export class PgOptInFormStatistics implements OptInFormStatistics {
  constructor(private readonly db: Knex) {}

  async recordView(formId: number, visitor: string, day: string): Promise<{ unique: boolean }> {
    // One statement: the visitor row decides uniqueness (its primary key), and the counter row
    // gains a view, plus a unique view when that insert took place.
    const { rows } = await this.db.raw<{ rows: Array<{ unique_views: number }> }>(
      `WITH seen AS (
         INSERT INTO opt_in_form_visitors (form_id, day, visitor) VALUES (?, ?, ?)
         ON CONFLICT DO NOTHING RETURNING 1
       )
       INSERT INTO opt_in_form_daily_statistics AS s (form_id, day, shard, views, unique_views)
       VALUES (?, ?, ?, 1, (SELECT count(*) FROM seen))
       ON CONFLICT (form_id, day, shard) DO UPDATE
         SET views = s.views + 1, unique_views = s.unique_views + excluded.unique_views
       RETURNING (SELECT count(*) FROM seen)::int AS unique_views`,
      [formId, day, visitor, formId, day, randomInt(FORM_STATISTICS_SHARDS)],
    );
    return { unique: Number(rows[0]?.unique_views ?? 0) > 0 };
  }
}

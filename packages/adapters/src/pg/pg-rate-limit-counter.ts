import type { RateLimitCounter } from '@mailcast/core';
import type { Knex } from 'knex';

export class PgRateLimitCounter implements RateLimitCounter {
  constructor(private readonly db: Knex) {}

  /**
   * One statement, atomic under concurrency: the row is created, counted up, or reset when a
   * newer window starts. A stale window (an older window_start) never counts up.
   */
  async hit(tokenId: number, windowStart: Date): Promise<number> {
    const result = await this.db.raw<{ rows: Array<{ count: number }> }>(
      `INSERT INTO rate_limit_windows AS w (token_id, window_start, count) VALUES (?, ?, 1)
       ON CONFLICT (token_id) DO UPDATE SET
         count = CASE WHEN w.window_start = EXCLUDED.window_start THEN w.count + 1
                      WHEN w.window_start < EXCLUDED.window_start THEN 1
                      ELSE w.count END,
         window_start = GREATEST(w.window_start, EXCLUDED.window_start)
       RETURNING CASE WHEN window_start = ? THEN count ELSE 1 END AS count`,
      [tokenId, windowStart, windowStart],
    );
    return result.rows[0]?.count ?? 1;
  }
}

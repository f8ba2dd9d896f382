import type { RateLimitCounter } from '@mailcast/core';
import type { Knex } from 'knex';
import { RateLimiterPostgres } from 'rate-limiter-flexible';

/** The table of migration 20261130000002_rate_limit_counts (made there, never by the library). */
export const RATE_LIMIT_TABLE = 'rate_limit_counts';

/**
 * rate-limiter-flexible's PostgreSQL store on the api's own knex pool (docs/auth.md, Rate limit):
 * one named upsert per request, atomic under concurrency. A row is keyed by the token and the
 * window's start, so windows stay aligned to the clock's minutes (the Clock port decides which
 * window a request is in); it expires two windows after its first request, by the process's
 * clock, and the library deletes rows expired an hour ago every five minutes. Points are never
 * refused here: the decision, headers and Retry-After stay decideRateLimit's.
 */
export class PgRateLimitCounter implements RateLimitCounter {
  private limiter: RateLimiterPostgres | undefined;

  constructor(private readonly db: Knex) {}

  async hit(tokenId: number, windowStart: Date): Promise<number> {
    // Made with the first request, so a process that serves none keeps no clean-up timer.
    this.limiter ??= new RateLimiterPostgres({
      storeClient: this.db,
      storeType: 'knex',
      tableName: RATE_LIMIT_TABLE,
      tableCreated: true,
      keyPrefix: 'token',
      points: 2 ** 31 - 1,
      duration: 120,
    });
    return (await this.limiter.consume(`${tokenId}:${windowStart.getTime()}`)).consumedPoints;
  }
}

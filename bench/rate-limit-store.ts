/**
 * The request rate limit's store (docs/auth.md, Rate limit): the one-statement counter it had
 * against rate-limiter-flexible's RateLimiterPostgres.consume, in the same run, on the same
 * embedded PostgreSQL, over the same tokens; the library both on a pg Pool of its own and as
 * adopted (PgRateLimitCounter: on the api's knex pool, `storeType: 'knex'`).
 *
 *   npx ts-node --transpile-only -P bench/tsconfig.json bench/rate-limit-store.ts
 *
 * Each round times, alternating the order of the sides, N sequential calls and M calls 20 at a
 * time over TOKENS tokens; the figures are the medians over the rounds. RateLimiterPostgres is
 * keyed per token and clock minute, as the adapter keys it, to keep the windows aligned to the
 * minute that the X-RateLimit-Reset header and the tests rely on. The pg Pool side's table and
 * the baseline's are made here (UNLOGGED, as the migrations make theirs).
 */
import 'reflect-metadata';
import { rateLimitWindowStart } from '@mailcast/domain';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import type { Knex } from 'knex';
import { PgRateLimitCounter } from '../packages/adapters/src/pg/pg-rate-limit-counter';
import { openBenchPostgres, percentile, round } from './harness';

const ROUNDS = Number(process.env.BENCH_RATE_LIMIT_ROUNDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_RATE_LIMIT_SEQUENTIAL ?? 5_000);
const CONCURRENT = Number(process.env.BENCH_RATE_LIMIT_CONCURRENT ?? 20_000);
const CONCURRENCY = 20;
const TOKENS = 50;
const POOL_MAX = 10;

type Hit = (tokenId: number) => Promise<number>;

/**
 * The counter before rate-limiter-flexible (migration 20261122000100_rate_limits): one row per
 * token, counted up or reset in place by one knex.raw statement. Kept here as the baseline.
 */
class OneStatementCounter {
  constructor(private readonly db: Knex) {}

  async hit(tokenId: number, windowStart: Date): Promise<number> {
    const result = await this.db.raw<{ rows: Array<{ count: number }> }>(
      `INSERT INTO bench_rate_limit_windows AS w (token_id, window_start, count) VALUES (?, ?, 1)
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

interface Figures {
  p50: number;
  p99: number;
  perSecond: number;
}

/** `calls` calls of `hit`, `concurrency` at a time, tokens taken in turn: each call's time and the rate. */
async function timeCalls(hit: Hit, tokenIds: readonly number[], calls: number, concurrency: number): Promise<Figures> {
  const samples: number[] = new Array<number>(calls);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < calls; i = next++) {
      const start = process.hrtime.bigint();
      await hit(tokenIds[i % tokenIds.length]!);
      samples[i] = Number(process.hrtime.bigint() - start) / 1e6;
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { p50: percentile(samples, 50), p99: percentile(samples, 99), perSecond: calls / seconds };
}

const median = (values: readonly number[]) => percentile(values, 50);

async function main(): Promise<void> {
  const log = (m: string) => console.error(m);
  const postgres = await openBenchPostgres();
  const { url, db } = await postgres.context(log).database();
  const pool = new pg.Pool({ connectionString: url, max: POOL_MAX });
  try {
    const [channel] = await db('channels').insert({ name: 'bench' }).returning('id');
    const tokens = await db('api_tokens')
      .insert(
        Array.from({ length: TOKENS }, (_, i) => ({
          channel_id: channel.id,
          token_hash: Buffer.from(`bench-token-${i}`),
          token_prefix: 'bench',
          permissions: [],
        })),
      )
      .returning('id');
    const tokenIds = tokens.map((t: { id: number }) => Number(t.id));
    await db.raw(`CREATE UNLOGGED TABLE rate_limiter_flexible (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    await db.raw(`CREATE UNLOGGED TABLE bench_rate_limit_windows (
      token_id bigint PRIMARY KEY REFERENCES api_tokens(id) ON DELETE CASCADE, window_start timestamptz NOT NULL, count integer NOT NULL)`);

    const counter = new OneStatementCounter(db);
    const adopted = new PgRateLimitCounter(db);
    // Points high enough never to refuse: the decision stays ours (decideRateLimit), as with the counter.
    const limiter = new RateLimiterPostgres({
      storeClient: pool,
      tableName: 'rate_limiter_flexible',
      tableCreated: true,
      points: 1_000_000_000,
      duration: 120,
    });
    const windowKey = (tokenId: number) => `${tokenId}:${rateLimitWindowStart(new Date()).getTime()}`;
    const sides: Array<{ name: string; hit: Hit }> = [
      { name: 'one-statement counter (before)', hit: (tokenId) => counter.hit(tokenId, rateLimitWindowStart(new Date())) },
      {
        name: 'RateLimiterPostgres.consume on a pg Pool',
        hit: async (tokenId) => (await limiter.consume(windowKey(tokenId))).consumedPoints,
      },
      // As adopted: RateLimiterPostgres on the api's knex pool, in the migration's table.
      { name: 'PgRateLimitCounter.hit (RateLimiterPostgres on knex)', hit: (tokenId) => adopted.hit(tokenId, rateLimitWindowStart(new Date())) },
    ];
    // Warm both: connections opened, statements planned.
    for (const side of sides) await timeCalls(side.hit, tokenIds, 500, CONCURRENCY);

    const results = new Map<string, { sequential: Figures[]; concurrent: Figures[] }>(sides.map((s) => [s.name, { sequential: [], concurrent: [] }]));
    for (let r = 0; r < ROUNDS; r++) {
      // Alternate which side goes first, round by round.
      const order = r % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const sequential = await timeCalls(side.hit, tokenIds, SEQUENTIAL, 1);
        const concurrent = await timeCalls(side.hit, tokenIds, CONCURRENT, CONCURRENCY);
        results.get(side.name)!.sequential.push(sequential);
        results.get(side.name)!.concurrent.push(concurrent);
        log(
          `round ${r + 1} ${side.name}: sequential p50 ${round(sequential.p50, 3)} ms p99 ${round(sequential.p99, 3)} ms ${round(sequential.perSecond, 0)}/s; ` +
            `${CONCURRENCY} at a time p50 ${round(concurrent.p50, 3)} ms p99 ${round(concurrent.p99, 3)} ms ${round(concurrent.perSecond, 0)}/s`,
        );
      }
    }
    console.log(`Rate limit store, medians of ${ROUNDS} alternating rounds, ${TOKENS} tokens, pools of ${POOL_MAX} connections`);
    console.log(`| side | sequential (${SEQUENTIAL}) p50 ms | p99 ms | calls/s | ${CONCURRENCY} at a time (${CONCURRENT}) p50 ms | p99 ms | calls/s |`);
    console.log('|---|---|---|---|---|---|---|');
    for (const [name, { sequential, concurrent }] of results) {
      const m = (list: Figures[], key: keyof Figures, digits = 3) => round(median(list.map((f) => f[key])), digits);
      console.log(
        `| ${name} | ${m(sequential, 'p50')} | ${m(sequential, 'p99')} | ${m(sequential, 'perSecond', 0)} | ${m(concurrent, 'p50')} | ${m(concurrent, 'p99')} | ${m(concurrent, 'perSecond', 0)} |`,
      );
    }
  } finally {
    await pool.end();
    await postgres.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

/**
 * The request rate limit's store (docs/auth.md, Rate limit): our one-statement counter
 * (PgRateLimitCounter.hit) against rate-limiter-flexible's RateLimiterPostgres.consume, in the
 * same run, on the same embedded PostgreSQL, over the same tokens; the library both on a pg Pool
 * of its own and on the api's knex pool (`storeType: 'knex'`).
 *
 *   npx ts-node --transpile-only -P bench/tsconfig.json bench/rate-limit-store.ts
 *
 * Each round times, alternating the two sides, N sequential calls and M calls 20 at a time over
 * TOKENS tokens; the figures are the medians over the rounds. RateLimiterPostgres is keyed per
 * token and clock minute, as it would have to be to keep the windows aligned to the minute that
 * the X-RateLimit-Reset header and the tests rely on; its table is made here (UNLOGGED, as ours),
 * `tableCreated: true`, as a migration would make it.
 */
import 'reflect-metadata';
import { rateLimitWindowStart } from '@mailcast/domain';
import pg from 'pg';
import { RateLimiterPostgres } from 'rate-limiter-flexible';
import { PgRateLimitCounter } from '../packages/adapters/src/pg/pg-rate-limit-counter';
import { openBenchPostgres, percentile, round } from './harness';

const ROUNDS = Number(process.env.BENCH_RATE_LIMIT_ROUNDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_RATE_LIMIT_SEQUENTIAL ?? 5_000);
const CONCURRENT = Number(process.env.BENCH_RATE_LIMIT_CONCURRENT ?? 20_000);
const CONCURRENCY = 20;
const TOKENS = 50;
const POOL_MAX = 10;

type Hit = (tokenId: number) => Promise<number>;

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

    const counter = new PgRateLimitCounter(db);
    // Points high enough never to refuse: the decision stays ours (decideRateLimit), as with the counter.
    const limiter = new RateLimiterPostgres({
      storeClient: pool,
      tableName: 'rate_limiter_flexible',
      tableCreated: true,
      points: 1_000_000_000,
      duration: 120,
    });
    // The same, through the api's own knex pool (no second pool of connections per api process).
    const onKnex = new RateLimiterPostgres({
      storeClient: db,
      storeType: 'knex',
      tableName: 'rate_limiter_flexible',
      tableCreated: true,
      points: 1_000_000_000,
      duration: 120,
    });
    const windowKey = (tokenId: number) => `${tokenId}:${rateLimitWindowStart(new Date()).getTime()}`;
    const sides: Array<{ name: string; hit: Hit }> = [
      { name: 'PgRateLimitCounter.hit', hit: (tokenId) => counter.hit(tokenId, rateLimitWindowStart(new Date())) },
      {
        name: 'RateLimiterPostgres.consume',
        hit: async (tokenId) => (await limiter.consume(windowKey(tokenId))).consumedPoints,
      },
      { name: 'RateLimiterPostgres.consume on knex', hit: async (tokenId) => (await onKnex.consume(windowKey(tokenId))).consumedPoints },
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

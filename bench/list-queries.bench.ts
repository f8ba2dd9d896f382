import { subscriberMatchesQuery } from '@mailcast/adapters';
import type { SubscriberFilter } from '@mailcast/core';
import os from 'node:os';
import pg from 'pg';
import { jsonClient } from './api-process';
import { benchSubscribers, loadWithoutIndexes, percentile, round, type Bench, type BenchFigure } from './harness';
import { listApi, seededDatabase } from './subscribers.bench';

/**
 * Issue 41: two hundred different list queries of the kinds a person types, none repeated, at a
 * million subscribers (docs/subscribers.md, "Varied queries"). Sizes: BENCH_SUBSCRIBERS (or
 * LIST_QUERIES_BENCH_SIZE), LIST_QUERIES_BENCH_QUERIES, LIST_QUERIES_BENCH_SECONDS;
 * LIST_QUERIES_BENCH_DATABASE_URL reuses a database this seed filled.
 */
const QUERIES = Number(process.env.LIST_QUERIES_BENCH_QUERIES ?? 200);
const CLIENTS = 10;
const CONCURRENT_SECONDS = Number(process.env.LIST_QUERIES_BENCH_SECONDS ?? 10);
/** Untimed distinct queries first: the api process is fresh, a production one is warm. */
const WARMUP = 20;

const TAGS = ['news', 'vip', 'beta', 'eu', 'us', 'apac', 'trial', 'churn-risk', 'webinar', 'ebook', 'partner', 'press'];
const PLANS = ['free', 'pro', 'team', 'enterprise'];
/** Domains d1.test … d999.test, log-uniform: d1 holds 10% of the list, d10 1.4%, d100 0.14%, d999 0.015%. */
const DOMAINS = 999;

/**
 * Addresses `s<n>@d<k>.test` with skewed domains (above), 12 tags each held by one subscriber in
 * five, a plan (half free, a quarter pro, 15% team, 10% enterprise) and a score 0–99 in
 * custom_data, two years of sign-ups, one in ten inactive, 1% in another channel. Set-based, a
 * fixed random seed, indexes rebuilt from the migrations' definitions.
 */
export async function seedVaried(client: pg.Client, channelId: number, otherChannelId: number, size: number): Promise<void> {
  await loadWithoutIndexes(client, 'subscribers', async () => {
    await client.query('SELECT setseed(0.41)');
    await client.query(
      `INSERT INTO subscribers (channel_id, email, first_name, last_name, is_active, source, subscribed_at, created_at, tags, custom_data)
       SELECT CASE WHEN g % 100 = 0 THEN $2::bigint ELSE $1::bigint END,
              's' || g || '@d' || least($4::int, floor(exp(r1 * ln($4::float8 + 1)))::int) || '.test',
              'First' || g, 'Last' || g, random() < 0.9, 'import', ts, ts,
              -- "0 * g" correlates the subquery with the row, so it is drawn anew for each one.
              ARRAY(SELECT t FROM unnest($3::text[]) t WHERE random() < 0.2 + 0 * g),
              jsonb_build_object('plan', CASE WHEN r2 < 0.5 THEN 'free' WHEN r2 < 0.75 THEN 'pro' WHEN r2 < 0.9 THEN 'team' ELSE 'enterprise' END,
                                 'score', floor(random() * 100)::int)
       FROM generate_series(1, $5::int) g,
            LATERAL (SELECT random() AS r1, random() AS r2,
                            TIMESTAMPTZ '2024-12-01' + (g::float8 / $5) * interval '730 days' AS ts) t`,
      [channelId, otherChannelId, TAGS, DOMAINS, size],
    );
  });
}

/** A small deterministic generator (mulberry32), so every run asks the same queries. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (from: number, to: number) => from + Math.floor(next() * (to - from + 1));
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  // The domain a person types follows the list's own skew: big domains come up often.
  const domain = () => `d${Math.min(DOMAINS, Math.floor(Math.exp(next() * Math.log(DOMAINS + 1))))}.test`;
  return { int, pick, domain };
}

export const KINDS = [
  'address prefix + is_active',
  'domain + tag, page ≤ 30',
  'custom_data[score], page ≤ 30',
  'address suffix',
  'domain + tag + plan, page ≤ 50',
] as const;
type Kind = (typeof KINDS)[number];

/**
 * The issue's kinds in turn, each query's filter and page drawn from the seed; `seen` holds every
 * URL already asked in the run, and none is made twice.
 */
export function variedQueries(seed: number, size: number, seen: Set<string>): () => { kind: Kind; path: string; filter: SubscriberFilter } {
  const g = generator(seed);
  const page = (most: number) => (g.int(1, most) === 1 ? '' : `&page=${g.int(2, most)}`);
  const make: Record<Kind, () => [string, SubscriberFilter]> = {
    // A four-digit start of a local part (s4996 finds s4996, s49960…, s499600…).
    'address prefix + is_active': () => {
      const most = Math.min(9999, Math.max(10, Math.floor(size / 100)));
      const start = `s${g.int(Math.ceil(most / 10), most)}`;
      return [`email=${start}&is_active=true`, { emailContains: start, isActive: true }];
    },
    'domain + tag, page ≤ 30': () => {
      const [domain, tag] = [g.domain(), g.pick(TAGS)];
      return [`email=%40${domain}&tags[]=${tag}${page(30)}`, { emailContains: `@${domain}`, tags: [tag] }];
    },
    'custom_data[score], page ≤ 30': () => {
      const score = g.int(0, 99);
      return [`custom_data[score]=${score}${page(30)}`, { customData: { score } }];
    },
    // The end of a local part and the domain's first letter (156@d, 4156@d).
    'address suffix': () => {
      const end = g.int(100, 9999);
      return [`email=${end}%40d`, { emailContains: `${end}@d` }];
    },
    'domain + tag + plan, page ≤ 50': () => {
      const [domain, tag, plan] = [g.domain(), g.pick(TAGS), g.pick(PLANS)];
      return [`email=%40${domain}&tags[]=${tag}&custom_data[plan]=${plan}${page(50)}`, { emailContains: `@${domain}`, tags: [tag], customData: { plan } }];
    },
  };
  let turn = 0;
  return () => {
    const kind = KINDS[turn++ % KINDS.length]!;
    for (let attempt = 0; attempt < 10_000; attempt++) {
      const [query, filter] = make[kind]();
      const path = `/api/v1/subscribers.json?${query}`;
      if (seen.has(path)) continue;
      seen.add(path);
      return { kind, path, filter };
    }
    throw new Error(`no new query of the kind ${kind} left`);
  };
}

const take = <T>(next: () => T, count: number) => Array.from({ length: count }, next);

export const listQueriesBench: Bench = {
  name: 'list-queries',
  async run(context) {
    // Read when the bench runs, not when it is imported, so bench/run.ts may set BENCH_SUBSCRIBERS from its arguments first.
    const SIZE = benchSubscribers(1_000_000, 'LIST_QUERIES_BENCH_SIZE');
    const { url, db, channelId, close } = await seededDatabase(context, process.env.LIST_QUERIES_BENCH_DATABASE_URL, SIZE, seedVaried);
    const { boss, headers, api, base } = await listApi(url, db, channelId);
    const seen = new Set<string>();
    const warmup = take(variedQueries(1, SIZE, seen), WARMUP);
    const sequential = take(variedQueries(41, SIZE, seen), QUERIES);
    const concurrent = variedQueries(4141, SIZE, seen);
    const clients = Array.from({ length: CLIENTS }, () => jsonClient(headers));
    const samples = new Map<Kind, number[]>(KINDS.map((k) => [k, []]));
    const all: number[] = [];
    const nonEmpty = new Map<Kind, number>(KINDS.map((k) => [k, 0]));
    let loaded: { requests: number; seconds: number; latencies: number[]; errors: number };
    const load = os.loadavg()[0]!;
    const plans: string[] = [];
    try {
      const ask = async (client: (typeof clients)[number], path: string) => {
        const res = await client.get(`${base}${path}`);
        if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.body}`);
        return res.body;
      };
      for (const q of warmup) await ask(clients[0]!, q.path);
      context.log(`${sequential.length} distinct queries, one at a time`);
      for (const q of sequential) {
        const start = process.hrtime.bigint();
        const body = await ask(clients[0]!, q.path);
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        samples.get(q.kind)!.push(ms);
        all.push(ms);
        const answer = JSON.parse(body) as { subscribers: unknown[] };
        if (answer.subscribers.length > 0) nonEmpty.set(q.kind, nonEmpty.get(q.kind)! + 1);
      }
      context.log(`${CLIENTS} clients for ${CONCURRENT_SECONDS} s, each taking the next distinct query`);
      let errors = 0;
      const latencies: number[] = [];
      const deadline = Date.now() + CONCURRENT_SECONDS * 1000;
      const started = process.hrtime.bigint();
      await Promise.all(
        clients.map(async (client) => {
          while (Date.now() < deadline) {
            const q = concurrent();
            const start = process.hrtime.bigint();
            const res = await client.get(`${base}${q.path}`);
            latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
            if (res.status !== 200) errors++;
          }
        }),
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      loaded = { requests: latencies.length, seconds, latencies, errors };
      // Noise-free figures for the shared machine: the pages each kind's matches query touches.
      const pool = new pg.Pool({ connectionString: url, max: 1 });
      for (const kind of KINDS) {
        const q = sequential.find((s) => s.kind === kind)!;
        const { sql, bindings } = subscriberMatchesQuery(db, channelId, q.filter, 100_001).toSQL().toNative();
        const plan = (await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, [...bindings])).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
        const [, hit = '0', read = '0'] = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(plan) ?? [];
        const scans = [...new Set(plan.match(/(?:Bitmap Index|Index Only|Index|Seq) Scan (?:using |on )\w+/g) ?? [])].join(', ');
        plans.push(
          `${kind} (${q.path.split('?')[1]}): ${Number(hit) + Number(read)} pages (${read} read), ${/Heap Blocks: exact=(\d+)/.exec(plan)?.[1] ?? 0} of them by a bitmap heap scan, ${scans}`,
        );
      }
      await pool.end();
    } finally {
      for (const client of clients) client.close();
      await api.stop();
      await boss.stop({ graceful: false, close: true, wait: true });
      await close();
    }
    const p99 = percentile(all, 99);
    const rate = loaded.requests / loaded.seconds;
    const perKind: BenchFigure[] = KINDS.flatMap((kind) => [
      { metric: `${kind}: p50`, value: percentile(samples.get(kind)!, 50), unit: 'ms' },
      { metric: `${kind}: p99`, value: percentile(samples.get(kind)!, 99), unit: 'ms' },
    ]);
    return {
      title: `Varied list queries at ${SIZE.toLocaleString('en-US')} subscribers (issue 41)`,
      setup:
        `${SIZE.toLocaleString('en-US')} subscribers (99% in the listed channel) at 999 domains with a log-uniform skew (the largest a tenth of the list), 12 tags a fifth each, custom_data plan and score 0–99. ` +
        `${QUERIES} distinct GET /api/v1/subscribers.json queries, the issue's five kinds in turn, drawn from a fixed seed (no URL asked twice in the run), one at a time after ${WARMUP} distinct untimed ones, ` +
        `to the built api as its own process (NODE_ENV=production, rate limit off) over loopback through a keep-alive node:http client; then ${CLIENTS} clients for ${CONCURRENT_SECONDS} s, each taking the next query of a further distinct set. ` +
        `BENCH_SUBSCRIBERS (or LIST_QUERIES_BENCH_SIZE), LIST_QUERIES_BENCH_QUERIES, LIST_QUERIES_BENCH_SECONDS size the run; LIST_QUERIES_BENCH_DATABASE_URL reuses a database this seed filled.`,
      figures: [
        ...perKind,
        { metric: `all ${QUERIES}, sequential: p50`, value: percentile(all, 50), unit: 'ms' },
        { metric: `all ${QUERIES}, sequential: p99`, value: p99, unit: 'ms', target: 'p99 < 50 ms', met: p99 < 50 },
        {
          metric: `${CLIENTS} clients, all different: requests/s`,
          value: rate,
          unit: 'req/s',
          target: '>= 300 req/s',
          met: rate >= 300 && loaded.errors === 0,
        },
        { metric: `${CLIENTS} clients, all different: p99`, value: percentile(loaded.latencies, 99), unit: 'ms' },
      ],
      notes: [
        `Queries whose page had rows, per kind: ${KINDS.map((k) => `${k} ${nonEmpty.get(k)}/${samples.get(k)!.length}`).join(', ')}; a page past a filter's end is empty (its total still exact).`,
        `Matches query of each kind's first query (EXPLAIN ANALYZE, BUFFERS, after the run): ${plans.join('; ')}.`,
        `Concurrent run: ${loaded.requests} requests in ${round(loaded.seconds, 1)} s, ${loaded.errors} not 200.`,
        `One-minute load average at the start: ${round(load, 1)} on ${os.cpus().length} CPUs (the machine may be shared).`,
      ],
    };
  },
};

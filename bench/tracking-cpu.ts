/**
 * Issue 40's second Done-when half (docs/engagement.md, "What it costs"): the tracking routes'
 * CPU with machine classification against the same routes without it, in the same run.
 *
 * Two api processes on one database: the api as built, and the same build with
 * bench/unclassified-tracking.mjs preloaded, which takes out the bot list, the rules and the
 * click context query and nothing else. Each is driven with pixel loads and clicks of distinct
 * recipients (so every request is recorded, never a repeat inside the window) over one
 * keep-alive connection with a browser's agent, in alternating rounds (ABBA, so the machine's
 * load drifting over the run falls on both alike). Measured per route and configuration: the api
 * process's user + system CPU from /proc, and PostgreSQL's (the postmaster and its backends,
 * only the round's api being driven at the time).
 */
import type { Database } from '@mailcast/adapters';
import { classifyEngagement, trackingToken } from '@mailcast/domain';
import { isbot } from 'isbot';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { cpuSeconds, freePort, parentPid, round, serverCpuSeconds, type BenchFigure } from './harness';
import { startApi } from './statistics.bench';

/** Requests per route and configuration, over all rounds. */
const PER_ROUTE = Number(process.env.STATISTICS_BENCH_TRACKING_REQUESTS ?? 2_000);
// Eight rounds and a longer warm-up: with four rounds after 50 requests the open pixel, whose
// classification is the bot list and the rules alone (a few µs), read 1.13x in one run under load.
const ROUNDS = 8;
const WARMUP = 300;
const CEILING = 1.1;
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const PRELOAD = path.join(__dirname, 'unclassified-tracking.mjs');

type Route = 'open' | 'click';
type Config = 'classified' | 'bare';

interface Spent {
  api: number;
  db: number;
  requests: number;
}

/**
 * The public routes allow 300 requests a minute per client address (docs/security.md): each
 * request names a client of its own through X-Forwarded-For, believed from loopback only
 * (TRUSTED_PROXIES), as behind a reverse proxy. Both configurations pay for it alike.
 */
function hitter(port: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let n = 0;
  return (urlPath: string) =>
    new Promise<void>((resolve, reject) => {
      n++;
      const client = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
      http
        .get({ host: '127.0.0.1', port, path: urlPath, agent, headers: { 'user-agent': BROWSER, 'x-forwarded-for': client } }, (res) => {
          res.resume();
          res.on('end', () => (res.statusCode === 200 || res.statusCode === 302 ? resolve() : reject(new Error(`${urlPath}: ${res.statusCode}`))));
        })
        .on('error', reject);
    });
}

/** Microseconds of this process's CPU per call of `work`, over `runs` calls. */
function cpuPerCall(runs: number, work: () => unknown): number {
  const before = process.cpuUsage();
  for (let i = 0; i < runs; i++) work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / runs;
}

export async function trackingCpu(
  db: Database,
  url: string,
  broadcastId: number,
  log: (m: string) => void,
): Promise<{ figures: BenchFigure[]; notes: string[] }> {
  const secret = randomBytes(32);
  // A plain base64 secret is still read (pg-recipient-store: secrets sealed later are opened).
  await db('broadcasts')
    .where({ id: broadcastId })
    .update({ tracking_secret: secret.toString('base64') });
  const needed = 2 * 2 * (PER_ROUTE + WARMUP);
  // Recipients nobody has opened or clicked yet in the seed, so both configurations record the
  // same kind of first engagement (the aggregates' first-open path) for every request.
  const { rows } = await db.raw<{ rows: Array<{ id: number }> }>(
    `SELECT r.id FROM broadcast_recipients r
      WHERE r.broadcast_id = :broadcastId AND r.status = 'sent'
        AND NOT EXISTS (SELECT 1 FROM email_events e WHERE e.broadcast_id = :broadcastId AND e.type IN ('opened', 'clicked') AND e.recipient_id = r.id)
      ORDER BY r.id LIMIT :needed`,
    { broadcastId, needed },
  );
  if (rows.length < needed) throw new Error(`tracking CPU needs ${needed} unengaged recipients, the seed has ${rows.length}`);
  const [link] = await db('broadcast_links').where({ broadcast_id: broadcastId }).orderBy('id').limit(1).select('identifier');
  const pathOf = (route: Route, id: number) =>
    route === 'open' ? `/t/o/${trackingToken(secret, id)}` : `/t/c/${trackingToken(secret, id)}/${link.identifier}`;
  // Interleaved, so neither configuration gets the lower or the higher ids.
  const pool: Record<Config, Record<Route, number[]>> = { classified: { open: [], click: [] }, bare: { open: [], click: [] } };
  rows.forEach((r, i) => pool[i % 2 === 0 ? 'classified' : 'bare'][Math.floor(i / 2) % 2 === 0 ? 'open' : 'click'].push(r.id));

  const postmaster = parentPid(Number((await db.raw<{ rows: Array<{ pid: number }> }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
  const ports: Record<Config, number> = { classified: await freePort(), bare: await freePort() };
  // One key for both: the first to read the plain secret seals it, and the other must open it.
  const key = { MAILCAST_SECRET_KEY: process.env.MAILCAST_SECRET_KEY ?? randomBytes(32).toString('base64'), TRUSTED_PROXIES: '127.0.0.1' };
  const classified = await startApi(url, ports.classified, key);
  const bare = await startApi(url, ports.bare, { ...key, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${PRELOAD}`.trim() });
  const apis = { classified, bare };
  const spent: Record<Config, Record<Route, Spent>> = {
    classified: { open: { api: 0, db: 0, requests: 0 }, click: { api: 0, db: 0, requests: 0 } },
    bare: { open: { api: 0, db: 0, requests: 0 }, click: { api: 0, db: 0, requests: 0 } },
  };
  /** Each round's api CPU ratio, classified / without, per route: how much the rounds agree. */
  const roundRatios: Record<Route, number[]> = { open: [], click: [] };
  try {
    const hits = { classified: hitter(ports.classified), bare: hitter(ports.bare) };
    for (const config of ['classified', 'bare'] as const) {
      for (const route of ['open', 'click'] as const) for (const id of pool[config][route].splice(0, WARMUP)) await hits[config](pathOf(route, id));
    }
    const perRound = Math.floor(PER_ROUTE / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      const order: Config[] = round % 2 === 0 ? ['classified', 'bare'] : ['bare', 'classified'];
      for (const route of ['open', 'click'] as const) {
        const apiThisRound: Partial<Record<Config, number>> = {};
        for (const config of order) {
          const ids = pool[config][route].splice(0, perRound);
          const pid = apis[config].pid!;
          const [api0, db0] = [cpuSeconds(pid), serverCpuSeconds(postmaster)];
          for (const id of ids) await hits[config](pathOf(route, id));
          const s = spent[config][route];
          apiThisRound[config] = cpuSeconds(pid) - api0;
          s.api += apiThisRound[config];
          s.db += serverCpuSeconds(postmaster) - db0;
          s.requests += ids.length;
        }
        roundRatios[route].push(apiThisRound.classified! / apiThisRound.bare!);
      }
      log(`tracking CPU round ${round + 1}/${ROUNDS} done`);
    }
  } finally {
    for (const child of [classified, bare]) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }

  const ms = (s: Spent, part: 'api' | 'db' | 'both') => ((part === 'both' ? s.api + s.db : s[part]) * 1000) / s.requests;
  const figures: BenchFigure[] = [];
  for (const route of ['open', 'click'] as const) {
    const name = route === 'open' ? 'open pixel GET' : 'click redirect GET';
    const [withIt, without] = [spent.classified[route], spent.bare[route]];
    const ratio = ms(withIt, 'api') / ms(without, 'api');
    figures.push(
      { metric: `tracking ${name}: api CPU per request, classified`, value: ms(withIt, 'api'), unit: 'ms', ceiling: ms(without, 'api') },
      { metric: `tracking ${name}: api CPU classified / without`, value: ratio, unit: '×', target: `≤ ${CEILING}`, met: ratio <= CEILING },
      { metric: `tracking ${name}: api + PostgreSQL CPU classified / without`, value: ms(withIt, 'both') / ms(without, 'both'), unit: '×' },
    );
  }
  const at = new Date();
  const classifyUs = cpuPerCall(20_000, () =>
    classifyEngagement({
      kind: 'click',
      method: 'GET',
      userAgent: BROWSER,
      isKnownBot: isbot(BROWSER),
      deliveredAt: at,
      at,
      linkId: 1,
      linkCount: 20,
      earlierClicks: [],
    }),
  );
  figures.push({ metric: 'for scale, in this process: bot list + rules per request', value: classifyUs, unit: 'µs' });
  const notes = [
    `Tracking CPU, each round's api ratio classified / without: pixel ${roundRatios.open.map((r) => round(r, 2)).join(', ')}; click ${roundRatios.click.map((r) => round(r, 2)).join(', ')}.`,
    `Tracking CPU: ${PER_ROUTE} pixel loads and ${PER_ROUTE} clicks per configuration, of distinct recipients with no engagement yet, in ${ROUNDS} alternating rounds (ABBA) after ${WARMUP} warm-up requests of each, one keep-alive connection with a browser's agent and a client address of its own per request (X-Forwarded-For from a trusted loopback proxy: the public routes' per-address limit). Two api processes on the one database: as built, and the same build with bench/unclassified-tracking.mjs preloaded (no bot list, no rules, no click context query; machine recorded as null as before issue 40). CPU is user + system from /proc (10 ms ticks): the api process's, and PostgreSQL's (postmaster, its backends and those that exited: serverCpuSeconds) while only that configuration was driven.`,
  ];
  return { figures, notes };
}

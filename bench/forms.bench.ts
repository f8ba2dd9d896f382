import { createBoss, pgRepositories, SecretBox } from '@mailcast/adapters';
import { BLOCK_DEFAULTS, OPT_IN_FORM_DEFAULTS } from '@mailcast/core';
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { startProcess, stop } from './api-load.bench';
import { cpuSeconds, freePort, parentPid, percentile, round, serverCpuSeconds, timeEach, type Bench, type BenchFigure } from './harness';
import { startQueryCounter } from './pg-query-counter';

const CONNECTIONS = 50;
const SECONDS = Number(process.env.FORMS_BENCH_SECONDS ?? 10);
/** Rounds of (bare, api) under load, alternated so drift in a shared machine's load hits both. */
const ROUNDS = Number(process.env.FORMS_BENCH_ROUNDS ?? 2);
const SEQUENTIAL = Number(process.env.FORMS_BENCH_SEQUENTIAL ?? 1000);
const FLOOD = Number(process.env.FORMS_BENCH_FLOOD ?? 20_000);
const EMBED_LIMIT_BYTES = 15 * 1024;
/** Extra node flags for the measured api process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
const API_ARGS = (process.env.FORMS_BENCH_API_ARGS ?? '').split(' ').filter((a) => a !== '');

/** Namespace URIs are names, never fetched: the only absolute URLs an embed script may hold. */
const NAMESPACES = new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xhtml', 'http://www.w3.org/1999/xlink']);

/** A lean keep-alive POST client for the sequential run (the measuring instrument, not the api). */
function jsonPoster() {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const post = (url: string, body: string, headers: http.OutgoingHttpHeaders) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  return { post, close: () => agent.destroy() };
}

/** Each request a new visitor: a new address, and a client address of its own (TRUSTED_PROXIES believes X-Forwarded-For). */
function visitor(n: number, tag: string) {
  const address = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
  const body = JSON.stringify({
    email: `${tag}-${process.pid}-${n}@visitors.example`,
    first_name: `Visitor ${n}`,
    custom_data: { company: 'Bench' },
    website: '',
    rendered_at: Date.now() - 10_000,
    visitor_id: `v${n}`,
  });
  return { body, headers: { 'x-forwarded-for': address, 'content-type': 'application/json' } };
}

/** The statements committed and rolled back in one database so far (pg_stat_database, read from the admin database). */
async function transactions(admin: pg.Client, database: string): Promise<number> {
  // The cumulative statistics are flushed by each backend at most once a second: wait them in.
  await sleep(1500);
  await admin.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await admin.query<{ n: string }>('SELECT (xact_commit + xact_rollback)::text AS n FROM pg_stat_database WHERE datname = $1', [database]);
  return Number(rows[0]!.n);
}

/**
 * Issue 36: opt-in form submissions through the real api process (`POST /f/:identifier/submit`)
 * beside a bare node:http + pg handler making the same reads and writes, 50 connections; a flood
 * from one address, with the api's statements counted on the wire; the embed script's size.
 */
export const formsBench: Bench = {
  name: 'forms',
  async run(context) {
    const { url, db } = await context.database();
    const boss = createBoss(url, 'api');
    await boss.start();
    const secretKey = randomBytes(32);
    const repositories = pgRepositories(db, boss, new SecretBox(secretKey));
    const channel = await repositories.channels.create({ name: 'Forms' });
    const emptyBlock = BLOCK_DEFAULTS;
    // The defaults' protections stay on (honeypot, minimum time, per-address limit): the bench's
    // visitors pass them as real ones would, each from an address of its own.
    const form = await repositories.optInForms.create(
      channel.id,
      {
        ...OPT_IN_FORM_DEFAULTS,
        automationSettings: { ...OPT_IN_FORM_DEFAULTS.automationSettings, tagList: ['bench'] },
        label: 'Bench form',
        formType: 'embed',
        widgetType: 'inline_embed',
        enabled: true,
        allowedEmbeddingDomains: [],
        confirmationEmailTemplateId: null,
        welcomeEmailTemplateId: null,
        confirmationRedirectUrl: null,
        includeUnsubscribeLinkInConfirmation: true,
        identifier: randomUUID(),
        parentFormId: null,
        variantName: null,
        variantWeight: 50,
        formBlocks: [
          { ...emptyBlock, blockType: 'input_field', position: 0, inputFieldValueType: 'email', required: true, inputFieldLabel: 'Email' },
          { ...emptyBlock, blockType: 'input_field', position: 1, inputFieldValueType: 'first_name', inputFieldLabel: 'First name' },
          { ...emptyBlock, blockType: 'button', position: 2 },
        ],
        postSubmissionBlocks: [{ ...emptyBlock, blockType: 'text', position: 0, textValue: 'Thank you!' }],
      },
      new Date(),
    );
    await boss.stop({ graceful: false, close: true, wait: true });
    const path = `/f/${form.identifier}/submit`;

    const env = {
      DATABASE_URL: url,
      NODE_ENV: 'production',
      MAILCAST_SECRET_KEY: secretKey.toString('base64'),
      RATE_LIMIT_PER_MINUTE: '0',
      LOG_LEVEL: 'error',
      TRUSTED_PROXIES: '127.0.0.1',
    };
    const apiPort = await freePort();
    const barePort = await freePort();
    const api = await startProcess('apps/api/dist/main.js', { ...env, PUBLIC_URL: `http://127.0.0.1:${apiPort}` }, apiPort, API_ARGS);
    const bare = await startProcess('bench/bare-form-submit.mjs', { DATABASE_URL: url }, barePort);
    const figures: BenchFigure[] = [];
    const notes: string[] = [];
    const loads: number[] = [];
    let flooded: ChildProcess | undefined;
    let bareRunning = true;
    const poster = jsonPoster();
    try {
      // --- 1. Submissions at 50 connections, api against the bare handler ------------------------
      let n = 0;
      const submissions = (port: number, tag: string): autocannon.Options => ({
        url: `http://127.0.0.1:${port}${path}`,
        method: 'POST',
        connections: CONNECTIONS,
        duration: SECONDS,
        requests: [
          {
            setupRequest: (request) => {
              const v = visitor(++n, tag);
              return { ...request, body: v.body, headers: { ...request.headers, ...v.headers } };
            },
          },
        ],
      });
      // CPU per submission from /proc, for the side measured, PostgreSQL (postmaster and every
      // backend, reaped ones included) and this process (autocannon): the machine's speed
      // drifts between runs, the work a submission costs does not.
      const postmaster = parentPid(Number((await db.raw<{ rows: Array<{ pid: number }> }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid));
      const run = async (port: number, tag: string, seconds = SECONDS) => {
        const side = port === apiPort ? api : bare;
        const before = { server: cpuSeconds(side.pid!), pg: serverCpuSeconds(postmaster), client: process.cpuUsage() };
        const result = await autocannon({ ...submissions(port, tag), duration: seconds });
        const requests = Math.max(1, result.requests.total);
        const usPer = (cpu: number) => (cpu * 1e6) / requests;
        const client = process.cpuUsage(before.client);
        return {
          rps: result.requests.average,
          p99: result.latency.p99,
          p50: result.latency.p50,
          errors: result.errors + result.timeouts + result.non2xx,
          cpu: {
            server: usPer(cpuSeconds(side.pid!) - before.server),
            pg: usPer(serverCpuSeconds(postmaster) - before.pg),
            client: usPer((client.user + client.system) / 1e6),
          },
        };
      };
      context.log('warming both sides (3 s each)');
      await run(barePort, 'warm-bare', 3);
      await run(apiPort, 'warm-api', 3);
      const apiRuns: Array<Awaited<ReturnType<typeof run>>> = [];
      const bareRuns: Array<Awaited<ReturnType<typeof run>>> = [];
      for (let r = 0; r < ROUNDS; r++) {
        context.log(`round ${r + 1}: bare handler, then api, ${CONNECTIONS} connections for ${SECONDS} s each`);
        bareRuns.push(await run(barePort, `bare${r}`));
        apiRuns.push(await run(apiPort, `api${r}`));
        context.log(
          `round ${r + 1}: api ${round(apiRuns[r]!.rps)} req/s p99 ${apiRuns[r]!.p99} ms; bare ${round(bareRuns[r]!.rps)} req/s p99 ${bareRuns[r]!.p99} ms`,
        );
        loads.push(os.loadavg()[0]!);
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const cpuOf = (x: (typeof apiRuns)[number]) => `${Math.round(x.cpu.server)} / ${Math.round(x.cpu.pg)} / ${Math.round(x.cpu.client)}`;
      const apiRps = mean(apiRuns.map((x) => x.rps));
      const bareRps = mean(bareRuns.map((x) => x.rps));
      const apiP99 = Math.max(...apiRuns.map((x) => x.p99));
      const errors = [...apiRuns, ...bareRuns].reduce((a, x) => a + x.errors, 0);
      figures.push(
        {
          metric: `submissions, ${CONNECTIONS} connections: requests/s`,
          value: apiRps,
          unit: 'req/s',
          ceiling: bareRps,
          target: '>= 0.7x the bare handler',
          met: apiRps >= 0.7 * bareRps,
        },
        {
          metric: `submissions, ${CONNECTIONS} connections: p99 latency (worst round)`,
          value: apiP99,
          unit: 'ms',
          ceiling: Math.max(...bareRuns.map((x) => x.p99)),
          target: 'p99 < 50 ms',
          met: apiP99 < 50,
        },
        {
          metric: `submissions, ${CONNECTIONS} connections: p50 latency`,
          value: mean(apiRuns.map((x) => x.p50)),
          unit: 'ms',
          ceiling: mean(bareRuns.map((x) => x.p50)),
        },
        { metric: 'submissions: errors and non-2xx answers', value: errors, unit: '', target: '0', met: errors === 0 },
        {
          metric: `submissions, ${CONNECTIONS} connections: server CPU per submission (api / bare handler)`,
          value: mean(apiRuns.map((x) => x.cpu.server)),
          unit: 'us',
          ceiling: mean(bareRuns.map((x) => x.cpu.server)),
        },
        {
          metric: `submissions, ${CONNECTIONS} connections: PostgreSQL CPU per submission (api / bare handler)`,
          value: mean(apiRuns.map((x) => x.cpu.pg)),
          unit: 'us',
          ceiling: mean(bareRuns.map((x) => x.cpu.pg)),
        },
      );
      notes.push(
        `Rounds at ${CONNECTIONS} connections (api / bare req/s): ${apiRuns.map((a, i) => `${round(a.rps)} / ${round(bareRuns[i]!.rps)}`).join('; ')}; p99 ${apiRuns.map((a, i) => `${a.p99} / ${bareRuns[i]!.p99} ms`).join('; ')}; ` +
          `CPU per submission in microseconds, server / PostgreSQL / load generator: ${apiRuns.map((a, i) => `api ${cpuOf(a)}, bare ${cpuOf(bareRuns[i]!)}`).join('; ')}.`,
      );

      // One visitor at a time: the latency of a submission without queueing behind 49 others.
      let s = 0;
      const sequential = async (port: number, tag: string) =>
        timeEach(SEQUENTIAL, async () => {
          const v = visitor(++s, tag);
          const res = await poster.post(`http://127.0.0.1:${port}${path}`, v.body, v.headers);
          if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${res.body}`);
        });
      context.log(`${SEQUENTIAL} sequential submissions on each side`);
      const bareSeq = await sequential(barePort, 'seq-bare');
      const apiSeq = await sequential(apiPort, 'seq-api');
      const seqP99 = percentile(apiSeq, 99);
      figures.push(
        { metric: 'one visitor at a time: p50 latency', value: percentile(apiSeq, 50), unit: 'ms', ceiling: percentile(bareSeq, 50) },
        { metric: 'one visitor at a time: p99 latency', value: seqP99, unit: 'ms', ceiling: percentile(bareSeq, 99), target: 'p99 < 50 ms', met: seqP99 < 50 },
      );
      const counted = (await db('opt_in_form_daily_statistics').where({ form_id: form.id }).sum('submissions as n').first()) as { n: string };
      const subscribed = (await db('subscribers').where({ channel_id: channel.id, source: 'opt_in_form' }).count('* as n').first()) as { n: string };
      notes.push(
        `The api's submissions wrote ${subscribed.n} opt_in_form subscribers (with the bare handler's) and counted ${counted.n} submissions in the daily statistics.`,
      );
      await stop(bare);
      bareRunning = false;

      // --- 2. A flood from one address, the api's statements counted on the wire ---------------------
      const target = new URL(url);
      const counter = await startQueryCounter({ host: target.hostname, port: Number(target.port || 5432) });
      const proxied = new URL(url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(counter.port);
      const floodPort = await freePort();
      flooded = await startProcess(
        'apps/api/dist/main.js',
        { ...env, DATABASE_URL: proxied.toString(), PUBLIC_URL: `http://127.0.0.1:${floodPort}` },
        floodPort,
      );
      const admin = new pg.Client({ connectionString: Object.assign(new URL(url), { pathname: '/postgres' }).toString() });
      await admin.connect();
      try {
        const database = target.pathname.slice(1);
        // Start-up's own statements are over before the count begins.
        await sleep(2000);
        // Statements per accepted submission, one visitor at a time (the first reads the form; the others find it in memory).
        const counted = 100;
        const first = counter.queries();
        let c = 0;
        for (let i = 0; i < counted; i++) {
          const v = visitor(++c, 'counted');
          const res = await poster.post(`http://127.0.0.1:${floodPort}${path}`, v.body, v.headers);
          if (res.status !== 200) throw new Error(`submit answered ${res.status}: ${res.body}`);
        }
        const perSubmission = (counter.queries() - first) / counted;
        figures.push({ metric: `statements per accepted submission (${counted}, one at a time)`, value: perSubmission, unit: 'statements' });
        context.log(`statements per accepted submission: ${perSubmission}`);
        const before = { queries: counter.queries(), xacts: await transactions(admin, database) };
        let f = 0;
        const statuses = new Map<number, number>();
        context.log(`flood: ${FLOOD} submissions from one address`);
        const result = await autocannon({
          url: `http://127.0.0.1:${floodPort}${path}`,
          method: 'POST',
          connections: CONNECTIONS,
          amount: FLOOD,
          requests: [
            {
              setupRequest: (request) => {
                const v = visitor(++f, 'flood');
                return { ...request, body: v.body, headers: { ...request.headers, ...v.headers, 'x-forwarded-for': '198.51.100.23' } };
              },
              onResponse: (status: number) => void statuses.set(status, (statuses.get(status) ?? 0) + 1),
            },
          ],
        });
        const after = { queries: counter.queries(), xacts: await transactions(admin, database) };
        const refused = statuses.get(429) ?? 0;
        const queries = after.queries - before.queries;
        const perHundred = refused === 0 ? Number.NaN : (queries * 100) / refused;
        figures.push(
          { metric: `flood of ${FLOOD.toLocaleString('en-US')} from one address: refused (429)`, value: refused, unit: 'requests' },
          { metric: 'flood: statements the api sent to PostgreSQL', value: queries, unit: 'statements' },
          {
            metric: 'flood: statements per 100 refused',
            value: perHundred,
            unit: '',
            target: '<= 1',
            met: perHundred <= 1,
          },
        );
        const answers = [...statuses.entries()]
          .sort((a, b) => a[0] - b[0])
          .map(([status, count]) => `${status} x ${count}`)
          .join(', ');
        notes.push(
          `Flood answers: ${answers} (${result.errors} connection errors, ${round(result.requests.average)} req/s). ` +
            'The api process of the flood reached PostgreSQL through a counting proxy (bench/pg-query-counter.ts: every Query and Execute message), so its count is exact; ' +
            `pg_stat_database's committed and rolled back transactions of the database over the same span: ${after.xacts - before.xacts}.`,
        );

        // --- 3. The embed script ---------------------------------------------------------------------
        const embed = await fetch(`http://127.0.0.1:${floodPort}/f/${form.identifier}/embed.js`);
        const script = Buffer.from(await embed.arrayBuffer());
        const gzipped = gzipSync(script, { level: 9 }).length;
        const text = script.toString('utf8');
        const absolute = [...new Set(text.match(/\bhttps?:\/\/[^\s"'`)<>\\]+/g) ?? [])].filter((u) => !NAMESPACES.has(u));
        const protocolRelative = [...new Set(text.match(/["'`(]\/\/[a-z0-9.-]+\.[a-z]{2,}/gi) ?? [])];
        const hosts = [...absolute, ...protocolRelative];
        figures.push(
          {
            metric: 'embed script (status ' + embed.status + '): gzipped size',
            value: gzipped / 1024,
            unit: 'KB',
            target: '< 15 KB',
            met: embed.status === 200 && gzipped < EMBED_LIMIT_BYTES,
          },
          { metric: 'embed script: references to other hosts', value: hosts.length, unit: '', target: '0', met: embed.status === 200 && hosts.length === 0 },
        );
        notes.push(
          `Embed script: ${script.length} bytes, ${gzipped} gzipped (zlib level 9)${embed.headers.get('content-encoding') ? `, served with Content-Encoding ${embed.headers.get('content-encoding')}` : ''}; absolute or protocol-relative URLs in it other than XML namespace names: ${hosts.length === 0 ? 'none' : hosts.join(', ')}.`,
        );
      } finally {
        await admin.end();
        await stop(flooded);
        flooded = undefined;
        await counter.close();
      }
      notes.push(
        `One-minute load average after each round: ${loads.map((l) => round(l, 1)).join(', ')} on ${os.cpus().length} CPUs (the machine may be shared).`,
      );
    } finally {
      poster.close();
      if (flooded) await stop(flooded);
      if (bareRunning) await stop(bare);
      await stop(api);
    }
    return {
      title: 'Opt-in form submissions (issue 36)',
      setup:
        `POST /f/:identifier/submit (JSON: email, first_name, custom_data, honeypot empty, rendered_at 10 s before) to the built api as its own process (NODE_ENV=production, log level error, TRUSTED_PROXIES=127.0.0.1), ` +
        `each request a new address from its own X-Forwarded-For address, on a form with the default protections and one tag, without double opt-in; ` +
        `beside a bare node:http + pg handler (bench/bare-form-submit.mjs) making the same reads (the form and its blocks) and writes (subscriber, its event, the sharded counter) in one transaction. ` +
        `autocannon, ${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s per side after 3 s of warm-up each, with the CPU per submission of the side measured, of PostgreSQL (postmaster and backends) and of the load generator, from /proc; then ${SEQUENTIAL} submissions one at a time per side. ` +
        `Flood: ${FLOOD.toLocaleString('en-US')} submissions from one X-Forwarded-For address at ${CONNECTIONS} connections to a second api process whose PostgreSQL connections go through a statement-counting proxy. ` +
        `Embed script: GET /f/:identifier/embed.js, gzipped at level 9, searched for URLs. Sizes: FORMS_BENCH_SECONDS, FORMS_BENCH_ROUNDS, FORMS_BENCH_SEQUENTIAL, FORMS_BENCH_FLOOD.`,
      figures,
      notes,
    };
  },
};

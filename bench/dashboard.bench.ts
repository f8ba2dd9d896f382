/**
 * Issue 38: every dashboard page that lists or shows data has its first meaningful render within
 * 1 s at 1,000,000 subscribers and a 1,000,000-recipient broadcast (docs/dashboard.md, "Benchmark").
 * Measured in the browser the tests use (the @sparticuz/chromium package driven by
 * puppeteer-core), signed in as a sudo user with a password (the session cookie, as a user is):
 * from the start of the navigation to a page until its "meaningful render" selector first matches
 * (recorded inside the page by a MutationObserver, so puppeteer's polling adds nothing), each run
 * in a fresh browser context (nothing cached), against the real api process over loopback.
 *
 * The data: the statistics benchmark's 1,000,000 subscribers and one sent broadcast to all of
 * them with 3,000,000 events, plus, through the API, a few topics, a sequence with steps, a form,
 * a webhook endpoint and users, so every page has something to show. Another page is one line of
 * PAGES.
 */
import { Argon2PasswordHasher, createDatabase, migrate, PgApiTokenRepository, type Database } from '@mailcast/adapters';
import { apiTokenPrefix, apiTokenSuffix, CHANNEL_PERMISSIONS, formatApiToken, hashApiToken } from '@mailcast/domain';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { freePort, percentile, round, type Bench, type BenchContext, type BenchFigure } from './harness';
import { seed, startApi } from './statistics.bench';
import { launchBrowser } from '../apps/dashboard/src/test-support/browser';

const RECIPIENTS = Number(process.env.STATISTICS_BENCH_RECIPIENTS ?? 1_000_000);
const RUNS = Number(process.env.DASHBOARD_BENCH_RUNS ?? 10);
const TARGET_MS = 1000;
const BUDGET_KB = 150;

/** What the seed made, for the pages' paths. */
export interface Seeded {
  broadcastId: number;
  subscriberEmail: string;
  sequenceId: number;
  formId: number;
  webhookId: number;
  userId: number;
  emailServerId: number;
  templateId: number;
  segmentId: number;
}

/**
 * One page: its name, its path under /app, and the selector that means its first meaningful
 * render (the data drawn, not a spinner). Add a page with one line.
 */
export interface DashboardPage {
  name: string;
  path(seeded: Seeded): string;
  ready: string;
}

export const PAGES: readonly DashboardPage[] = [
  { name: 'broadcasts', path: () => '/broadcasts', ready: 'tr[data-broadcast] .badge' },
  { name: 'broadcast', path: (s) => `/broadcasts/${s.broadcastId}`, ready: '.live[data-status=sent]' },
  { name: 'statistics', path: (s) => `/broadcasts/${s.broadcastId}/statistics`, ready: '.chart[data-drawn=true] canvas' },
  { name: 'subscribers', path: () => '/subscribers', ready: 'table.subscribers tbody tr' },
  { name: 'subscriber', path: (s) => `/subscribers/show?${new URLSearchParams({ email: s.subscriberEmail })}`, ready: 'dd[data-active]' },
  { name: 'topics', path: () => '/topics', ready: 'tr[data-topic]' },
  { name: 'sequences', path: () => '/sequences', ready: 'tr[data-sequence]' },
  { name: 'sequence', path: (s) => `/sequences/${s.sequenceId}`, ready: 'ol.tree li[data-action]' },
  { name: 'forms', path: () => '/forms', ready: 'tr[data-form]' },
  { name: 'form', path: (s) => `/forms/${s.formId}`, ready: '.form-preview' },
  { name: 'webhooks', path: () => '/webhooks', ready: 'main table a' },
  { name: 'webhook', path: (s) => `/webhooks/${s.webhookId}`, ready: 'h1.url' },
  { name: 'users', path: () => '/users', ready: 'tr[data-user]' },
  { name: 'user', path: (s) => `/users/${s.userId}`, ready: 'main h1' },
  { name: 'audit log', path: () => '/audit-log', ready: 'table.audit-log tbody tr' },
  { name: 'email servers', path: () => '/email-servers', ready: 'tr[data-server]' },
  { name: 'email server', path: (s) => `/email-servers/${s.emailServerId}`, ready: '.email-server .facts' },
  { name: 'templates', path: () => '/templates', ready: 'tr[data-template]' },
  { name: 'template', path: (s) => `/templates/${s.templateId}`, ready: 'textarea[name=html_body]' },
  { name: 'segments', path: () => '/segments', ready: 'tr[data-segment]' },
  // The member count over the whole channel, and the first page of members.
  { name: 'segment', path: (s) => `/segments/${s.segmentId}`, ready: 'table.segment-members tbody tr' },
  { name: 'suppressions', path: () => '/suppressions', ready: 'table.suppressions tbody tr' },
  // No dispatcher runs in this bench, so the log is empty: the page's meaningful render is its empty state.
  { name: 'transactionals', path: () => '/transactionals', ready: 'table.transactionals, main .empty' },
  { name: 'settings', path: () => '/settings', ready: 'form.settings [name="reputation_guard.min_sent"]' },
];

/** The API as the seed calls it: with the channel token, failing on any refusal. */
function apiCaller(base: string, token: string) {
  return async (method: string, urlPath: string, body?: object): Promise<{ id: number }> => {
    const res = await fetch(`${base}/api/v1${urlPath}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${urlPath}: ${res.status} ${text}`);
    return JSON.parse(text) as { id: number };
  };
}

type Call = ReturnType<typeof apiCaller>;
const makeWebhook = (call: Call) =>
  call('POST', '/webhook_endpoints', { webhook_endpoint: { url: 'http://127.0.0.1:9/hooks', event_types: ['email.opened'] } });
const makeEmailServer = (call: Call) =>
  call('POST', '/email_servers', {
    email_server: { name: 'Relay', host: '127.0.0.1', port: 2525, tls: 'none', from_email: 'news@bench.example', max_per_second: 50 },
  });

/** The rest of the pages' data, made through the API as a user's actions would make it. */
async function seedPages(base: string, token: string, broadcastId: number, userId: number): Promise<Seeded> {
  const call = apiCaller(base, token);
  for (const [name, key] of [
    ['News', 'news'],
    ['Offers', 'offers'],
    ['Events', 'events'],
  ]) {
    await call('POST', '/topics', { topic: { name, custom_data_key: key } });
  }
  const sequence = await call('POST', '/sequences', { sequence: { label: 'Welcome' } });
  for (const subject of ['Welcome', 'Getting started', 'Tips'])
    await call('POST', `/sequences/${sequence.id}/steps`, { step: { subject, body: `<p>${subject}</p>` } });
  const form = await call('POST', '/opt_in_forms', { opt_in_form: { label: 'Newsletter' } });
  const webhook = await makeWebhook(call);
  const emailServer = await makeEmailServer(call);
  const template = await call('POST', '/templates', {
    template: { label: 'Monthly', subject: 'News for {{ subscriber.first_name }}', html_body: '<p>Hello {{ subscriber.first_name }}</p>' },
  });
  const segment = await call('POST', '/segments', {
    segment: { name: 'Bench addresses', rules: [{ field: 'email', operator: 'ends_with', value: '@bench.example' }] },
  });
  for (const email of ['gone1@bench.example', 'gone2@bench.example']) await call('POST', '/suppressions.json', { email });
  return {
    broadcastId,
    subscriberEmail: 'r1@bench.example',
    sequenceId: sequence.id,
    formId: form.id,
    webhookId: webhook.id,
    userId,
    emailServerId: emailServer.id,
    templateId: template.id,
    segmentId: segment.id,
  };
}

/**
 * The seeded database: a fresh one from the harness, or, with DASHBOARD_BENCH_DATABASE_URL, a
 * database an earlier run seeded (its channel "bench" and broadcast "Million"), seeded there on
 * the first run. A kept database keeps what the seed and the API made; a later run adds its pages'
 * data again (a few rows) and measures the same million subscribers without the seed's minutes.
 */
async function seededDatabase(context: BenchContext) {
  const reuse = process.env.DASHBOARD_BENCH_DATABASE_URL;
  const { url, db } = reuse !== undefined && reuse !== '' ? { url: reuse, db: createDatabase(reuse, { poolMax: 10 }) } : await context.database();
  if (reuse) await migrate(db, url);
  const found = reuse ? await db('broadcasts').where({ name: 'Million' }).orderBy('id').first('id', 'channel_id') : undefined;
  if (found !== undefined) {
    context.log(`reusing the seeded database (broadcast ${found.id})`);
    await db.raw('ANALYZE');
    return { url, db, channelId: Number(found.channel_id), broadcastId: Number(found.id), kept: true };
  }
  context.log(`seeding ${RECIPIENTS} subscribers and a broadcast to all of them`);
  const { channelId, broadcastId } = await seed(db, context.log);
  // The statistics seed drops the subscriber search indexes to seed faster; the subscribers
  // page is measured with them, as an installation has them.
  const indexed = Date.now();
  await db.raw('CREATE INDEX IF NOT EXISTS subscribers_email_trgm ON subscribers USING gin (email gin_trgm_ops)');
  await db.raw('CREATE INDEX IF NOT EXISTS subscribers_tags ON subscribers USING gin (channel_id, tags)');
  await db.raw('ANALYZE');
  context.log(`search indexes rebuilt in ${round((Date.now() - indexed) / 1000, 1)} s`);
  return { url, db, channelId, broadcastId, kept: false };
}

/** In a kept database: the pages' data an earlier run made through the API. */
async function keptPages(db: Database, call: Call, channelId: number, broadcastId: number, userId: number): Promise<Seeded> {
  const first = async (table: string, make?: () => Promise<{ id: number }>) => {
    const row = (await db(table).where({ channel_id: channelId }).orderBy('id').first('id')) as { id: string | number } | undefined;
    if (row === undefined && make !== undefined) return (await make()).id;
    if (row === undefined) throw new Error(`the kept database has no ${table} row: seed a fresh one`);
    return Number(row.id);
  };
  return {
    broadcastId,
    subscriberEmail: 'r1@bench.example',
    sequenceId: await first('sequences'),
    formId: await first('opt_in_forms'),
    webhookId: await first('webhook_endpoints', () => makeWebhook(call)),
    userId,
    emailServerId: await first('email_servers', () => makeEmailServer(call)),
    templateId: await first('templates'),
    segmentId: await first('segments'),
  };
}

export const dashboardBench: Bench = {
  name: 'dashboard',
  async run(context) {
    const { url, db, channelId, broadcastId, kept } = await seededDatabase(context);
    const token = formatApiToken(randomBytes(32));
    await new PgApiTokenRepository(db).create({
      channelId,
      type: 'channel',
      label: null,
      hash: hashApiToken(token),
      prefix: apiTokenPrefix(token),
      suffix: apiTokenSuffix(token),
      permissions: [...CHANNEL_PERMISSIONS],
    });
    const password = randomBytes(12).toString('base64url');
    // In a kept database the users are there: the sudo user gets this run's password.
    const passwordHash = await new Argon2PasswordHasher().hash(password);
    const keptUser = (await db('users').where({ email: 'root@bench.example' }).first('id')) as { id: string | number } | undefined;
    if (keptUser !== undefined) await db('users').where({ id: keptUser.id }).update({ password_hash: passwordHash });
    const [user] =
      keptUser !== undefined
        ? [keptUser]
        : ((await db('users')
            .insert({ email: 'root@bench.example', first_name: 'Bench', last_name: 'Root', password_hash: passwordHash, sudo: true })
            .returning('id')) as Array<{ id: string | number }>);
    for (let i = 1; i <= 5 && keptUser === undefined; i++)
      await db('users').insert({ email: `member${i}@bench.example`, first_name: 'Member', last_name: String(i), password_hash: null });

    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // Private addresses allowed: the webhook endpoint and the email server are loopback ones (no dispatcher runs, nothing is sent or delivered).
    // A kept database's secrets (webhook and email server ones) are sealed with a key every run
    // of it must share: one derived from its URL (a benchmark's data, nothing to protect).
    const keyFor: Record<string, string> = process.env.DASHBOARD_BENCH_DATABASE_URL
      ? { MAILCAST_SECRET_KEY: createHash('sha256').update(url).digest('base64') }
      : {};
    const api = await startApi(url, port, { PUBLIC_URL: base, WEBHOOK_ALLOW_PRIVATE: 'true', SMTP_ALLOW_PRIVATE: 'true', ...keyFor });
    const browser = await launchBrowser();
    const samples = new Map<string, number[]>();
    const errors: string[] = [];
    try {
      const seeded = kept
        ? await keptPages(db, apiCaller(base, token), channelId, broadcastId, Number(user!.id))
        : await seedPages(base, token, broadcastId, Number(user!.id));
      const signIn = await fetch(`${base}/auth/sign_in`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'root@bench.example', password }),
      });
      if (signIn.status !== 200) throw new Error(`sign-in answered ${signIn.status}: ${await signIn.text()}`);
      const session = /mailcast_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      if (session === undefined) throw new Error('sign-in set no session cookie');

      // DASHBOARD_BENCH_PAGES: only the pages named (comma-separated), e.g. to measure again the ones a change touched.
      const only = process.env.DASHBOARD_BENCH_PAGES?.split(',').map((name) => name.trim());
      for (const dashboardPage of PAGES.filter((p) => only === undefined || only.includes(p.name))) {
        const times: number[] = [];
        for (let run = 0; run <= RUNS; run++) {
          const browserContext = await browser.createBrowserContext();
          await browserContext.setCookie({ name: 'mailcast_session', value: session, domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict' });
          const page = await browserContext.newPage();
          page.on('console', (m) => m.type() === 'error' && errors.push(`${dashboardPage.name}: ${m.text()}`));
          page.on('pageerror', (e) => errors.push(`${dashboardPage.name}: ${e instanceof Error ? e.message : String(e)}`));
          // The session hint (docs/dashboard.md, "Restoring a session") and the render probe, before any page script.
          await page.evaluateOnNewDocument((selector: string) => {
            localStorage.setItem('mailcast.session', '1');
            const probe = window as unknown as { renderedAt?: number };
            const check = () => {
              if (probe.renderedAt === undefined && document.querySelector(selector)) probe.renderedAt = performance.now();
            };
            new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
          }, dashboardPage.ready);
          await page.goto(`${base}/app${dashboardPage.path(seeded)}`);
          await page.waitForSelector(dashboardPage.ready, { timeout: 30_000 });
          const renderedAt = await page.waitForFunction(() => (window as unknown as { renderedAt?: number }).renderedAt, { timeout: 5_000 });
          if (run > 0) times.push(Number(await renderedAt.jsonValue())); // run 0 warms the api and the database's caches
          await browserContext.close();
        }
        samples.set(dashboardPage.name, times);
        context.log(`${dashboardPage.name}: p50 ${round(percentile(times, 50))} ms, worst ${round(Math.max(...times))} ms`);
      }
    } finally {
      await browser.close();
      api.kill('SIGTERM');
      if (kept) await db.destroy();
    }
    if (errors.length > 0) throw new Error(`console errors on the dashboard: ${errors.join('; ')}`);
    const size = JSON.parse(readFileSync(path.join(__dirname, '..', 'apps', 'dashboard', 'dist', 'app', 'size.json'), 'utf8')) as {
      'app.js': { gzipped: number };
    };
    const gzippedKb = size['app.js'].gzipped / 1024;
    const figures: BenchFigure[] = [];
    for (const [name, times] of samples) {
      const p50 = percentile(times, 50);
      const worst = Math.max(...times);
      figures.push({ metric: `${name}: first meaningful render, p50`, value: round(p50), unit: 'ms', target: `< ${TARGET_MS} ms`, met: p50 < TARGET_MS });
      figures.push({ metric: `${name}: first meaningful render, worst`, value: round(worst), unit: 'ms', target: `< ${TARGET_MS} ms`, met: worst < TARGET_MS });
    }
    figures.push({ metric: 'app.js gzipped', value: round(gzippedKb, 1), unit: 'KB', target: `<= ${BUDGET_KB} KB`, met: gzippedKb <= BUDGET_KB });
    return {
      title: 'Dashboard: first meaningful render of every page',
      setup: `${PAGES.length} pages (${PAGES.map((p) => p.name).join(', ')}) of a channel with ${RECIPIENTS.toLocaleString('en-US')} subscribers and one broadcast sent to all of them (3 events each), each opened ${RUNS} times (after one warm-up) in headless Chromium (@sparticuz/chromium, puppeteer-core) signed in as a sudo user, each in a fresh browser context (no cache). Time: navigation start to the page's meaningful-render selector first matching.`,
      figures,
    };
  },
};

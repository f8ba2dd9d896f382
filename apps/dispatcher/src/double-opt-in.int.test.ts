import { createBoss, loadConfig } from '@mailcast/adapters';
import { Mailer, PriorityMailer } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type ParsedEmail, type SmtpCapture } from '@mailcast/devkit';
import { eventually, freePort, memoryLogger } from '@mailcast/testkit';
import http from 'node:http';
import type PgBoss from 'pg-boss';
import type { DependencyContainer } from 'tsyringe';
import request from 'supertest';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { buildContainer } from './container';
import { HANDLERS } from './handlers';
import { startWorkers, type JobWorkers } from './workers/job-workers';

/**
 * Double opt-in end to end: the real api on a loopback port, the dispatcher's workers in
 * process, a real SMTP server receiving the confirmation email, the link followed over HTTP.
 */
describe('double opt-in (spec: Double opt-in create, Subscriber state; docs/api-decisions.md: confirmation link)', () => {
  let api: ApiHarness;
  let server: http.Server;
  let smtp: SmtpCapture;
  let boss: PgBoss;
  let dispatcher: DependencyContainer;
  let workers: JobWorkers;
  let publicUrl: string;
  let channelId: number;
  let token: string;

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    api = await startApi({ env: { PUBLIC_URL: publicUrl } });
    server = http.createServer(api.app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = await startSmtpCapture();

    boss = createBoss(api.database.url, 'dispatcher');
    await boss.start();
    const { logger } = memoryLogger();
    dispatcher = buildContainer({
      config: loadConfig({ DATABASE_URL: api.database.url, PUBLIC_URL: publicUrl, SMTP_ALLOW_PRIVATE: 'true' }),
      logger,
      db: api.database.db,
      boss,
    });
    workers = startWorkers(boss, dispatcher, HANDLERS);

    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
    await api.fixtures.aCaptureServer(channelId, smtp.port, { fromEmail: 'news@example.com', fromName: 'Example News' });
  });
  afterAll(async () => {
    await workers.stop();
    await boss.stop({ graceful: false, close: true, wait: true });
    // The pooled SMTP transport and fetch's keep-alive sockets would hold the servers open.
    await dispatcher.resolve<Mailer>(Mailer).close();
    await dispatcher.resolve<Mailer>(PriorityMailer).close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await smtp.close();
    await api.close();
  });

  const create = (body: object, t = token) => request(api.app).post('/api/v1/subscribers.json').set('Authorization', `Bearer ${t}`).send(body);
  const find = async (email: string) =>
    (
      await request(api.app)
        .get(`/api/v1/subscribers/find.json?email=${encodeURIComponent(email)}`)
        .set('Authorization', `Bearer ${token}`)
    ).body as Record<string, unknown>;

  /** The next confirmation email to `to`, parsed as a mail client would. */
  async function mailTo(to: string, nth = 1): Promise<ParsedEmail> {
    const message = await eventually(async () => smtp.messages.filter((m) => m.to.includes(to))[nth - 1]);
    return parseEmail(message.raw);
  }
  const linkIn = (text: string | undefined, path: RegExp) => {
    const match = new RegExp(`${publicUrl.replace(/[.]/g, '\\.')}${path.source}`).exec(text ?? '');
    if (!match) throw new Error(`no link ${path} in ${text}`);
    return match[0];
  };
  const confirmLink = (mail: ParsedEmail) => linkIn(mail.text, /\/confirm\/[A-Za-z0-9_-]{43}(?!\/)/);
  const open = async (url: string, method = 'GET') => {
    // A browser's agent: Node's own ("node") is on the bot list, which gets a button instead (docs/engagement.md).
    const res = await fetch(url, {
      method,
      redirect: 'manual',
      headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' },
    });
    return { status: res.status, type: res.headers.get('content-type'), html: await res.text(), referrer: res.headers.get('referrer-policy') };
  };
  const eventTypes = async (subscriberId: number) =>
    (await api.database.db('events').where({ channel_id: channelId }).orderBy('id').select('type', 'data'))
      .filter((e: { data: { subscriber_id: number } }) => e.data.subscriber_id === subscriberId)
      .map((e: { type: string }) => e.type);

  it('creates a pending subscriber, emails a working link, and confirms on opening it', async () => {
    const res = await create({ subscriber: { email: 'Dora@Example.com', first_name: 'Dora' }, double_opt_in: { reply_to: 'help@example.com' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      email: 'dora@example.com',
      first_name: 'Dora',
      confirmed_at: null,
      confirmation_status: 'pending',
      confirmation_url: expect.stringMatching(new RegExp(`^${publicUrl}/confirm/[A-Za-z0-9_-]{43}$`)),
    });
    const id = res.body.id as number;
    expect(await find('dora@example.com')).toMatchObject({ is_active: true, confirmation_status: 'unconfirmed', confirmed_at: null });

    const mail = await mailTo('dora@example.com');
    expect(mail.from).toEqual({ address: 'news@example.com', name: 'Example News' });
    expect(mail.replyTo).toBe('help@example.com');
    expect(mail.subject).toBe('Please confirm your subscription');
    expect(mail.text).toMatch(/^Hello Dora,\n\nPlease confirm your subscription to Test channel by opening this link:\n\nhttp/);
    const link = confirmLink(mail);
    const unsubscribe = linkIn(mail.text, /\/confirm\/[A-Za-z0-9_-]{43}\/unsubscribe/);
    expect(mail.headers['list-unsubscribe']).toBe(`<${unsubscribe}>`);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    // Only hashes are stored: nothing in the database holds either token.
    const stored = JSON.stringify(await api.database.db('subscriber_confirmations').select('*'));
    expect(stored).not.toContain(link.split('/').pop());
    expect(stored).not.toContain((res.body.confirmation_url as string).split('/').pop());

    const page = await open(link);
    expect(page.status).toBe(200);
    expect(page.type).toBe('text/html; charset=utf-8');
    expect(page.referrer).toBe('no-referrer');
    expect(page.html).toContain('<h1>Subscription confirmed</h1>');
    const confirmed = await find('dora@example.com');
    expect(confirmed).toMatchObject({ confirmation_status: 'confirmed', confirmed_at: expect.any(String), is_active: true });
    expect(await eventTypes(id)).toEqual(['subscriber.created', 'subscriber.subscribed']);

    // A used link, and the api's own link of the same request, change nothing.
    const reused = await open(link);
    expect([reused.status, reused.html.includes('<h1>Already confirmed</h1>')]).toEqual([200, true]);
    expect((await open(res.body.confirmation_url)).html).toContain('Already confirmed');
    expect((await find('dora@example.com')).confirmed_at).toBe(confirmed.confirmed_at);
    // The request log names the page, never the token.
    const logged = JSON.stringify(api.logs);
    expect(logged).toContain('GET /confirm/:token 200');
    expect(logged).not.toContain(link.split('/').pop());
    expect(await eventTypes(id)).toEqual(['subscriber.created', 'subscriber.subscribed']);
  });

  it('returns a confirmed subscriber unchanged on a repeated double opt-in create, with a double_opt_in_skipped warning, and sends nothing', async () => {
    const before = await find('dora@example.com');
    const confirmations = await api.database.db('subscriber_confirmations').count('* as n');
    const res = await create({ subscriber: { email: 'dora@example.com', first_name: 'Changed' }, double_opt_in: true });
    expect(res.status).toBe(200);
    // Unchanged, and the answer says why no confirmation email went out (docs/subscribers.md).
    expect(res.body).toEqual({
      ...before,
      warnings: [{ code: 'double_opt_in_skipped', param: 'double_opt_in', message: 'The subscriber is already confirmed; no confirmation email was sent' }],
    });
    expect(await api.database.db('subscriber_confirmations').count('* as n')).toEqual(confirmations);
  });

  it('a repeat for an unconfirmed subscriber issues a new confirmation and a fresh email; the old link is stale', async () => {
    const first = await create({ subscriber: { email: 'eve@example.com' }, double_opt_in: true });
    const oldMail = await mailTo('eve@example.com', 1);
    const second = await create({ subscriber: { email: 'eve@example.com' }, double_opt_in: true });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ id: first.body.id, confirmation_status: 'pending' });
    expect(second.body.confirmation_url).not.toBe(first.body.confirmation_url);
    const newMail = await mailTo('eve@example.com', 2);
    expect(confirmLink(newMail)).not.toBe(confirmLink(oldMail));

    const stale = await open(confirmLink(oldMail));
    expect(stale.status).toBe(410);
    expect(stale.html).toContain('This link has been replaced');
    expect((await find('eve@example.com')).confirmation_status).toBe('unconfirmed');
    expect((await open(confirmLink(newMail))).status).toBe(200);
    expect((await find('eve@example.com')).confirmation_status).toBe('confirmed');
  });

  /** Resolves once the dispatcher has finished every queued confirmation job. */
  const confirmationJobsDone = () =>
    eventually(async () => {
      const { rows } = await api.database.db.raw(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'subscribers.confirmation' AND state NOT IN ('completed', 'failed', 'cancelled')`,
      );
      return (rows as Array<{ n: number }>)[0]!.n === 0 ? true : undefined;
    });

  it('sends at most 3 confirmation emails per address per hour; the 4th request answers as before and sends nothing (docs/security.md)', async () => {
    const answers = [];
    for (let nth = 1; nth <= 4; nth++) {
      const res = await create({ subscriber: { email: 'flood@example.com' }, double_opt_in: true });
      answers.push(res);
      // Each email arrives before the next request, as a victim's inbox would see them.
      if (nth <= 3) await mailTo('flood@example.com', nth);
    }
    await confirmationJobsDone();
    for (const res of answers) {
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        id: answers[0]!.body.id,
        email: 'flood@example.com',
        first_name: null,
        confirmed_at: null,
        confirmation_status: 'pending',
        confirmation_url: expect.stringMatching(new RegExp(`^${publicUrl}/confirm/[A-Za-z0-9_-]{43}$`)),
      });
    }
    expect(new Set(answers.map((r) => r.body.confirmation_url)).size).toBe(4);
    expect(smtp.messages.filter((m) => m.to.includes('flood@example.com'))).toHaveLength(3);

    // Another address of the channel is unaffected.
    await create({ subscriber: { email: 'other@example.com' }, double_opt_in: true });
    expect((await mailTo('other@example.com')).subject).toBe('Please confirm your subscription');
    // The capped request superseded nothing: the last email's link still confirms.
    const last = await mailTo('flood@example.com', 3);
    expect((await open(confirmLink(last))).status).toBe(200);
    expect((await find('flood@example.com')).confirmation_status).toBe('confirmed');
  });

  it('renders the chosen template (top level, inside double_opt_in, or the channel default)', async () => {
    const templates = api.fixtures.repositories.confirmationTemplates;
    const chosen = await templates.create({
      channelId,
      name: 'chosen',
      subject: 'Confirm, {{ subscriber.first_name | upcase }}!',
      body: 'Hi {{subscriber.first_name}} ({{ subscriber.email }}): {{ confirmation_url }} -- opt out: {{ unsubscribe_url }}',
      isDefault: false,
    });
    await templates.create({ channelId, name: 'default', subject: 'Default template', body: 'Go: {{ confirmation_url }}', isDefault: true });

    await create({ subscriber: { email: 'top@example.com', first_name: 'Top' }, double_opt_in: true, confirmation_template_id: chosen.id });
    await create({ subscriber: { email: 'inner@example.com', first_name: 'In' }, double_opt_in: { confirmation_template_id: chosen.id } });
    await create({ subscriber: { email: 'dflt@example.com' }, double_opt_in: true });
    // A stored template that is not valid Liquid gives way to the built-in one.
    const broken = await templates.create({ channelId, name: 'broken', subject: 'x', body: '{% nope %}', isDefault: false });
    await create({ subscriber: { email: 'broken@example.com' }, double_opt_in: { confirmation_template_id: broken.id } });

    const top = await mailTo('top@example.com');
    expect(top.subject).toBe('Confirm, TOP!');
    expect(top.text).toMatch(new RegExp(`^Hi Top \\(top@example.com\\): ${publicUrl}/confirm/\\S{43} -- opt out: ${publicUrl}/confirm/\\S{43}/unsubscribe`));
    // The template placed the unsubscribe link itself, so it is not added a second time.
    expect(top.text?.match(/unsubscribe/g)).toHaveLength(1);
    expect((await mailTo('inner@example.com')).subject).toBe('Confirm, IN!');
    const dflt = await mailTo('dflt@example.com');
    expect(dflt.subject).toBe('Default template');
    expect(dflt.text).toMatch(/^Go: http/);
    const fallback = await mailTo('broken@example.com');
    expect(fallback.subject).toBe('Please confirm your subscription');
    expect(confirmLink(fallback)).toMatch(/\/confirm\//);

    const unknown = await create({ subscriber: { email: 'tpl@example.com' }, double_opt_in: { confirmation_template_id: 999999 } });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toEqual({ errors: { confirmation_template_id: ['does not exist'] } });
  });

  it('include_unsubscribe_link false leaves the link and the List-Unsubscribe header out', async () => {
    await create({ subscriber: { email: 'nolink@example.com' }, double_opt_in: { include_unsubscribe_link: false } });
    const mail = await mailTo('nolink@example.com');
    expect(mail.headers['list-unsubscribe']).toBeUndefined();
    expect(mail.text).not.toContain('unsubscribe');
  });

  it('the unsubscribe link shows a button on GET and unsubscribes only on POST', async () => {
    const res = await create({ subscriber: { email: 'oops@example.com' }, double_opt_in: true });
    const mail = await mailTo('oops@example.com');
    const link = linkIn(mail.text, /\/confirm\/[A-Za-z0-9_-]{43}\/unsubscribe/);
    const shown = await open(link);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain('<form method="post"');
    expect((await find('oops@example.com')).is_active).toBe(true);

    const done = await open(link, 'POST');
    expect(done.status).toBe(200);
    expect(done.html).toContain('<h1>Unsubscribed</h1>');
    expect(await find('oops@example.com')).toMatchObject({ is_active: false, unsubscribed_at: expect.any(String) });
    expect(await eventTypes(res.body.id)).toEqual(['subscriber.created', 'subscriber.unsubscribed']);
  });

  it('answers unknown or malformed tokens with a friendly 404 page, never an error dump', async () => {
    for (const path of [`/confirm/${'A'.repeat(43)}`, '/confirm/not-a-token', `/confirm/${'%3Cscript%3E'}`]) {
      const page = await open(`${publicUrl}${path}`);
      expect(page.status).toBe(404);
      expect(page.html).toContain('<h1>Link not valid</h1>');
      expect(page.html).not.toContain('<script>');
    }
    const post = await open(`${publicUrl}/confirm/${'B'.repeat(43)}/unsubscribe`, 'POST');
    expect(post.status).toBe(404);
  });

  it('refuses double opt-in for a channel without an email server, and malformed options', async () => {
    const bare = await api.fixtures.aTenant();
    const res = await create({ subscriber: { email: 'x@example.com' }, double_opt_in: true }, bare.token);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'SMTP settings are not configured, please check your settings' });
    const malformed = await create({ subscriber: { email: 'x@example.com' }, double_opt_in: 'yes' });
    expect(malformed.status).toBe(422);
    expect(malformed.body).toEqual({ errors: { double_opt_in: ['must be true or an object of options'] } });
    expect((await request(api.app).get('/api/v1/subscribers/find.json?email=x@example.com').set('Authorization', `Bearer ${token}`)).status).toBe(404);
  });
});

import { NodemailerMailer, rebuildEmailEventAggregates } from '@mailcast/adapters';
import { Clock, DeliverBroadcast } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type ParsedEmail, type SmtpCapture } from '@mailcast/devkit';
import request from 'supertest';
import { sendingInProcess, startApi, type ApiHarness } from '../test-support/harness';

const PUBLIC_URL = 'http://links.example.test';
const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36';
const GMAIL_PROXY = 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)';
const CURL = 'curl/8.4.0';
const NAMES = ['ann', 'bob', 'cat', 'dan', 'eve', 'fay', 'gus', 'hal'] as const;
type Name = (typeof NAMES)[number];

/**
 * Machine opens and clicks (docs/engagement.md), driven by the links of real emails received
 * over SMTP, with the clock moved to each request's distance from the recipient's delivery.
 * Each rule has its own recipient, so the 60 s amplification guard never hides one.
 */
describe('machine opens and clicks', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let broadcastId: number;
  let channelId: number;
  let token: string;
  const mail = new Map<Name, ParsedEmail>();
  const mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false });
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  const path = (url: string) => url.slice(PUBLIC_URL.length);
  const hrefs = (name: Name) => [...mail.get(name)!.html!.matchAll(/href="([^"]+)"/g)].map((m) => path(m[1]!.replace(/&amp;/g, '&')));
  const pixel = (name: Name) => path(/<img src="([^"]+)"/.exec(mail.get(name)!.html!)![1]!);
  const link = (name: Name, i: 0 | 1) => hrefs(name)[i]!;
  const unsubscribe = (name: Name) => hrefs(name)[2]!;
  const recipientOf = async (name: Name) =>
    api.database
      .db('broadcast_recipients as r')
      .join('subscribers as s', 's.id', 'r.subscriber_id')
      .where({ 'r.broadcast_id': broadcastId, 's.email': `${name}@example.test` })
      .first('r.id', 'r.delivered_at', 's.id as subscriber_id');
  /** Moves the clock to `ms` after the recipient's delivery. */
  const at = async (name: Name, ms: number) => {
    const r = await recipientOf(name);
    offsetMs = (r.delivered_at as Date).getTime() + ms - Date.now();
  };
  const events = async (name: Name, type: 'opened' | 'clicked') =>
    (
      await api.database
        .db('email_events')
        .where({ recipient_id: (await recipientOf(name)).id, type })
        .orderBy('id')
        .select('machine', 'machine_reason')
    ).map((e: { machine: boolean; machine_reason: string | null }) => [e.machine, e.machine_reason]);
  const get = (url: string, agent: string | null) => {
    const r = request(api.app).get(url);
    return agent === null ? r : r.set('User-Agent', agent);
  };
  const auth = (r: request.Test) => r.set('Authorization', `Bearer ${token}`);
  const statistics = async () => (await auth(request(api.app).get(`/api/v1/broadcasts/${broadcastId}/statistics`))).body;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    api = await startApi({ overrides: [...sendingInProcess(PUBLIC_URL, mailer), { token: Clock, value: clock }] });
    const channel = await api.fixtures.aChannel({ fromEmail: 'news@example.test' });
    channelId = channel.id;
    token = await api.fixtures.aToken(channel.id);
    await api.fixtures.aCaptureServer(channel.id, smtp.port);
    await api.database.db('subscribers').insert(NAMES.map((n) => ({ channel_id: channel.id, email: `${n}@example.test`, first_name: n })));
    const b = await api.fixtures.aBroadcast(channel.id, {
      subject: 'News',
      body: 'Plain',
      htmlBody: '<html><body><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a></body></html>',
      trackOpens: true,
      trackClicks: true,
      includeUnsubscribeLink: true,
    });
    broadcastId = b.id;
    await api.database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled' });
    expect(await api.container.resolve(DeliverBroadcast).execute({ broadcastId: b.id })).toBe('finished');
    for (const message of await smtp.waitFor(NAMES.length)) mail.set(message.to[0]!.replace('@example.test', '') as Name, await parseEmail(message.raw));
  });
  afterAll(async () => {
    await mailer.close();
    await api.close();
    await smtp.close();
  });

  it('a browser a minute after delivery is a person; the events say machine: false', async () => {
    await at('ann', 60_000);
    expect((await get(pixel('ann'), CHROME)).status).toBe(200);
    expect((await get(link('ann', 0), CHROME)).status).toBe(302);
    expect([await events('ann', 'opened'), await events('ann', 'clicked')]).toEqual([[[false, null]], [[false, null]]]);
    const recipient = (await recipientOf('ann')).id;
    const outbox = await api.database.db('events').where({ channel_id: channelId }).whereIn('type', ['email.opened', 'email.clicked']).orderBy('id');
    expect(
      outbox
        .filter((e: { data: { receipt_id: number } }) => e.data.receipt_id === recipient)
        .map((e: { type: string; data: { machine: boolean } }) => [e.type, e.data.machine]),
    ).toEqual([
      ['email.opened', false],
      ['email.clicked', false],
    ]);
  });

  it('an agent the bot list knows is a machine (user_agent), and the events say so', async () => {
    await at('bob', 60_000);
    await get(pixel('bob'), CURL);
    await get(link('bob', 0), 'Barracuda Sentinel (EE)');
    expect([await events('bob', 'opened'), await events('bob', 'clicked')]).toEqual([[[true, 'user_agent']], [[true, 'user_agent']]]);
    const recipient = (await recipientOf('bob')).id;
    const outbox = await api.database.db('events').where({ channel_id: channelId }).whereIn('type', ['email.opened', 'email.clicked']).orderBy('id');
    expect(
      outbox.filter((e: { data: { receipt_id: number } }) => e.data.receipt_id === recipient).map((e: { data: { machine: boolean } }) => e.data.machine),
    ).toEqual([true, true]);
  });

  it("a mail proxy's fetch within 2 s of delivery is a prefetch; through the same proxy later, a person", async () => {
    await at('cat', 500);
    await get(pixel('cat'), GMAIL_PROXY);
    await at('cat', 120_000);
    await get(pixel('cat'), GMAIL_PROXY);
    expect(await events('cat', 'opened')).toEqual([
      [true, 'prefetch'],
      [false, null],
    ]);
  });

  it('a click within 10 s of delivery is a scanner', async () => {
    await at('dan', 3_000);
    expect((await get(link('dan', 0), CHROME)).headers.location).toBe('https://example.com/a');
    expect(await events('dan', 'clicked')).toEqual([[true, 'scanner']]);
  });

  it('every link of the email within 5 s is a scanner, the earlier clicks flagged back out of the human figures', async () => {
    await at('eve', 100_000);
    await get(link('eve', 0), CHROME);
    expect(await events('eve', 'clicked')).toEqual([[false, null]]);
    expect((await statistics()).engagement.human_clicks.count).toBe(2); // ann and, for now, eve
    await at('eve', 102_000);
    await get(link('eve', 1), CHROME);
    expect(await events('eve', 'clicked')).toEqual([
      [true, 'scanner'],
      [true, 'scanner'],
    ]);
    expect((await statistics()).engagement.human_clicks.count).toBe(1);
  });

  it('HEAD requests are machines, and still answered', async () => {
    await at('fay', 60_000);
    const head = await request(api.app).head(pixel('fay')).set('User-Agent', CHROME);
    expect([head.status, head.headers['content-type']]).toEqual([200, 'image/gif']);
    expect((await request(api.app).head(link('fay', 0)).set('User-Agent', CHROME)).status).toBe(302);
    expect([await events('fay', 'opened'), await events('fay', 'clicked')]).toEqual([[[true, 'head']], [[true, 'head']]]);
  });

  it("statistics keep the spec's counts and add the human ones; links and timeline too", async () => {
    const s = await statistics();
    // Opened: ann, bob, cat, fay; people: ann, cat. Clicked: ann, bob, dan, eve, fay; people: ann.
    expect(s.delivery.sent).toBe(8);
    expect(s.engagement).toEqual({
      opens: { count: 4, rate: 50 },
      clicks: { count: 5, rate: 62.5 },
      unique_links_clicked: 2,
      human_opens: { count: 2, rate: 25 },
      human_clicks: { count: 1, rate: 12.5 },
    });
    const links = (await auth(request(api.app).get(`/api/v1/broadcasts/${broadcastId}/statistics/links`))).body.links;
    expect(links.map((l: { url: string; unique_clicks: number; human_clicks: number }) => [l.url, l.unique_clicks, l.human_clicks])).toEqual([
      ['https://example.com/a', 5, 1],
      ['https://example.com/b', 1, 0],
    ]);

    const timeline = async (metrics?: string) =>
      (
        await auth(
          request(api.app)
            .get(`/api/v1/broadcasts/${broadcastId}/statistics/timeline`)
            .query(metrics ? { metrics } : {}),
        )
      ).body;
    expect((await timeline()).series.map((x: { name: string }) => x.name)).toEqual(['Processed', 'Delivered', 'Opens', 'Clicks', 'Bounces']);
    const human = await timeline('humanopens,HumanClicks,Opens');
    const total = (name: string) =>
      Object.values((human.series as Array<{ name: string; data: Record<string, number> }>).find((x) => x.name === name)!.data).reduce((a, b) => a + b, 0);
    // Open events: ann, bob, cat ×2, fay; of people: ann, cat's second. Click events of people: ann.
    expect([total('HumanOpens'), total('HumanClicks'), total('Opens')]).toEqual([2, 1, 5]);
    expect((await auth(request(api.app).get(`/api/v1/broadcasts/${broadcastId}/statistics/timeline`).query({ metrics: 'Robots' }))).status).toBe(422);
  });

  it('the aggregates, flagged-back clicks included, are what a rebuild from the raw events gives', async () => {
    const snapshot = async () => ({
      counters: (
        await api.database.db.raw(
          `SELECT counter, SUM(recipients)::int AS recipients, SUM(events)::int AS events FROM broadcast_statistics WHERE broadcast_id = ? GROUP BY 1 ORDER BY 1`,
          [broadcastId],
        )
      ).rows,
      rollups: (
        await api.database.db.raw(
          `SELECT kind, grain_minutes, bucket, SUM(events)::int AS events FROM broadcast_event_rollups WHERE broadcast_id = ? AND events <> 0 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
          [broadcastId],
        )
      ).rows,
      links: (
        await api.database.db.raw(
          `SELECT s.link_id, SUM(total_clicks)::int AS total, SUM(unique_clicks)::int AS uniq, SUM(human_clicks)::int AS human
             FROM broadcast_link_statistics s JOIN broadcast_links l ON l.id = s.link_id WHERE l.broadcast_id = ? GROUP BY 1 ORDER BY 1`,
          [broadcastId],
        )
      ).rows,
      firsts: (
        await api.database.db.raw(
          `SELECT f.* FROM email_event_firsts f JOIN broadcast_recipients r ON r.id = f.recipient_id WHERE r.broadcast_id = ? ORDER BY 1, 2, 3`,
          [broadcastId],
        )
      ).rows,
    });
    const incremental = await snapshot();
    expect(incremental.counters).toEqual(expect.arrayContaining([{ counter: 'human_clicked', recipients: 1, events: 1 }]));
    await rebuildEmailEventAggregates(api.database.db, broadcastId);
    expect(await snapshot()).toEqual(incremental);
  });

  it('segment engagement rules take human_only: only people who opened or clicked', async () => {
    const members = async (rule: Record<string, unknown>) => {
      const created = await auth(request(api.app).post('/api/v1/segments')).send({ segment: { name: `s${Math.random()}`, rules: [rule] } });
      expect(created.status).toBe(201);
      expect(created.body.rules).toEqual([rule]);
      const page = await auth(request(api.app).get(`/api/v1/segments/${created.body.id}.json`));
      return (page.body.subscribers as Array<{ email: string }>).map((x) => x.email.replace('@example.test', '')).sort();
    };
    expect(await members({ field: 'opened_broadcast', operator: 'equals', value: broadcastId })).toEqual(['ann', 'bob', 'cat', 'fay']);
    expect(await members({ field: 'opened_broadcast', operator: 'equals', value: broadcastId, human_only: true })).toEqual(['ann', 'cat']);
    expect(await members({ field: 'clicked_broadcast', operator: 'equals', value: 'any', human_only: true })).toEqual(['ann']);
    expect(await members({ field: 'clicked_broadcast', operator: 'not_equals', value: broadcastId, human_only: true })).toEqual([
      'bob',
      'cat',
      'dan',
      'eve',
      'fay',
      'gus',
      'hal',
    ]);
    const refused = await auth(request(api.app).post('/api/v1/segments')).send({
      segment: {
        name: 'bad',
        rules: [
          { field: 'email', operator: 'equals', value: 'x', human_only: true },
          { field: 'opened_broadcast', operator: 'equals', value: 'any', human_only: 'yes' },
        ],
      },
    });
    expect([refused.status, refused.body.errors]).toEqual([
      422,
      { 'rules[0]': ['human_only applies only to opened_broadcast and clicked_broadcast'], 'rules[1]': ['human_only must be true or false'] },
    ]);
  });

  it('a one-click POST the rules flag unsubscribes nobody: it gets the button, whose press does', async () => {
    const subscriber = async () => api.database.db('subscribers').where({ email: 'gus@example.test' }).first('is_active', 'unsubscribed_at');
    // Within 10 s of delivery, and a bot's agent later: held, with the button instead.
    await at('gus', 4_000);
    for (const agent of [CHROME, CURL]) {
      const held = await request(api.app).post(unsubscribe('gus')).set('User-Agent', agent).type('form').send('List-Unsubscribe=One-Click');
      expect([held.status, held.text.includes('<form method="post"'), held.text.includes('name="confirmed_by" value="person"')]).toEqual([200, true, true]);
      expect(await subscriber()).toEqual({ is_active: true, unsubscribed_at: null });
      await at('gus', 60_000);
    }
    // The GET shows the button and changes nothing.
    expect((await get(unsubscribe('gus'), CURL)).text).toContain('name="confirmed_by" value="person"');
    expect(await subscriber()).toEqual({ is_active: true, unsubscribed_at: null });
    // The button, pressed by a person (whatever their browser calls itself).
    const pressed = await request(api.app).post(unsubscribe('gus')).set('User-Agent', CURL).type('form').send('confirmed_by=person');
    expect(pressed.text).toContain('You are unsubscribed');
    expect(await subscriber()).toMatchObject({ is_active: false });
  });

  it('a one-click POST by a person a minute after delivery unsubscribes at once', async () => {
    await at('hal', 60_000);
    const res = await request(api.app).post(unsubscribe('hal')).set('User-Agent', CHROME).type('form').send('List-Unsubscribe=One-Click');
    expect(res.text).toContain('You are unsubscribed');
    expect(await api.database.db('subscribers').where({ email: 'hal@example.test' }).first()).toMatchObject({ is_active: false });
  });

  it('a confirmation link opened by a scanner confirms only on the button', async () => {
    const created = await auth(request(api.app).post('/api/v1/subscribers.json')).send({ subscriber: { email: 'ida@example.test' }, double_opt_in: true });
    expect(created.status).toBe(201);
    const confirm = path((created.body.confirmation_url as string).replace(/^http:\/\/[^/]+/, PUBLIC_URL));
    const status = async () => (await api.database.db('subscribers').where({ email: 'ida@example.test' }).first('confirmed_at')).confirmed_at;
    for (const scanner of [get(confirm, CURL), request(api.app).head(confirm).set('User-Agent', CHROME)]) {
      const page = await scanner;
      expect(page.status).toBe(200);
      if (page.text) expect(page.text).toContain('Confirm subscription');
      expect(await status()).toBeNull();
    }
    const pressed = await request(api.app).post(confirm).set('User-Agent', CURL).type('form').send('confirmed_by=person');
    expect(pressed.text).toContain('Subscription confirmed');
    expect(await status()).toBeInstanceOf(Date);
    // A person's GET confirms at once, as before (docs/api-decisions.md).
    const other = await auth(request(api.app).post('/api/v1/subscribers.json')).send({ subscriber: { email: 'jo@example.test' }, double_opt_in: true });
    const direct = await get(path((other.body.confirmation_url as string).replace(/^http:\/\/[^/]+/, PUBLIC_URL)), CHROME);
    expect(direct.text).toContain('Subscription confirmed');
  });

  it("a confirmation email's one-click unsubscribe by a bot's agent is held; the button unsubscribes", async () => {
    const created = await auth(request(api.app).post('/api/v1/subscribers.json')).send({ subscriber: { email: 'kim@example.test' }, double_opt_in: true });
    const opt = `${path((created.body.confirmation_url as string).replace(/^http:\/\/[^/]+/, PUBLIC_URL))}/unsubscribe`;
    const active = async () => (await api.database.db('subscribers').where({ email: 'kim@example.test' }).first('is_active')).is_active;
    const held = await request(api.app).post(opt).set('User-Agent', CURL).type('form').send('List-Unsubscribe=One-Click');
    expect([held.status, held.text.includes('confirmed_by'), await active()]).toEqual([200, true, true]);
    const pressed = await request(api.app).post(opt).set('User-Agent', CURL).type('form').send('confirmed_by=person');
    expect([pressed.text.includes('You are unsubscribed'), await active()]).toEqual([true, false]);
  });

  it('a scanner fetching every link at once is caught: concurrent clicks of one email are taken one at a time', async () => {
    // The test holds the recipient's row, both clicks queue behind it, then it lets go: the
    // second click must see the first (a statement that began before the first committed would not).
    const recipient = (await recipientOf('hal')).id;
    await at('hal', 100_000);
    const holder = await api.database.db.transaction();
    await holder.raw('SELECT 1 FROM broadcast_recipients WHERE id = ? FOR UPDATE', [recipient]);
    const clicks = [get(link('hal', 0), CHROME), get(link('hal', 1), CHROME)].map((r) => r.then((res) => res.status));
    const waiting = async () =>
      Number(
        (
          await api.database.db.raw(
            `SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query ILIKE '%broadcast_recipients%' AND datname = current_database()`,
          )
        ).rows[0].n,
      );
    for (let i = 0; (await waiting()) < 2; i++) {
      if (i > 200) throw new Error('the two clicks never queued behind the held row');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    await holder.commit();
    expect(await Promise.all(clicks)).toEqual([302, 302]);
    expect(await events('hal', 'clicked')).toEqual([
      [true, 'scanner'],
      [true, 'scanner'],
    ]);
  });
});

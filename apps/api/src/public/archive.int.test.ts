import { NodemailerMailer } from '@mailcast/adapters';
import { DeliverBroadcast } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type ParsedEmail, type SmtpCapture } from '@mailcast/devkit';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import request from 'supertest';
import { sendingInProcess, startApi, type ApiHarness } from '../test-support/harness';

const PUBLIC_URL = 'http://links.example.test';

/** The public archive, its Atom feed and the recipients' web views (docs/archive.md). */
describe('public archive and web view', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let email: ParsedEmail;
  let token: string;
  let slug: string;
  let sent: number;
  let newer: number;
  let notArchived: number;
  let draft: number;
  let foreign: number;
  const mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false });
  const path = (url: string) => url.slice(PUBLIC_URL.length);
  const get = (p: string) => request(api.app).get(p);
  const count = async (table: string) => Number((await api.database.db(table).count<{ n: string }[]>({ n: '*' }))[0]!.n);

  const HTML =
    '<html><body><p>Hi {{ subscriber.first_name }} ({{ subscriber.email }}, {{ subscriber.custom_data.secret }})</p>' +
    '<a href="https://example.com/landing">Go</a> <a href="{{ web_view_url }}">View in browser</a>' +
    '<script>alert("x")</script></body></html>';

  async function aSentBroadcast(channelId: number, overrides: Parameters<ApiHarness['fixtures']['aBroadcast']>[1], sentAt: Date): Promise<number> {
    const b = await api.fixtures.aBroadcast(channelId, overrides);
    await api.database.db('broadcasts').where({ id: b.id }).update({ status: 'sent', sent_at: sentAt });
    return b.id;
  }

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    api = await startApi({ overrides: sendingInProcess(PUBLIC_URL, mailer), env: { PUBLIC_URL } });
    const channel = await api.fixtures.aChannel({ name: 'Weekly <News> & Co', fromEmail: 'news@example.test' });
    slug = channel.slug;
    token = await api.fixtures.aToken(channel.id);
    await api.fixtures.aCaptureServer(channel.id, smtp.port);
    await api.fixtures.aSubscriber(channel.id, 'ann@example.test', { firstName: 'Ann', customData: { secret: 's3cr3t' } });

    const b = await api.fixtures.aBroadcast(channel.id, {
      subject: 'News for {{ subscriber.first_name }} <b>',
      body: null,
      htmlBody: HTML,
      preheader: 'Read me first',
      trackOpens: true,
      trackClicks: true,
      includeUnsubscribeLink: true,
      archive: true,
    });
    sent = b.id;
    await api.database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled' });
    expect(await api.container.resolve(DeliverBroadcast).execute({ broadcastId: b.id })).toBe('finished');
    email = await parseEmail((await smtp.waitFor(1))[0]!.raw);
    // Sent after the first, so listed before it.
    newer = await aSentBroadcast(channel.id, { subject: 'Second issue', htmlBody: '<p>Two</p>', archive: true }, new Date(Date.now() + 60_000));
    notArchived = await aSentBroadcast(channel.id, { subject: 'Private issue', archive: false }, new Date());
    draft = (await api.fixtures.aBroadcast(channel.id, { subject: 'Draft issue', archive: true })).id;
    const other = await api.fixtures.aChannel({ name: 'Other' });
    foreign = await aSentBroadcast(other.id, { subject: 'Foreign issue', archive: true }, new Date());
  });
  afterAll(async () => {
    await mailer.close();
    await api.close();
    await smtp.close();
  });

  it('gives the channel a slug from its name, shown by whoami', async () => {
    expect(slug).toBe('weekly-news-co');
    const whoami = await request(api.app).get('/api/v1/whoami').set('Authorization', `Bearer ${token}`);
    expect(whoami.body.channel).toEqual({ id: expect.any(Number), name: 'Weekly <News> & Co', slug: 'weekly-news-co' });
    const twin = await api.fixtures.aChannel({ name: 'Weekly: News & Co!' });
    expect(twin.slug).toBe('weekly-news-co-2');
  });

  it('lists the archived, sent broadcasts newest first, escaped, without the others', async () => {
    expect((await api.database.db('broadcasts').where({ id: sent }).first()).status).toBe('sent');
    const res = await get(`/archive/${slug}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toContain("default-src 'none'");
    expect(res.headers['content-security-policy']).not.toContain('script-src');
    expect(res.text).toContain('<h1>Weekly &lt;News&gt; &amp; Co</h1>');
    const links = [...res.text.matchAll(/<li><a href="([^"]+)">([^<]*)<\/a>/g)].map((m) => [m[1], m[2]]);
    expect(links).toEqual([
      [`${PUBLIC_URL}/archive/${slug}/${newer}`, 'Second issue'],
      [`${PUBLIC_URL}/archive/${slug}/${sent}`, 'News for &lt;b&gt;'],
    ]);
    expect(res.text).toContain(`href="${PUBLIC_URL}/archive/${slug}/feed.atom"`);
    for (const hidden of ['Private issue', 'Draft issue', 'Foreign issue', 'Ann']) expect(res.text).not.toContain(hidden);
  });

  it("shows a broadcast's copy in a sandboxed frame, with no personal data and no tracking", async () => {
    const res = await get(`/archive/${slug}/${sent}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<h1>News for &lt;b&gt;</h1>');
    const frame = /<iframe title="[^"]*" sandbox="([^"]*)" referrerpolicy="no-referrer" srcdoc="([^"]*)"><\/iframe>/.exec(res.text);
    expect(frame).not.toBeNull();
    expect(frame![1]).not.toContain('allow-scripts');
    expect(frame![1]).not.toContain('allow-same-origin');
    // The author's HTML is only ever inside the escaped attribute: no tag of it reaches the page.
    expect(res.text).not.toMatch(/<script/i);
    const html = frame![2]!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    expect(html).toContain('<p>Hi  (, )</p>');
    expect(html).toContain('<a href="https://example.com/landing">Go</a>');
    // {{ web_view_url }} in the public copy is the copy itself.
    expect(html).toContain(`<a href="${PUBLIC_URL}/archive/${slug}/${sent}">View in browser</a>`);
    expect(html).toContain('Read me first');
    for (const personal of ['Ann', 'ann@example.test', 's3cr3t']) expect(res.text).not.toContain(personal);
    for (const tracking of ['/t/o/', '/t/c/', '/u/', 'Unsubscribe', '<img']) expect(html).not.toContain(tracking);
  });

  it('serves a valid, escaped Atom feed of the archived broadcasts', async () => {
    const res = await get(`/archive/${slug}/feed.atom`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml; charset=utf-8');
    expect(XMLValidator.validate(res.text)).toBe(true);
    const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(res.text).feed;
    expect(feed.xmlns).toBe('http://www.w3.org/2005/Atom');
    expect(res.text).toContain('<title type="text">Weekly &lt;News&gt; &amp; Co</title>');
    expect(feed.title['#text']).toBe('Weekly <News> & Co');
    expect(feed.id).toBe(`${PUBLIC_URL}/archive/${slug}`);
    expect(feed.author.name).toBe('Weekly <News> & Co');
    const entries = feed.entry as Array<Record<string, any>>;
    expect(entries.map((e) => e.id)).toEqual([`${PUBLIC_URL}/archive/${slug}/${newer}`, `${PUBLIC_URL}/archive/${slug}/${sent}`]);
    expect(entries[1]!.title['#text']).toBe('News for <b>');
    expect(entries[1]!.content.type).toBe('html');
    expect(entries[1]!.content['#text']).toContain('<p>Hi  (, )</p>');
    expect(res.text).toContain('&lt;p&gt;Hi  (, )&lt;/p&gt;');
    expect(res.text).not.toMatch(/<script/i);
    expect(entries[1]!.updated).toBe((await api.database.db('broadcasts').where({ id: sent }).first()).sent_at.toISOString());
    for (const hidden of ['Ann', 's3cr3t', '/t/o/', 'Private issue', 'Draft issue', 'Foreign issue']) expect(res.text).not.toContain(hidden);
  });

  it.each([
    ['an unknown channel', () => '/archive/no-such-channel'],
    ['a malformed slug', () => '/archive/Weekly%20News'],
    ['the feed of an unknown channel', () => '/archive/no-such-channel/feed.atom'],
    ['a broadcast that is not archived', () => `/archive/${slug}/${notArchived}`],
    ['an archived draft', () => `/archive/${slug}/${draft}`],
    ["another channel's broadcast", () => `/archive/${slug}/${foreign}`],
    ['an id that is not one', () => `/archive/${slug}/abc`],
    ['an unknown broadcast', () => `/archive/${slug}/999999`],
  ])('answers a 404 page for %s', async (_label, url) => {
    const res = await get(url());
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('Not found');
  });

  it("web_view_url in the email opens the recipient's own copy, untracked, and changes nothing", async () => {
    const href = [...email.html!.matchAll(/<a href="([^"]+)">View in browser<\/a>/g)].map((m) => m[1]!)[0]!;
    expect(href).toMatch(new RegExp(`^${PUBLIC_URL}/w/w\\d+-[A-Za-z0-9_-]{22}$`));
    // The email itself is tracked as usual; only the web view is not.
    expect(email.html).toContain('/t/o/');
    const before = {
      events: await count('email_events'),
      outbox: await count('events'),
      subscriber: await api.database.db('subscribers').where({ email: 'ann@example.test' }).first(),
    };

    const res = await get(path(href));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-robots-tag']).toBe('noindex, nofollow');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.text).toContain('<h1>News for Ann &lt;b&gt;</h1>');
    const srcdoc = /srcdoc="([^"]*)"/.exec(res.text)![1]!;
    expect(srcdoc).toContain('Hi Ann (ann@example.test, s3cr3t)');
    // The copy's own {{ web_view_url }} is this link again.
    expect(srcdoc).toContain(`href=&quot;${href}&quot;`);
    for (const tracking of ['/t/o/', '/t/c/', '/u/', 'Unsubscribe']) expect(srcdoc).not.toContain(tracking);
    expect(res.text).not.toMatch(/<script/i);

    expect(await count('email_events')).toBe(before.events);
    expect(await count('events')).toBe(before.outbox);
    expect(await api.database.db('subscribers').where({ email: 'ann@example.test' }).first()).toEqual(before.subscriber);
    expect((await request(api.app).post(path(href))).status).toBe(404);
  });

  it('answers a 404 page for a web-view token that does not verify', async () => {
    const href = /<a href="([^"]+)">View in browser<\/a>/.exec(email.html!)![1]!;
    const good = path(href).slice('/w/'.length);
    const mac = good.split('-')[1]!;
    const recipient = good.slice(1).split('-')[0]!;
    const unsubscribeToken = /\/u\/(\d+-[A-Za-z0-9_-]{22})/.exec(email.html!)![1]!;
    for (const bad of [
      `w${recipient}-${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `w${Number(recipient) + 1}-${mac}`,
      unsubscribeToken,
      `w${unsubscribeToken}`,
      'nothing',
    ]) {
      const res = await get(`/w/${bad}`);
      expect(res.status).toBe(404);
      expect(res.text).toContain('Not found');
    }
  });

  describe('the archive field', () => {
    const call = (method: 'get' | 'post' | 'patch', p: string, body?: object) => {
      const r = request(api.app)[method](`/api/v1${p}`).set('Authorization', `Bearer ${token}`);
      return body === undefined ? r : r.send(body);
    };

    it('is false by default, set on create and shown', async () => {
      const plain = await call('post', '/broadcasts', { subject: 'Plain', body: 'B' });
      expect((await call('get', `/broadcasts/${plain.body.id}`)).body.archive).toBe(false);
      const archived = await call('post', '/broadcasts', { broadcast: { subject: 'Archived', body: 'B', archive: true } });
      expect(archived.status).toBe(201);
      const shown = await call('get', `/broadcasts/${archived.body.id}`);
      expect(shown.body.archive).toBe(true);
      expect(shown.body.warnings).toBeUndefined();
      expect((await call('post', '/broadcasts', { subject: 'Bad', body: 'B', archive: 'yes' })).status).toBe(422);
    });

    it('may be changed alone on a sent broadcast, without touching its version; with other fields the status rule holds', async () => {
      const version = (await api.database.db('broadcasts').where({ id: notArchived }).first()).version;
      const res = await call('patch', `/broadcasts/${notArchived}`, { archive: true });
      expect(res.status).toBe(200);
      expect(res.body.archive).toBe(true);
      expect((await api.database.db('broadcasts').where({ id: notArchived }).first()).version).toBe(version);
      expect((await get(`/archive/${slug}/${notArchived}`)).status).toBe(200);

      const refused = await call('patch', `/broadcasts/${notArchived}`, { archive: false, subject: 'Changed' });
      expect(refused.status).toBe(422);
      expect((await call('patch', `/broadcasts/${notArchived}`, { archive: false })).body.archive).toBe(false);
      expect((await get(`/archive/${slug}/${notArchived}`)).status).toBe(404);
      expect((await call('patch', '/broadcasts/999999', { archive: true })).status).toBe(404);
    });
  });
});

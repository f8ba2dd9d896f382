import { NodemailerMailer } from '@mailcast/adapters';
import { Clock, DeliverBroadcast } from '@mailcast/core';
import { parseEmail, startSmtpCapture, type ParsedEmail, type SmtpCapture } from '@mailcast/devkit';
import request from 'supertest';
import { sendingInProcess, startApi, type ApiHarness } from '../test-support/harness';

const PUBLIC_URL = 'http://links.example.test';

/** Tracking and unsubscribe, driven by the links of a real email received over SMTP. */
describe('public tracking and unsubscribe routes', () => {
  let api: ApiHarness;
  let smtp: SmtpCapture;
  let email: ParsedEmail;
  let broadcastId: number;
  let subscriberId: number;
  let channelId: number;
  const mailer = new NodemailerMailer({ allowPrivate: true, allowPlaintext: false });
  // Real time, moved forward when a test needs the engagement window to pass.
  let offsetMs = 0;
  const clock = { now: () => new Date(Date.now() + offsetMs) };

  const path = (url: string) => url.slice(PUBLIC_URL.length);
  const count = async (table: string, where: Record<string, unknown>) =>
    Number((await api.database.db(table).where(where).count<{ n: string }[]>({ n: '*' }))[0]!.n);

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    api = await startApi({
      overrides: [...sendingInProcess(PUBLIC_URL, mailer), { token: Clock, value: clock }],
    });
    const channel = await api.fixtures.aChannel({ fromEmail: 'news@example.test' });
    channelId = channel.id;
    await api.fixtures.aCaptureServer(channel.id, smtp.port);
    const [row] = await api.database.db('subscribers').insert({ channel_id: channel.id, email: 'ann@example.test', first_name: 'Ann' }).returning('id');
    subscriberId = row.id;
    const b = await api.fixtures.aBroadcast(channel.id, {
      subject: 'News for {{ subscriber.first_name }}',
      body: 'Plain part for {{ subscriber.first_name }}',
      htmlBody:
        '<html><body><p>Hi {{ subscriber.first_name }}</p>' +
        '<a href="https://example.com/landing?x=1&amp;y=2">Go</a> ' +
        '<a href="https://example.com/u/{{ subscriber.first_name }}">Mine</a></body></html>',
      preheader: 'Read me first',
      trackOpens: true,
      trackClicks: true,
      includeUnsubscribeLink: true,
    });
    broadcastId = b.id;
    await api.database.db('broadcasts').where({ id: b.id }).update({ status: 'scheduled' });
    expect(await api.container.resolve(DeliverBroadcast).execute({ broadcastId: b.id })).toBe('finished');
    email = await parseEmail((await smtp.waitFor(1))[0]!.raw);
  });
  afterAll(async () => {
    await mailer.close();
    await api.close();
    await smtp.close();
  });

  const links = () => [...email.html!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

  it('rewrites static links to tracked redirects, leaves personalised ones, hides the preheader', () => {
    expect(links()).toEqual([
      expect.stringMatching(new RegExp(`^${PUBLIC_URL}/t/c/\\d+-[A-Za-z0-9_-]{22}/[A-Za-z0-9_-]{12}$`)),
      'https://example.com/u/Ann',
      expect.stringMatching(new RegExp(`^${PUBLIC_URL}/u/\\d+-[A-Za-z0-9_-]{22}$`)),
    ]);
    expect(email.html).toContain('Read me first</div>');
    expect(email.text!.trim()).toBe(`Plain part for Ann\n\nUnsubscribe: ${links()[2]}`);
  });

  it('serves the open pixel uncached; 30 loads within the window are one open, one event (docs/security.md)', async () => {
    const pixel = /<img src="([^"]+)"/.exec(email.html!)![1]!;
    for (let i = 0; i < 30; i++) {
      const res = await request(api.app).get(path(pixel));
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('image/gif');
      expect(res.headers['cache-control']).toContain('no-store');
      expect((res.body as Buffer).subarray(0, 6).toString('latin1')).toBe('GIF89a');
    }
    expect(await count('email_events', { broadcast_id: broadcastId, type: 'opened' })).toBe(1);
    expect(await count('events', { channel_id: channelId, type: 'email.opened' })).toBe(1);
    // Past the window, a load is an open again.
    offsetMs += 60_001;
    expect((await request(api.app).get(path(pixel))).status).toBe(200);
    expect(await count('email_events', { broadcast_id: broadcastId, type: 'opened' })).toBe(2);
    expect(await count('events', { channel_id: channelId, type: 'email.opened' })).toBe(2);
  });

  it('redirects a click to the stored URL only, and records it with its link', async () => {
    const tracked = links()[0]!;
    for (let i = 0; i < 10; i++) {
      const res = await request(api.app).get(path(tracked));
      expect(res.status).toBe(302);
      expect(res.headers.location).toBe('https://example.com/landing?x=1&y=2');
    }
    const [event] = await api.database.db('email_events').where({ broadcast_id: broadcastId, type: 'clicked' });
    const link = await api.database.db('broadcast_links').where({ id: event.link_id }).first();
    expect(link).toMatchObject({ broadcast_id: broadcastId, url: 'https://example.com/landing?x=1&y=2' });
    expect(await count('events', { channel_id: channelId, type: 'email.clicked' })).toBe(1);

    // A forged or altered token, or a link the broadcast does not have, leads nowhere.
    const token = /\/t\/c\/([^/]+)\//.exec(tracked)![1]!;
    const [id, mac] = token.split('-') as [string, string];
    const forged = `${id}-${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    const otherRecipient = `${Number(id) + 1}-${mac}`;
    for (const p of [
      `/t/c/${forged}/${link.identifier}`,
      `/t/c/${otherRecipient}/${link.identifier}`,
      `/t/c/${token}/AAAAAAAAAAAA`,
      `/t/c/${token}/..%2F..%2Fevil`,
      '/t/o/not-a-token',
    ]) {
      const bad = await request(api.app).get(p);
      expect(bad.status).toBe(404);
      expect(bad.headers.location).toBeUndefined();
    }
    expect(await count('email_events', { broadcast_id: broadcastId, type: 'clicked' })).toBe(1);
  });

  it('unsubscribes through the page and the one-click POST, once', async () => {
    const unsubscribe = path(links()[2]!);
    expect(email.headers['list-unsubscribe']).toBe(`<${links()[2]}>`);
    const page = await request(api.app).get(unsubscribe);
    expect(page.status).toBe(200);
    expect(page.text).toContain('ann@example.test');
    expect(page.text).toContain('<form method="post"');
    // A GET alone changes nothing (link scanners follow GETs).
    expect(await api.database.db('subscribers').where({ id: subscriberId }).first()).toMatchObject({ is_active: true });

    for (let i = 0; i < 2; i++) {
      const res = await request(api.app).post(unsubscribe).type('form').send('List-Unsubscribe=One-Click');
      expect(res.status).toBe(200);
      expect(res.text).toContain('You are unsubscribed');
    }
    const subscriber = await api.database.db('subscribers').where({ id: subscriberId }).first();
    expect(subscriber.is_active).toBe(false);
    expect(subscriber.unsubscribed_at).toBeInstanceOf(Date);
    expect(await count('email_events', { broadcast_id: broadcastId, type: 'unsubscribed' })).toBe(1);
    const events = await api.database.db('events').where({ channel_id: channelId, type: 'subscriber.unsubscribed' });
    expect(events.map((e: { data: Record<string, unknown> }) => e.data)).toEqual([
      expect.objectContaining({ subscriber_id: subscriberId, email: 'ann@example.test', is_active: false }),
    ]);
    expect((await request(api.app).get(unsubscribe)).text).toContain('You are unsubscribed');
    expect((await request(api.app).post('/u/1-AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });
});

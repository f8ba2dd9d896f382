import { parseEmail, type ParsedEmail } from '@mailcast/devkit';
import { useSendingHarness } from './test-support/sending-harness';

/** include_unsubscribe_link on transactionals (docs/transactionals.md "Unsubscribe link"). */
describe('transactional unsubscribe link (HTTP, dispatcher workers, real SMTP)', () => {
  const h = useSendingHarness();

  const send = (body: Record<string, unknown>, key?: string) => h.sendTransactional(body, key);
  /** Sends one and answers the email the SMTP server received. */
  const delivered = async (body: Record<string, unknown>): Promise<ParsedEmail> => {
    const res = await send(body);
    expect(res.status).toBe(201);
    const done = await h.transactionalOutcome(res.body.id);
    expect(done.status).toBe('sent');
    return parseEmail(h.received(String(body.to))[0]!.raw);
  };
  /** Without authentication, as a mail client or a reader's browser would ask. */
  const publicRequest = async (method: 'GET' | 'POST', url: string) => {
    // A browser's agent: Node's own ("node") is on the bot list, whose one-click POST is held (docs/engagement.md).
    const agent = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' };
    const res = await fetch(url, {
      method,
      ...(method === 'POST'
        ? { headers: { ...agent, 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' }
        : { headers: agent }),
    });
    return { status: res.status, text: await res.text() };
  };
  const subscriber = async (email: string) => (await h.request('GET', `/api/v1/subscribers/find.json?email=${email}`)).body;
  const occurrences = (haystack: string | undefined, needle: string) => (haystack ?? '').split(needle).length - 1;
  const unsubscribedEvents = () =>
    h.api.database.db('events').where({ channel_id: h.channelId, type: 'subscriber.unsubscribed' }).select('data') as Promise<
      Array<{ data: { email: string } }>
    >;

  it('adds the link to both parts and the RFC 8058 headers; the link unsubscribes that subscriber, a forged one nobody', async () => {
    const mail = await delivered({
      to: 'weekly@example.com',
      subject: 'Your receipt',
      body: 'Thanks for your order.',
      html_body: '<html><body><p>Thanks for your order.</p></body></html>',
      include_unsubscribe_link: true,
    });
    const header = mail.headers['list-unsubscribe'];
    expect(header).toMatch(new RegExp(`^<${h.baseUrl}/u/t\\d+-[A-Za-z0-9_-]{22}>$`));
    const url = header!.slice(1, -1);
    expect(mail.headers['list-unsubscribe-post']).toBe('List-Unsubscribe=One-Click');
    expect(mail.text).toContain(`Thanks for your order.\n\nUnsubscribe: ${url}`);
    expect(occurrences(mail.text, url)).toBe(1);
    expect(occurrences(mail.html, `<a href="${url}">Unsubscribe</a>`)).toBe(1);
    expect(mail.html!.indexOf(url)).toBeLessThan(mail.html!.indexOf('</body>'));

    // The page only asks; a link scanner's GET unsubscribes no one.
    const page = await publicRequest('GET', url);
    expect(page.status).toBe(200);
    expect(page.text).toContain('weekly@example.com');
    expect(page.text).toContain('<form method="post"');
    expect(await subscriber('weekly@example.com')).toMatchObject({ is_active: true, unsubscribed_at: null });

    // Altered MAC, the MAC moved to another transactional, a broadcast-shaped token: all refused.
    const [, id, mac] = /\/u\/t(\d+)-(.+)$/.exec(url)!;
    const other = await send({ to: 'other@example.com', subject: 'S', body: 'B', include_unsubscribe_link: true });
    const forged = [
      `${h.baseUrl}/u/t${id}-${mac!.slice(0, -1)}${mac!.endsWith('A') ? 'B' : 'A'}`,
      `${h.baseUrl}/u/t${other.body.id}-${mac}`,
      `${h.baseUrl}/u/${id}-${mac}`,
    ];
    for (const bad of forged) {
      expect((await publicRequest('POST', bad)).status).toBe(404);
      expect((await publicRequest('GET', bad)).status).toBe(404);
    }
    expect(await subscriber('weekly@example.com')).toMatchObject({ is_active: true, unsubscribed_at: null });
    expect(await subscriber('other@example.com')).toMatchObject({ is_active: true, unsubscribed_at: null });
    expect(await unsubscribedEvents()).toEqual([]);

    // The RFC 8058 one-click POST.
    const done = await publicRequest('POST', url);
    expect(done.status).toBe(200);
    expect(done.text).toContain('weekly@example.com');
    expect(await subscriber('weekly@example.com')).toMatchObject({ is_active: false, unsubscribed_at: expect.any(String) });
    expect((await unsubscribedEvents()).map((e) => e.data.email)).toEqual(['weekly@example.com']);
    // Repeating it changes nothing and emits nothing more.
    expect((await publicRequest('POST', url)).status).toBe(200);
    expect(await unsubscribedEvents()).toHaveLength(1);
    expect((await publicRequest('GET', url)).text).toContain('You are unsubscribed');
  });

  it('{{ preferences_url }} is the preference page of the same token, and empty without an unsubscribe link (docs/topics.md)', async () => {
    const mail = await delivered({
      to: 'prefs@example.com',
      subject: 'S',
      body: 'Choose: {{ preferences_url }}',
      include_unsubscribe_link: true,
    });
    const url = mail.headers['list-unsubscribe']!.slice(1, -1);
    const preferences = url.replace('/u/', '/preferences/');
    expect(mail.text).toContain(`Choose: ${preferences}\n`);
    const page = await publicRequest('GET', preferences);
    expect([page.status, page.text]).toEqual([200, expect.stringContaining('prefs@example.com')]);
    const without = await delivered({ to: 'noprefs@example.com', subject: 'S', body: 'Choose: [{{ preferences_url }}]' });
    expect(without.text?.trim()).toBe('Choose: []');
  });

  it('by default adds no link and no List-Unsubscribe header, and unsubscribe_url renders empty', async () => {
    const mail = await delivered({
      to: 'reset@example.com',
      subject: 'Password reset',
      body: 'Reset: https://app.example.com/reset[{{ unsubscribe_url }}]',
      html_body: '<p>Reset</p>',
    });
    expect(mail.headers['list-unsubscribe']).toBeUndefined();
    expect(mail.headers['list-unsubscribe-post']).toBeUndefined();
    expect(mail.text?.trim()).toBe('Reset: https://app.example.com/reset[]');
    expect(mail.html).not.toContain('Unsubscribe');
    expect(mail.html).not.toContain('/u/');
  });

  it('a template placing {{ unsubscribe_url }} gets exactly one link in that part; the other part gets the footer', async () => {
    const template = await h.request('POST', '/api/v1/templates', {
      label: 'Digest',
      subject: 'Digest',
      body: 'News. Stop these: {{ unsubscribe_url }}',
      html_body: '<p>News. <a href="{{ unsubscribe_url }}">Stop these</a></p>',
    });
    expect(template.status).toBe(201);
    const mail = await delivered({ to: 'digest@example.com', template_id: template.body.id, include_unsubscribe_link: true });
    const url = mail.headers['list-unsubscribe']!.slice(1, -1);
    expect(mail.text?.trim()).toBe(`News. Stop these: ${url}`);
    expect(occurrences(mail.html, url)).toBe(1);
    expect(mail.html).toContain(`<a href="${url}">Stop these</a>`);

    const textOnly = await delivered({
      to: 'textonly@example.com',
      subject: 'S',
      body: 'Leave: {{ unsubscribe_url }}',
      html_body: '<p>Hello</p>',
      include_unsubscribe_link: true,
    });
    const own = textOnly.headers['list-unsubscribe']!.slice(1, -1);
    expect(own).not.toBe(url);
    expect(occurrences(textOnly.text, own)).toBe(1);
    expect(occurrences(textOnly.html, own)).toBe(1);
  });

  it('the flag is part of the idempotent body: same body replays, another flag is a 422', async () => {
    const body = { to: 'idem-unsub@example.com', subject: 'S', body: 'B', include_unsubscribe_link: true };
    const first = await send(body, 'unsub-1');
    expect(first.status).toBe(201);
    expect(await send(body, 'unsub-1')).toEqual({ status: 201, body: first.body });
    expect(await send({ ...body, include_unsubscribe_link: false }, 'unsub-1')).toEqual({
      status: 422,
      body: { error: 'Idempotency-Key was already used with a different request body' },
    });
    const stored = await h.api.database.db('transactionals').where({ id: first.body.id }).first('include_unsubscribe_link', 'unsubscribe_secret');
    expect(stored.include_unsubscribe_link).toBe(true);
    // Sealed at rest, like the broadcasts' tracking secrets.
    expect(stored.unsubscribe_secret).toMatch(/^mcs1\./);
    expect((await send({ ...body, include_unsubscribe_link: 'yes' })).body).toEqual({ errors: { include_unsubscribe_link: ['must be true or false'] } });
  });
});

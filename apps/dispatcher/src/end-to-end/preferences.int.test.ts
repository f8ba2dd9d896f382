import { verifyWebhook } from '@mailcast/domain';
import { parseEmail, type ParsedEmail } from '@mailcast/devkit';
import { eventually } from '@mailcast/testkit';
import { startStack, type Stack } from '../test-support/stack';

/**
 * docs/topics.md, "The preference page", end to end: a broadcast whose body places
 * `{{ preferences_url }}` sent by the dispatcher through a real SMTP server, the link followed
 * from the received email, a topic chosen by a form POST, the value read back through the API and
 * the signed `subscriber.preferences_updated` webhook received.
 */
describe('the preference page, from a received email', () => {
  let stack: Stack;
  let secret: string;
  let email: ParsedEmail;
  const topics: Record<string, number> = {};

  beforeAll(async () => {
    stack = await startStack();
  }, 30_000);
  afterAll(() => stack.close());

  const api = async (method: string, path: string, body?: object) => {
    const res = await fetch(`${stack.url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${stack.token}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };
  const form = (url: string, fields: Array<[string, string]>) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const find = async () => (await api('GET', '/subscribers/find.json?email=ann@example.com')).body;
  const preferenceHooks = () =>
    stack.hooks
      .map((h) => ({ ...h, json: JSON.parse(h.body) as { type: string; data: { subscriber: { email: string }; changes: unknown[] } } }))
      .filter((h) => h.json.type === 'subscriber.preferences_updated');
  const preferencesUrl = () => /Manage: (\S+)/.exec(email.text!)![1]!;

  it('sends a broadcast whose body carries the subscriber’s own preferences link', async () => {
    const endpoint = await api('POST', '/webhook_endpoints', { url: stack.receiverUrl, event_types: ['subscriber.preferences_updated'] });
    expect(endpoint.status).toBe(201);
    secret = endpoint.body.secret;
    for (const [name, body] of [
      ['news', { name: 'Product news', custom_data_key: 'news', description: 'New <b>things</b> & more' }],
      ['weekly', { name: 'Weekly <digest>', tag_name: 'weekly' }],
      ['hidden', { name: 'Internal', custom_data_key: 'internal', visible_on_preference_page: false }],
    ] as const) {
      const created = await api('POST', '/topics', body);
      expect(created.status).toBe(201);
      topics[name] = created.body.id;
    }
    expect((await api('POST', '/subscribers.json', { subscriber: { email: 'ann@example.com', first_name: 'Ann' } })).status).toBe(201);
    const broadcast = await api('POST', '/broadcasts', {
      broadcast: {
        subject: 'Hello',
        body: 'Hi {{ subscriber.first_name }}. Manage: {{ preferences_url }}',
        html_body: '<p>Hi</p><a href="{{ preferences_url }}">Manage</a>',
        include_unsubscribe_link: true,
        track_clicks: true,
      },
    });
    expect((await api('POST', `/broadcasts/${broadcast.body.id}/send_broadcast`)).status).toBe(200);
    const message = await eventually(async () => stack.smtp.messages.find((m) => m.to.includes('ann@example.com')), 30_000, 100);
    email = await parseEmail(message.raw);
    const unsubscribe = /<(http[^>]+)>/.exec(email.headers['list-unsubscribe']!)![1]!;
    // The same signed token as the unsubscribe link, under /preferences/; untracked (personalised).
    expect(preferencesUrl()).toBe(unsubscribe.replace('/u/', '/preferences/'));
    expect(email.html).toContain(`href="${preferencesUrl()}"`);
  });

  it('shows the visible topics escaped, under a strict CSP, and changes nothing on GET', async () => {
    const before = await find();
    const page = await fetch(preferencesUrl());
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(html).toContain('Product news');
    expect(html).toContain('Weekly &lt;digest&gt;');
    expect(html).toContain('New &lt;b&gt;things&lt;/b&gt; &amp; more');
    expect(html).not.toContain('Internal');
    expect(html).not.toContain('<script');
    expect(html).toContain('Unsubscribe from all');
    expect((html.match(/ checked/g) ?? []).length).toBe(0);
    expect(await find()).toEqual(before);
    expect(before.topics).toEqual({ [topics.news!]: null, [topics.weekly!]: null, [topics.hidden!]: null });
  });

  it('saves a choice by POST: the value changes and the signed webhook arrives', async () => {
    const saved = await form(preferencesUrl(), [
      ['shown', String(topics.news)],
      ['shown', String(topics.weekly)],
      ['receive', String(topics.news)],
    ]);
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('Your preferences are saved.');
    const ann = await find();
    expect(ann.topics).toEqual({ [topics.news!]: true, [topics.weekly!]: null, [topics.hidden!]: null });
    expect(ann.custom_data).toEqual({ news: true });

    const [hook] = await eventually(async () => (preferenceHooks().length >= 1 ? preferenceHooks() : undefined), 20_000, 100);
    expect(verifyWebhook(secret, hook!.headers as Record<string, string>, Buffer.from(hook!.body))).toMatchObject({ ok: true });
    expect(hook!.json.data).toMatchObject({
      subscriber: { email: 'ann@example.com', custom_data: { news: true } },
      changes: [{ topic_id: topics.news, from: null, to: true }],
    });

    // The other way round: no for the key, the tag added.
    await form(preferencesUrl(), [
      ['shown', String(topics.news)],
      ['shown', String(topics.weekly)],
      ['receive', String(topics.weekly)],
    ]);
    const again = await find();
    expect([again.topics[topics.news!], again.topics[topics.weekly!], again.tags]).toEqual([false, true, ['weekly']]);
    const hooks = await eventually(async () => (preferenceHooks().length >= 2 ? preferenceHooks() : undefined), 20_000, 100);
    expect(hooks[1]!.json.data.changes).toEqual([
      { topic_id: topics.news, from: true, to: false },
      { topic_id: topics.weekly, from: null, to: true },
    ]);
    // The page now shows the choice.
    expect(((await (await fetch(preferencesUrl())).text()).match(/ checked/g) ?? []).length).toBe(1);
  });

  it('is linked from the unsubscribe page; a token that does not verify is a 404 page', async () => {
    const unsubscribe = /<(http[^>]+)>/.exec(email.headers['list-unsubscribe']!)![1]!;
    const page = await (await fetch(unsubscribe)).text();
    const token = unsubscribe.split('/u/')[1]!;
    expect(page).toContain(`href="../preferences/${token}"`);
    const forged = preferencesUrl().replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    const answer = await fetch(forged);
    expect([answer.status, answer.headers.get('content-type')]).toEqual([404, 'text/html; charset=utf-8']);
    expect((await form(forged, [['unsubscribe_all', '1']])).status).toBe(404);
    expect((await find()).is_active).toBe(true);
  });

  it('unsubscribes from all, keeping the choices', async () => {
    const gone = await form(preferencesUrl(), [['unsubscribe_all', '1']]);
    expect([gone.status, await gone.text()]).toEqual([200, expect.stringContaining('receives no more emails')]);
    const ann = await find();
    expect([ann.is_active, ann.unsubscribed_at !== null, ann.topics[topics.weekly!]]).toEqual([false, true, true]);
    expect(await (await fetch(preferencesUrl())).text()).toContain('You are unsubscribed from all emails');
  });
});

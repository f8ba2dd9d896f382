import type { Browser, Page } from 'puppeteer-core';
import { accessibilityViolations, launchBrowser, openPage, waitForText, type AxeViolation } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';
import { aUser, type TestUser } from '../../api/src/test-support/users';

/**
 * Every page the dashboard has, with data in it, checked by axe-core (no serious or critical
 * violation), and the main flow driven from the keyboard alone: skip link, sign in, create a
 * broadcast and send it (docs/dashboard.md, "Accessibility"). Each step ends with no console error,
 * page error or failed request.
 */
jest.setTimeout(90_000);

describe('the dashboard is accessible', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let sudo: TestUser;
  let sudoId = 0;
  const ids: Record<'draft' | 'sent' | 'sequence' | 'form' | 'webhook', number> = { draft: 0, sent: 0, sequence: 0, form: 0, webhook: 0 };

  /** An API call with the channel's token; answers the JSON body, failing on a refusal. */
  async function call(method: string, path: string, body?: object): Promise<any> {
    const res = await fetch(`${stack.url}/api/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} answered ${res.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
    sudo = await aUser(stack.api, { email: 'root@example.com', sudo: true });
    sudoId = sudo.id;
    // Data on every page: subscribers, a topic, a sequence with a step, a form, a webhook endpoint, a draft.
    for (const [email, first_name] of [
      ['ann@example.com', 'Ann'],
      ['bob@example.com', 'Bob'],
    ]) {
      await call('POST', '/subscribers.json', { subscriber: { email, first_name, tags: ['vip'] } });
    }
    await call('POST', '/topics', { topic: { name: 'News', custom_data_key: 'news' } });
    ids.sequence = (await call('POST', '/sequences', { sequence: { label: 'Welcome' } })).id;
    await call('POST', `/sequences/${ids.sequence}/steps`, { step: { subject: 'Hello', body: '<p>Hi</p>' } });
    ids.form = (await call('POST', '/opt_in_forms', { opt_in_form: { label: 'Newsletter' } })).id;
    ids.webhook = (await call('POST', '/webhook_endpoints', { webhook_endpoint: { url: stack.receiverUrl, event_types: ['email.opened'] } })).id;
    ids.draft = (await call('POST', '/broadcasts', { broadcast: { name: 'Draft one', subject: 'Soon', body: '<p>Soon</p>' } })).id;
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  const active = () =>
    page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null;
      const style = el ? getComputedStyle(el) : undefined;
      return {
        tag: el?.tagName.toLowerCase() ?? '',
        id: el?.id ?? '',
        name: el?.getAttribute('name') ?? '',
        text: (el?.textContent ?? '').trim(),
        // A visible focus style: an outline (the :focus-visible ring) of some width.
        ring: style !== undefined && style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
      };
    });

  /** Presses Tab until the focused element is `want` (a name attribute or a text), checking each stop shows its focus. */
  async function tabTo(want: { name?: string; text?: string }, limit = 60): Promise<void> {
    for (let i = 0; i < limit; i++) {
      await page.keyboard.press('Tab');
      const now = await active();
      if (now.tag !== 'main' && now.tag !== 'body') expect({ at: now.name || now.text, ring: now.ring }).toEqual({ at: now.name || now.text, ring: true });
      if ((want.name !== undefined && now.name === want.name) || (want.text !== undefined && now.text === want.text)) return;
    }
    throw new Error(`Tab never reached ${JSON.stringify(want)}`);
  }

  /** axe-core on the page as it is: the violations, by page name, so a failure names every page at once. */
  const found: Record<string, AxeViolation[]> = {};
  async function check(name: string): Promise<void> {
    // Every impact, not only serious and critical: the existing pages have none at any level.
    const violations = await accessibilityViolations(page, ['minor', 'moderate', 'serious', 'critical']);
    if (violations.length > 0) found[name] = violations;
  }

  it('passes axe on the signed-out pages', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=email]');
    await check('sign-in');
    await page.goto(`${stack.url}/app/forgot-password`);
    await waitForText(page, 'h1', 'password');
    await check('forgot-password');
    await page.goto(`${stack.url}/app/reset-password?token=not-a-real-one`);
    await page.waitForSelector('input[type=password]');
    await check('reset-password');
    expect(found).toEqual({});
  });

  it('signs in, creates a broadcast and sends it with the keyboard alone', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=email]');
    await tabTo({ name: 'email' });
    await page.keyboard.type(sudo.email);
    await tabTo({ name: 'password' });
    await page.keyboard.type(sudo.password);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');

    // The first Tab reaches the skip link, shown on screen while focused; Enter moves focus to the main content.
    await page.keyboard.press('Tab');
    expect(await active()).toMatchObject({ text: 'Skip to content', ring: true });
    const skip = await page.$eval('a.skip', (a) => {
      const r = a.getBoundingClientRect();
      return r.left >= 0 && r.top >= 0 && r.width > 0;
    });
    expect(skip).toBe(true);
    await page.keyboard.press('Enter');
    expect(await active()).toMatchObject({ tag: 'main', id: 'main' });

    await tabTo({ text: 'New broadcast' });
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'New broadcast');
    await tabTo({ name: 'name' });
    await page.keyboard.type('Keyboard news');
    await tabTo({ name: 'subject' });
    await page.keyboard.type('Hello {{ subscriber.first_name }}');
    await tabTo({ name: 'html_body' });
    await page.keyboard.type('<p>Typed without a mouse</p>');
    await tabTo({ text: 'Create draft' });
    // Space presses a focused button, as Enter does.
    await page.keyboard.press('Space');
    await page.waitForSelector('.live[data-status=draft]');
    ids.sent = Number(/\/broadcasts\/(\d+)$/.exec(page.url())![1]);
    await tabTo({ text: 'Send now' });
    await page.keyboard.press('Enter'); // the confirmation is accepted as OK
    await page.waitForSelector('.live[data-status=sent]', { timeout: 30_000 });
    const stored = await call('GET', `/broadcasts/${ids.sent}`);
    expect(stored).toMatchObject({ name: 'Keyboard news', subject: 'Hello {{ subscriber.first_name }}', status: 'sent' });
    expect(stack.smtp.messages.map((m) => m.to[0]).sort()).toEqual(['ann@example.com', 'bob@example.com']);
  });

  // [name, path, what shows once the page has its data]
  const PAGES: Array<[string, () => string, string]> = [
    ['broadcasts', () => '/broadcasts', 'tr[data-broadcast] .badge'],
    ['broadcast-new', () => '/broadcasts/new', '[name=html_body]'],
    ['broadcast-draft', () => `/broadcasts/${ids.draft}`, '.live[data-status=draft]'],
    ['broadcast-edit', () => `/broadcasts/${ids.draft}/edit`, '[name=subject]'],
    ['broadcast-sent', () => `/broadcasts/${ids.sent}`, '.live[data-status=sent]'],
    ['statistics', () => `/broadcasts/${ids.sent}/statistics`, '.chart[data-drawn=true] canvas'],
    ['subscribers', () => '/subscribers', '[data-total]'],
    ['subscriber', () => '/subscribers/show?email=ann%40example.com', 'dd[data-active]'],
    ['topics', () => '/topics', 'tr[data-topic]'],
    ['sequences', () => '/sequences', 'tr[data-sequence]'],
    ['sequence', () => `/sequences/${ids.sequence}`, 'ol.tree li[data-action]'],
    ['forms', () => '/forms', 'tr[data-form]'],
    ['form', () => `/forms/${ids.form}`, '.form-preview'],
    ['webhooks', () => '/webhooks', 'table a'],
    ['webhook', () => `/webhooks/${ids.webhook}`, 'h1.url'],
    ['users', () => '/users', 'tr[data-user]'],
    ['user', () => `/users/${sudoId}`, 'h1'],
    ['audit-log', () => '/audit-log', 'table.audit-log tbody tr'],
    ['sessions', () => '/sessions', 'tr[data-session]'],
    ['two-factor', () => '/two-factor', 'h1'],
    ['not-found', () => '/no-such-page', 'h1'],
  ];
  it.each(PAGES)('passes axe on the %s page, with data in it', async (name, path, ready) => {
    await page.goto(`${stack.url}/app${path()}`);
    await page.waitForSelector(ready);
    await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
    await check(name);
    expect(found[name] ?? []).toEqual([]);
  });

  it('would fail on a violation: a nameless button and an unlabelled input planted on a page are reported', async () => {
    await page.evaluate(() => {
      document.querySelector('main')!.append(document.createElement('button'), document.createElement('input'));
    });
    const ids = (await accessibilityViolations(page)).map((v) => v.id).sort();
    expect(ids).toEqual(['button-name', 'label']);
    await page.reload();
    await page.waitForSelector('h1');
  });

  it('passes axe on the page states a flow shows: a preview, a new endpoint form, a form after sign-up', async () => {
    // Page states beyond the first render: a broadcast's preview, the new endpoint form, a refused form, a form's after-sign-up preview.
    await page.goto(`${stack.url}/app/broadcasts/${ids.draft}`);
    await page.waitForSelector('[name=preview_email]');
    await page.type('[name=preview_email]', 'ann@example.com');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.preview-subject');
    await check('broadcast-preview');
    await page.goto(`${stack.url}/app/webhooks`);
    await page.waitForSelector('table a');
    const newEndpoint = await page.$$('xpath/.//button[normalize-space()="New endpoint"] | .//a[normalize-space()="New endpoint"]');
    await newEndpoint[0]!.click();
    await page.waitForSelector('input[name=url]');
    await check('webhook-new');
    // A form's builder with its preview showing what follows a sign-up (the after-sign-up editor is on the page).
    await page.goto(`${stack.url}/app/forms/${ids.form}`);
    await page.waitForSelector('.preview-state button[data-state=after]');
    await page.click('.preview-state button[data-state=after]');
    await page.waitForSelector('.form-preview[data-drawn-state=after]');
    await page.waitForSelector('fieldset.after-signup [name=confirmation_redirect_url]');
    await check('form-after-signup');
    expect(found).toEqual({});
  });
});

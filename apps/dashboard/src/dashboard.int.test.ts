import type { Browser, Page } from 'puppeteer-core';
import { parseEmail } from '@mailcast/devkit';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The dashboard in a real Chromium against the real stack (api, dispatcher workers, SMTP and
 * webhook receivers on loopback). The steps share one browser and one page, in order, like a
 * user's session; every step ends with no console error, page error or failed request.
 */
describe('the dashboard in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  /** Takes one expected entry (a refused request the step provokes) off the problem list. */
  async function waitForProblem(pattern: RegExp): Promise<void> {
    await eventually(async () => (problems.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    problems.splice(
      problems.findIndex((p) => pattern.test(p)),
      1,
    );
  }

  it('signs in with an API token kept in session storage, never in the URL', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await screenshot(page, 'sign-in');

    // A wrong token: the API's own message shows. Its 401 is the one expected failed load.
    await page.type('input[name=token]', 'mc_not_a_token');
    await page.keyboard.press('Enter');
    await waitForText(page, '[role=alert]', 'Unauthorized');
    await waitForProblem(/status of 401 .*\/api\/v1\/whoami/);

    await page.$eval('input[name=token]', (el) => ((el as HTMLInputElement).value = ''));
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    await waitForText(page, '.empty', 'No broadcasts yet');
    expect(page.url()).toBe(`${stack.url}/app/broadcasts`);
    expect(page.url()).not.toContain(stack.token);
    expect(await page.evaluate(() => sessionStorage.getItem('mailcast.token'))).toBe(stack.token);
    expect(await page.evaluate(() => localStorage.length + document.cookie.length)).toBe(0);
    await screenshot(page, 'broadcasts-empty');

    // A reload keeps the session (same tab); the token never appears in the api's request log.
    await page.reload();
    await waitForText(page, 'h1', 'Broadcasts');
    expect(JSON.stringify(stack.api.logs)).not.toContain(stack.token);
  });

  it('serves the dashboard under a strict Content-Security-Policy with every asset local', async () => {
    const response = await fetch(`${stack.url}/app/broadcasts`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    const html = await response.text();
    expect(html).not.toMatch(/<script>|<style|style=|https?:\/\//);
    const external = await page.evaluate(() =>
      performance
        .getEntriesByType('resource')
        .map((e) => e.name)
        .filter((u) => !u.startsWith(location.origin)),
    );
    expect(external).toEqual([]);
  });
  const PEOPLE = [
    { email: 'ann@example.com', first_name: 'Ann', tags: ['vip'] },
    { email: 'bob@example.com', first_name: 'Bob', tags: ['vip', 'early'] },
    { email: 'cid@example.com', first_name: 'Cid', tags: [] },
  ];
  let broadcastId: number;

  /** Fills the labelled form field named `name` (clearing it first). */
  async function fill(name: string, value: string): Promise<void> {
    const selector = `[name="${name}"]`;
    await page.waitForSelector(selector);
    await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(selector, value);
  }

  it('adds a subscriber and creates a webhook endpoint through the pages', async () => {
    for (const person of PEOPLE.slice(0, 2)) {
      const res = await fetch(`${stack.url}/api/v1/subscribers.json`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ subscriber: person }),
      });
      expect(res.status).toBe(201);
    }
    await clickText(page, 'Subscribers');
    await waitForText(page, '[data-total]', 'of 2 subscribers');
    await fill('new_email', PEOPLE[2]!.email);
    await fill('new_first_name', PEOPLE[2]!.first_name);
    await clickText(page, 'Add');
    await waitForText(page, '[data-total]', 'of 3 subscribers');

    await clickText(page, 'Webhooks');
    await waitForText(page, '.empty', 'No webhook endpoints yet');
    await screenshot(page, 'webhooks-empty');
    await clickText(page, 'New endpoint');
    await fill('url', stack.receiverUrl);
    await fill('description', 'Engagement feed');
    for (const type of ['email.opened', 'email.clicked']) await page.click(`input[name=event_types][value="${type}"]`);
    await clickText(page, 'Create endpoint');
    await waitForText(page, '[role=status]', 'Signing secret');
    await waitForText(page, 'table a', stack.receiverUrl);
  });

  it('creates a broadcast, sends it and shows its progress live until sent', async () => {
    await clickText(page, 'Broadcasts');
    await clickText(page, 'New broadcast');
    await fill('name', 'Autumn news');
    await fill('subject', 'Hello {{ subscriber.first_name }}');
    await fill('body', 'Hi {{ subscriber.first_name }}, see https://example.com/a');
    await fill('html_body', '<p>Hi {{ subscriber.first_name }}</p><a href="https://example.com/a">A</a> <a href="https://example.com/b">B</a>');
    await screenshot(page, 'broadcast-new');
    await clickText(page, 'Create draft');
    await page.waitForSelector('.live[data-status=draft]');
    broadcastId = Number(/\/broadcasts\/(\d+)$/.exec(page.url())![1]);

    // The preview, rendered for one subscriber: an unknown one shows the API's message.
    await fill('preview_email', 'nobody@example.com');
    await clickText(page, 'Preview');
    await waitForText(page, '[role=alert]', 'Subscriber not found');
    await waitForProblem(/status of 404 .*\/preview/);
    await fill('preview_email', 'bob@example.com');
    await clickText(page, 'Preview');
    await waitForText(page, '.preview-subject', 'Hello Bob');
    expect(await page.$eval('.preview-text', (el) => el.textContent)).toContain('Hi Bob, see https://example.com/a');
    // The frame is keyed by the preview's HTML, so one found early may be replaced: look again
    // until a frame shows the email.
    const frame = await eventually(
      async () => {
        for (const f of page.frames().filter((f) => f.url().endsWith('/app/preview-frame.html'))) {
          const text = await f.evaluate(() => document.body?.textContent ?? '').catch(() => '');
          if (text.includes('Hi Bob')) return f;
        }
        return undefined;
      },
      20_000,
      50,
    );
    // The email's own inline style (its unsubscribe paragraph) applies inside the frame.
    expect(await frame.$eval('p[style]', (p) => getComputedStyle(p).fontSize)).toBe('12px');
    await screenshot(page, 'broadcast-preview');

    // Sending, watched without a reload: the page polls until the status is final. A mark left
    // on the window before the click is still there at the end, so the page never reloaded.
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    await clickText(page, 'Send now');
    await page.waitForSelector('.live[data-status=sent]', { timeout: 30_000 });
    expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
    expect(await page.$eval('.live', (el) => el.textContent)).toContain('100% · 3/3');
    await screenshot(page, 'broadcast-sent');
    expect(
      smtp()
        .map((m) => m.to[0])
        .sort(),
    ).toEqual(PEOPLE.map((p) => p.email).sort());

    await clickText(page, '← Broadcasts');
    await waitForText(page, 'tr[data-broadcast] .badge', 'sent');
    await screenshot(page, 'broadcasts');
  });

  const smtp = () => stack.smtp.messages;

  it('shows an open and a click, made through the links of the received email, on the statistics chart', async () => {
    const mail = await parseEmail(smtp().find((m) => m.to[0] === 'ann@example.com')!.raw);
    const pixel = /<img src="([^"]+)"/.exec(mail.html!)![1]!;
    const [clickA] = [...mail.html!.matchAll(/href="([^"]*\/t\/c\/[^"]+)"/g)].map((m) => m[1]!);
    expect((await fetch(pixel)).status).toBe(200);
    expect((await fetch(clickA!, { redirect: 'manual' })).status).toBe(302);

    await page.goto(`${stack.url}/app/broadcasts/${broadcastId}`);
    await clickText(page, 'Statistics');
    await page.waitForSelector('.chart[data-drawn=true] canvas');
    await waitForText(page, 'td[data-series=Opens]', 'Opens: 1');
    await waitForText(page, 'td[data-series=Clicks]', 'Clicks: 1');
    await waitForText(page, 'td[data-series=Delivered]', 'Delivered: 3');
    await waitForText(page, '[data-figure=Opens] .figure-value', '1');
    // Beside them, the human figures: this test's fetch sends Node's own agent, a bot to the
    // classifier, and clicked within 10 s of delivery, so neither counts as a person's.
    await waitForText(page, '[data-figure="Human opens"] .figure-value', '0');
    await waitForText(page, '[data-figure="Human clicks"] .figure-value', '0');
    await waitForText(page, 'table.links td.url', 'https://example.com/a');
    expect(await page.$$eval('table.links th', (cells) => cells.map((c) => c.textContent?.trim()))).toContain('Human clicks');

    // The links table sorts by unique clicks, then flips the order.
    await clickText(page, 'Unique clicks');
    await page.waitForSelector('th[aria-sort=descending] button');
    await clickText(page, 'Unique clicks ▼');
    await page.waitForSelector('th[aria-sort=ascending] button');
    // The table may redraw once more with the polled figures: wait for the order, then check it.
    const urls = () => page.$$eval('table.links td.url', (cells) => cells.map((c) => c.textContent).join(' '));
    await page
      .waitForFunction(
        () => [...document.querySelectorAll('table.links td.url')].map((c) => c.textContent).join(' ') === 'https://example.com/b https://example.com/a',
        { timeout: 5_000 },
      )
      .catch(() => undefined);
    expect(await urls()).toBe('https://example.com/b https://example.com/a');

    await page.select('select[name=timeframe]', '60m');
    await waitForText(page, 'p.small', 'one point per 1m');
    await page.waitForSelector('.chart[data-drawn=true] canvas');
    await waitForText(page, 'td[data-series=Clicks]', 'Clicks: 1');
    await screenshot(page, 'statistics');
  });

  it("names the reputation guard's reason on a broadcast it paused, beside the Resume button", async () => {
    // The guard's own pausing is tested in apps/dispatcher (reputation-guard*.int.test.ts); here, what the page shows of it.
    await stack.api.database.db('broadcasts').where({ id: broadcastId }).update({ status: 'paused', paused_from: 'sending', pause_reason: 'complaint_rate' });
    await page.goto(`${stack.url}/app/broadcasts/${broadcastId}`);
    await waitForText(page, '.pause-reason', 'Paused by the reputation guard: the complaint rate went over');
    await page.waitForFunction(() => [...document.querySelectorAll('button')].some((b) => b.textContent?.trim() === 'Resume'));
    expect(await accessibilityViolations(page)).toEqual([]);
    await stack.api.database.db('broadcasts').where({ id: broadcastId }).update({ status: 'sent', paused_from: null, pause_reason: null });
    await page.reload();
    await page.waitForSelector('.live[data-status=sent]');
    expect(await page.$('.pause-reason')).toBeNull();
  });

  it("filters subscribers by tag and opens a subscriber's page", async () => {
    await clickText(page, 'Subscribers');
    await fill('tags', 'vip');
    await clickText(page, 'Search');
    await waitForText(page, '[data-total]', 'of 2 subscribers');
    expect(await page.$$eval('table.subscribers tbody td:first-child', (cells) => cells.map((c) => c.textContent).sort())).toEqual([
      'ann@example.com',
      'bob@example.com',
    ]);
    await fill('tags', 'vip, early');
    await clickText(page, 'Search');
    await waitForText(page, '[data-total]', '1–1 of 1 subscribers');
    await screenshot(page, 'subscribers');

    await clickText(page, 'bob@example.com');
    await waitForText(page, 'h1', 'bob@example.com');
    await fill('tag', 'newsletter');
    await clickText(page, 'Add tag');
    await waitForText(page, '.tag', 'newsletter');
    await clickText(page, 'Deactivate');
    await page.waitForSelector('dd[data-active=false]');
    await screenshot(page, 'subscriber');
  });

  it('shows the webhook deliveries of the open and the click, and a test event, in the log', async () => {
    await clickText(page, 'Webhooks');
    await clickText(page, stack.receiverUrl);
    await waitForText(page, 'table.deliveries', 'email.clicked', 30_000);
    await waitForText(page, 'table.deliveries', 'email.opened');
    await clickText(page, 'Send a test event');
    await waitForText(page, 'tr[data-status=successful]', 'test.webhook', 30_000);
    expect(await page.$$eval('table.deliveries tr[data-status=successful]', (rows) => rows.length)).toBe(3);
    expect(stack.hooks.some((hook) => hook.body.includes('"test.webhook"'))).toBe(true);
    await screenshot(page, 'webhook');

    // Its settings saved: the notice stays once the page has reloaded the endpoint.
    await fill('description', 'Engagement feed (opens and clicks)');
    await clickText(page, 'Save');
    await waitForText(page, 'form [role=status]', 'Saved.');
    await page.waitForNetworkIdle({ idleTime: 300 });
    expect(await page.$eval('form [role=status]', (el) => el.textContent)).toBe('Saved.');
    expect(await page.$eval('[name=description]', (el) => (el as HTMLInputElement).value)).toBe('Engagement feed (opens and clicks)');
    const endpoints = await (await fetch(`${stack.url}/api/v1/webhook_endpoints`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
    expect((endpoints as { data: Array<{ description: string }> }).data.map((e) => e.description)).toEqual(['Engagement feed (opens and clicks)']);
  });

  it("is usable at a phone's width and with the keyboard alone", async () => {
    await page.setViewport({ width: 390, height: 844 });
    await clickText(page, 'Broadcasts');
    await waitForText(page, 'tr[data-broadcast] .badge', 'sent');
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, 'broadcasts-phone');
    await page.setViewport({ width: 1280, height: 900 });

    // The first Tab reaches the skip link; Enter on a focused link follows it.
    await page.goto(`${stack.url}/app/broadcasts`);
    await waitForText(page, 'h1', 'Broadcasts');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Subscribers');
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Subscribers');
  });

  it('shows only what the token may do: a subscribers_read token sees the subscribers, read-only', async () => {
    const narrow = await stack.api.fixtures.aToken(stack.channelId, ['subscribers_read']);
    await clickText(page, 'Sign out');
    await fill('token', narrow);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Subscribers');
    expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual(['Subscribers', 'Topics']);
    expect(await page.$('[name=new_email]')).toBeNull();
    await waitForText(page, '.who', 'Channel: Test channel');
    await clickText(page, 'ann@example.com');
    await waitForText(page, 'h1', 'ann@example.com');
    expect(await page.$$eval('button', (buttons) => buttons.map((b) => b.textContent))).toEqual(['Sign out']);
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { parseEmail } from '@mailcast/devkit';
import { eventually, freePort, PERSON_USER_AGENT } from '@mailcast/testkit';
import http from 'node:http';
import { accessibilityViolations, launchBrowser, openPage } from '../../../../dashboard/src/test-support/browser';
import { startStack, type Stack } from '../../../../dispatcher/src/test-support/stack';
import { aForm, formCounts, type FormSeed } from '../../test-support/forms';

/**
 * The embed script and the hosted page in a real Chromium (docs/opt-in-forms.md): each widget type
 * on a page served from another loopback origin (another port) than the api, appearing as its
 * trigger says, and submitting; the hosted page under its CSP. No console error, page error,
 * CSP violation or failed request on any page.
 */
describe('opt-in forms in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let site: http.Server;
  let siteUrl: string;
  let page: Page;
  let problems: string[];
  /** Requests the browser made, by URL: nothing may go to a host other than the site and the api. */
  let requested: string[];

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    const port = await freePort();
    siteUrl = `http://127.0.0.1:${port}`;
    // The customer's site: a long page with the embed tag where the query string says.
    site = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', siteUrl);
      const form = url.searchParams.get('form') ?? '';
      const tag = `<script src="${stack.url}/f/${form}/embed.js" async></script>`;
      const filler = Array.from({ length: 60 }, (_, i) => `<p>Paragraph ${i + 1} of the article.</p>`).join('');
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><head><title>Blog</title></head><body><h1>Article</h1><p>Intro</p>${tag}<p>After the tag</p>${filler}</body></html>`,
      );
    });
    await new Promise<void>((resolve) => site.listen(port, '127.0.0.1', resolve));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
    await stack?.close();
  });
  beforeEach(async () => {
    ({ page, problems } = await openPage(browser));
    requested = [];
    page.on('request', (r) => requested.push(r.url()));
  });
  afterEach(async () => {
    expect(problems).toEqual([]);
    const hosts = new Set(requested.map((u) => new URL(u).origin));
    for (const origin of hosts) expect([siteUrl, stack.url]).toContain(origin);
    await page.close();
  });

  /** A form whose submissions the time check answers without the use case: a second is always "too fast". */
  const widgetForm = (seed: FormSeed) =>
    aForm(stack.api.database.db, stack.channelId, {
      post_submission_blocks: [{ block_type: 'heading', text_value: 'You are on the list' }],
      ...seed,
      security_settings: { min_submit_seconds: 3600, ...seed.security_settings },
    });
  const visible = (selector: string) => page.waitForSelector(`pierce/${selector}`, { visible: true });
  const count = async (selector: string) => (await page.$$(`pierce/${selector}`)).length;

  async function fillAndSubmit(email: string): Promise<void> {
    const input = await visible('input[name=email]');
    await input!.type(email);
    await (await visible('button.mc-submit[type=submit]'))!.click();
    await visible('.mc-done');
    expect(await page.$eval('pierce/.mc-done', (el) => el.textContent)).toContain('You are on the list');
  }

  it('inline_embed: renders where the tag is, at once, and submits in place', async () => {
    const form = await widgetForm({ widget_type: 'inline_embed' });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    await visible('.mc-form');
    // Right after the script tag, before the next paragraph.
    expect(await page.evaluate(() => document.querySelector('[data-mailcast-widget]')!.nextElementSibling!.textContent)).toBe('After the tag');
    expect(await page.$eval('pierce/label[for]', (el) => el.textContent)).toBe('Email address');
    await fillAndSubmit('inline@example.com');
    await eventually(async () => ((await formCounts(stack.api.database.db, form.id)).views === 1 ? true : undefined), 5_000, 50);
  });

  it('popup_modal: opens after its delay as a labelled modal dialog with focus inside; Escape closes it', async () => {
    const form = await widgetForm({ widget_type: 'popup_modal', trigger_settings: { trigger: 'time_delay', delay_seconds: 1 } });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    const started = Date.now();
    const dialog = await visible('[role=dialog]');
    expect(Date.now() - started).toBeGreaterThanOrEqual(700);
    expect(await dialog!.evaluate((el) => [el.getAttribute('aria-modal'), el.getAttribute('aria-labelledby') !== null])).toEqual(['true', true]);
    expect(await page.evaluate(() => document.querySelector('[data-mailcast-widget]')!.shadowRoot!.activeElement?.getAttribute('name'))).toBe('email');
    expect(await accessibilityViolations(page)).toEqual([]);
    // Focus stays inside the modal: back from the first control (the close button) wraps to the last.
    const focused = () => page.evaluate(() => document.querySelector('[data-mailcast-widget]')!.shadowRoot!.activeElement?.className ?? '');
    await page.keyboard.down('Shift');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('mc-close');
    await page.keyboard.press('Tab');
    await page.keyboard.up('Shift');
    expect(await focused()).toBe('mc-submit');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('mc-close');
    await page.keyboard.press('Escape');
    await eventually(async () => ((await count('[role=dialog]')) === 0 ? true : undefined), 5_000, 50);

    // every_visit (the default): the next page view shows it again, and it submits.
    await page.reload();
    await visible('[role=dialog]');
    await fillAndSubmit('popup@example.com');
  });

  it('slide_in_panel: waits for the scroll percentage, then slides in and submits', async () => {
    const form = await widgetForm({ widget_type: 'slide_in_panel', trigger_settings: { trigger: 'scroll', scroll_percentage: 60 } });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await count('.mc-slide')).toBe(0);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await visible('.mc-slide');
    await fillAndSubmit('slide@example.com');
  });

  it('floating_button: the button appears on exit intent and opens the form as a dialog', async () => {
    const form = await widgetForm({ widget_type: 'floating_button', trigger_settings: { trigger: 'exit_intent' } });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await count('.mc-fab')).toBe(0);
    // The pointer leaves the page through its top edge.
    await page.evaluate(() => document.dispatchEvent(new MouseEvent('mouseout', { clientY: -1, relatedTarget: null, bubbles: true })));
    const fab = await visible('.mc-fab');
    expect(await fab!.evaluate((el) => el.textContent)).toBe('Subscribe');
    await fab!.click();
    await visible('[role=dialog]');
    await fillAndSubmit('fab@example.com');
  });

  it('sticky_bar with frequency once: shows at once, and never again after a reload', async () => {
    const form = await widgetForm({ widget_type: 'sticky_bar', trigger_settings: { trigger: 'immediate', frequency: 'once' } });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    await visible('.mc-bar[role=region]');
    await (await visible('.mc-close'))!.click();
    expect(await count('.mc-bar')).toBe(0);
    await page.reload();
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await count('.mc-bar')).toBe(0);
  });

  it('full_page: covers the page and submits; a form for mobiles only stays away from a desktop', async () => {
    const form = await widgetForm({ widget_type: 'full_page' });
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    await visible('.mc-full [role=dialog]');
    await fillAndSubmit('full@example.com');

    const mobileOnly = await widgetForm({ widget_type: 'popup_modal', trigger_settings: { devices: ['mobile'] } });
    await page.goto(`${siteUrl}/?form=${mobileOnly.identifier}`);
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(await count('[role=dialog]')).toBe(0);
    await page.setViewport({ width: 390, height: 800 });
    await page.reload();
    await visible('[role=dialog]');
  });

  it('a double opt-in sign-up end to end: embedded form → exactly one confirmation email → its link → the subscriber is confirmed', async () => {
    const form = await aForm(stack.api.database.db, stack.channelId, {
      widget_type: 'inline_embed',
      security_settings: { min_submit_seconds: 1 },
      automation_settings: { double_opt_in: true },
    });
    const before = stack.smtp.messages.length;
    await page.goto(`${siteUrl}/?form=${form.identifier}`);
    const input = await visible('input[name=email]');
    await input!.type('double@example.com');
    await (await visible('input[name=first_name]'))!.type('Dora');
    // A person takes longer than min_submit_seconds to fill a form in.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    await (await visible('button.mc-submit[type=submit]'))!.click();
    await visible('.mc-done');

    const subscriber = () => stack.api.database.db('subscribers').where({ channel_id: stack.channelId, email: 'double@example.com' }).first();
    expect(await subscriber()).toMatchObject({ first_name: 'Dora', confirmed_at: null });
    const [message] = (await stack.smtp.waitFor(before + 1, 20_000)).slice(before);
    expect(message!.to).toEqual(['double@example.com']);
    const email = await parseEmail(message!.raw);
    const link = /(http:\/\/127\.0\.0\.1:\d+\/confirm\/[A-Za-z0-9_-]+)/.exec(`${email.text} ${email.html}`)![1]!;
    // A person's browser follows the link (headless Chromium's own agent is a bot's, whose GET only shows a button).
    await page.setUserAgent(PERSON_USER_AGENT);
    await page.goto(link);
    await eventually(async () => ((await subscriber())?.confirmed_at ? true : undefined), 10_000, 50);
    // Exactly one confirmation email, and the counters saw one view and one submission.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stack.smtp.messages.slice(before).filter((m) => m.to.includes('double@example.com'))).toHaveLength(1);
    expect(await formCounts(stack.api.database.db, form.id)).toEqual({ views: 1, unique_views: 1, submissions: 1 });
  });

  it('the hosted page: renders under its CSP and submits in place', async () => {
    const form = await widgetForm({ widget_type: 'inline_embed' });
    await page.goto(`${stack.url}/f/${form.identifier}`);
    expect(await page.$eval('h2', (el) => el.textContent)).toBe('Join the <b>newsletter</b>');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.type('input[name=email]', 'hosted@example.com');
    await page.click('button.mc-submit');
    await page.waitForSelector('.mc-done');
    expect(await page.$eval('.mc-done', (el) => el.textContent)).toContain('You are on the list');
    await eventually(async () => ((await formCounts(stack.api.database.db, form.id)).views === 1 ? true : undefined), 5_000, 50);
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { launchBrowser, openPage, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The dashboard in a Chromium started as on a server or in CI: LANG=C and no --lang flag, so the
 * browser reports the locale `en-US@posix`, which Intl refuses (docs/dashboard.md, "Locale").
 * Before the locale helper the app never mounted (uPlot built a NumberFormat from that tag as its
 * module loaded). The main pages render, the statistics chart draws, and nothing logs an error.
 */
jest.setTimeout(60_000);

describe('the dashboard under LANG=C', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let broadcastId: number;

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
    [stack, browser] = await Promise.all([startStack(), launchBrowser({ posixLocale: true })]);
    ({ page, problems } = await openPage(browser));
    for (const email of ['ann@example.com', 'bob@example.com']) await call('POST', '/subscribers.json', { subscriber: { email } });
    broadcastId = (await call('POST', '/broadcasts', { broadcast: { name: 'Posix', subject: 'Hi', body: '<p>Hi <a href="https://example.com/a">a</a></p>' } }))
      .id;
    await call('POST', `/broadcasts/${broadcastId}/send_broadcast`);
    await eventually(async () => ((await call('GET', `/broadcasts/${broadcastId}`)).status === 'sent' ? true : undefined), 30_000, 200);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  it('is a browser whose own locale Intl refuses', async () => {
    const probe = await browser.newPage();
    await probe.goto('about:blank');
    const reported = await probe.evaluate(() => {
      let refused = '';
      try {
        new Intl.NumberFormat(navigator.language);
      } catch (e) {
        refused = String(e);
      }
      return { language: navigator.language, refused };
    });
    await probe.close();
    expect(reported).toEqual({ language: 'en-US@posix', refused: expect.stringContaining('RangeError') });
  });

  it('renders sign-in, broadcasts, statistics with its chart, and subscribers', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    await waitForText(page, 'tr[data-broadcast] .badge', 'sent');
    // The app formats in the locale it resolved, and repaired what uPlot reads.
    expect(await page.evaluate(() => [navigator.language, [...navigator.languages]])).toEqual(['en-US', ['en-US']]);

    await page.goto(`${stack.url}/app/broadcasts/${broadcastId}`);
    await page.waitForSelector('.live[data-status=sent]');
    // A date formatted by the app: a real date, not the raw API timestamp.
    const dates = await page.$$eval('dd, td', (cells) => cells.map((c) => c.textContent ?? '').filter((t) => /\d{1,2}\/\d{1,2}\/\d{4}/.test(t)));
    expect(dates.length).toBeGreaterThan(0);

    await page.goto(`${stack.url}/app/broadcasts/${broadcastId}/statistics`);
    await page.waitForSelector('.chart[data-drawn=true] canvas');
    await waitForText(page, 'td[data-series=Delivered]', 'Delivered: 2');
    await waitForText(page, '[data-figure=Recipients] .figure-value', '2');
    // uPlot's own axis labels are drawn on the canvas; its legend shows the series.
    expect(await page.$$eval('.u-legend .u-label', (labels) => labels.map((l) => l.textContent))).toEqual(expect.arrayContaining(['Delivered']));

    await page.goto(`${stack.url}/app/subscribers`);
    await waitForText(page, '[data-total]', 'of 2 subscribers');
  });
});

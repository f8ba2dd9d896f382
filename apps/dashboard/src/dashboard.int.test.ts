import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from './test-support/stack';

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
  // Until the api has whoami the dashboard falls back to a probe, after a 404 the browser logs.
  let hasWhoami: boolean;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
    const document = (await (await fetch(`${stack.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
    hasWhoami = '/api/v1/whoami' in document.paths;
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  /** Takes one expected entry (a refused request the step provokes) off the problem list. */
  async function waitForProblem(pattern: RegExp): Promise<void> {
    await eventually(async () => (problems.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    problems.splice(problems.findIndex((p) => pattern.test(p)), 1);
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
    if (!hasWhoami) await waitForProblem(/status of 404 .*\/api\/v1\/whoami/);
    expect(page.url()).toBe(`${stack.url}/app/broadcasts`);
    expect(page.url()).not.toContain(stack.token);
    expect(await page.evaluate(() => sessionStorage.getItem('mailcast.token'))).toBe(stack.token);
    expect(await page.evaluate(() => localStorage.length + document.cookie.length)).toBe(0);
    await screenshot(page, 'broadcasts-empty');

    // A reload keeps the session (same tab); the token never appears in the api's request log.
    await page.reload();
    await waitForText(page, 'h1', 'Broadcasts');
    if (!hasWhoami) await waitForProblem(/status of 404 .*\/api\/v1\/whoami/);
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
    const external = await page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name).filter((u) => !u.startsWith(location.origin)));
    expect(external).toEqual([]);
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { accessibilityViolations, clickText, launchBrowser, openPage, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * A subject test in the dashboard, in a real Chromium against the real stack (docs/subject-tests.md):
 * the broadcast editor sets it up, and the statistics page shows each subject's figures and the
 * winner. axe-core finds nothing serious on either.
 */
// A page load on the shared machine can take seconds; two pages and axe on each.
jest.setTimeout(120_000);

describe('a subject test in the dashboard', () => {
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

  const get = async (path: string) => (await fetch(`${stack.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
  async function type(name: string, value: string): Promise<void> {
    await page.waitForSelector(`[name="${name}"]`);
    await page.$eval(`[name="${name}"]`, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(`[name="${name}"]`, value);
  }

  it('the editor sets up the test, and the statistics page shows the variants and the winner', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await page.waitForSelector('header nav');
    await page.goto(`${stack.url}/app/broadcasts/new`);
    await page.waitForSelector('[name=subject]');
    await type('subject', 'Base');
    await type('body', 'Hello');
    await page.click('[name=ab_test]');
    await type('ab_test_subject_0', 'First idea');
    await type('ab_test_subject_1', 'Second idea');
    await clickText(page, 'Add a subject');
    await type('ab_test_subject_2', 'Third idea');
    await type('ab_test_sample_percent', '30');
    await page.select('[name=ab_test_metric]', 'human_clicks');
    await type('ab_test_wait_minutes', '90');
    expect(await accessibilityViolations(page)).toEqual([]);
    await clickText(page, 'Create draft');
    await page.waitForFunction(() => /\/broadcasts\/\d+$/.test(location.pathname));
    const id = Number(await page.evaluate(() => location.pathname.split('/').pop()));
    expect((await get(`/broadcasts/${id}`)).ab_test).toEqual({
      subjects: ['First idea', 'Second idea', 'Third idea'],
      sample_percent: 30,
      metric: 'human_clicks',
      wait_minutes: 90,
    });

    // As the dispatcher leaves it once decided (the decision itself: apps/dispatcher subject-test tests).
    await stack.api.database
      .db('broadcasts')
      .where({ id })
      .update({ status: 'sent', ab_winner: 1, ab_decided_at: new Date('2026-12-04T12:00:00Z') });
    await page.goto(`${stack.url}/app/broadcasts/${id}/statistics`);
    await page.waitForSelector('table.subject-test');
    const rows = await page.$$eval('table.subject-test tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['First idea', '0', '0', '0'],
      ['Second idea (winner)', '0', '0', '0'],
      ['Third idea', '0', '0', '0'],
    ]);
    await waitForText(page, '[data-subject-test-outcome]', 'Winner: “Second idea”');
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});

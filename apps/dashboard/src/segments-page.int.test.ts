import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The segments pages in a real Chromium against the real stack, driven as a user would
 * (docs/dashboard.md, "Segments"): the rule builder with its live count (debounced, this channel
 * only), the API's refusals beside the field or rule they name, the keyboard adding a rule, a
 * segment's page with its members paged by 250, edit, a read-only token's pages without
 * actions, and delete refused while a scheduled broadcast targets the segment, then done. Each
 * step ends with no console error, page error or failed request, and axe-core finds nothing
 * serious or critical on each page state.
 */
// Each step drives several live counts and an axe run: on a busy machine more than jest's 30 s.
jest.setTimeout(60_000);

describe('the segments pages in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let broadcastId: number;
  let segmentId: number;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
    const f = stack.api.fixtures;
    // 300 tagged vip (more than one page of members), one on the pro plan; another channel's
    // subscribers match every rule and must never be counted.
    // One statement for the 300: the pages are under test here, not the write path.
    await stack.api.database
      .db('subscribers')
      .insert(Array.from({ length: 300 }, (_, i) => ({ channel_id: stack.channelId, email: `vip${String(i).padStart(3, '0')}@example.com`, tags: ['vip'] })));
    await f.aSubscriber(stack.channelId, 'pro@example.com', { firstName: 'Pat', customData: { plan: 'pro' } });
    const other = await f.aChannel();
    for (const email of ['a@else.com', 'b@else.com']) await f.aSubscriber(other.id, email, { tags: ['vip'], customData: { plan: 'pro' } });
    broadcastId = (await f.aBroadcast(stack.channelId, { name: 'Spring news' })).id;
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  const get = async (path: string) => (await fetch(`${stack.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
  /** Takes one expected entry (a refused request the step provokes) off the problem list. */
  async function waitForProblem(pattern: RegExp, on = problems): Promise<void> {
    await eventually(async () => (on.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    on.splice(
      on.findIndex((p) => pattern.test(p)),
      1,
    );
  }
  async function fill(selector: string, value: string, on = page): Promise<void> {
    await on.waitForSelector(selector);
    await on.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await on.type(selector, value);
  }
  async function expectAccessible(on = page): Promise<void> {
    expect(await accessibilityViolations(on)).toEqual([]);
  }
  const rule = (i: number, control: string) => `form.segment-form [data-rule="${i}"] [name=${control}]`;
  const countLine = () => page.$eval('.segment-count', (el) => el.textContent);

  it('lists no segment yet and offers a new one', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    await clickText(page, 'Segments');
    await waitForText(page, '.empty', 'No segments yet');
    await expectAccessible();
    await clickText(page, 'New segment');
    await waitForText(page, 'h1', 'New segment');
    // The first row waits for its tag: nothing is asked of the API about a half-filled rule.
    await waitForText(page, '.segment-count', 'Fill in every rule');
    await expectAccessible();
  });

  it('counts live as the rules change, this channel only; adds a rule from the keyboard', async () => {
    await fill(rule(0, 'value'), 'vip');
    await waitForText(page, '.segment-count', '300 subscribers match');

    // From the keyboard: Add rule, then the new row's field takes the focus.
    await page.evaluate(() => [...document.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent === 'Add rule')!.focus());
    await page.keyboard.press('Enter');
    await page.waitForSelector('[data-rule="1"]');
    // The focus moves in an effect after the row is drawn: wait for it, then check where it is.
    await page.waitForFunction(() => document.activeElement?.closest('fieldset')?.dataset.rule === '1', { timeout: 5_000 }).catch(() => undefined);
    expect(await page.evaluate(() => [document.activeElement?.getAttribute('name'), document.activeElement?.closest('fieldset')?.dataset.rule])).toEqual([
      'field',
      '1',
    ]);
    await page.select(rule(1, 'field'), 'custom_data');
    await fill(rule(1, 'key'), 'plan');
    await fill(rule(1, 'value'), 'pro');
    // Both rules: nobody (all), then either (any).
    await waitForText(page, '.segment-count', '0 subscribers match');
    await page.click('form.segment-form input[name=match][value=any]');
    await waitForText(page, '.segment-count', '301 subscribers match');
    await screenshot(page, 'segments-builder');
  });

  it('names a refused engagement rule beside it, and a blank name beside the name', async () => {
    // An engagement rule: the broadcast picker names the channel's broadcasts; a within_days the
    // API refuses is shown beside that rule, and the count says why it is missing.
    await clickText(page, 'Add rule');
    await page.select(rule(2, 'field'), 'opened_broadcast');
    await waitForText(page, `${rule(2, 'broadcast')} option`, 'Spring news');
    await page.select(rule(2, 'broadcast'), String(broadcastId));
    await fill(rule(2, 'within_days'), '0');
    await waitForText(page, '[data-rule="2"] [role=alert]', 'within_days must be an integer from 1 to 36500');
    await waitForProblem(/status of 422 .*\/segments\/count/);
    expect(await countLine()).toMatch(/^Not counted: rules\[2\] within_days/);
    expect(await page.$eval(rule(2, 'within_days'), (el) => el.getAttribute('aria-invalid'))).toBe('true');
    await expectAccessible();
    await fill(rule(2, 'within_days'), '30');
    await waitForText(page, '.segment-count', '301 subscribers match');
    expect(await page.$('[data-rule="2"] [role=alert]')).toBeNull();

    // No name: the API's 422 beside the name, and nothing saved.
    await clickText(page, 'Create segment');
    await waitForText(page, '#segment-error-name', "can't be blank");
    await waitForProblem(/status of 422 .*\/api\/v1\/segments$/);
    expect((await get('/segments.json')).total).toBe(0);
    await expectAccessible();
  });

  it('creates the segment and shows its count and its members, 250 a page', async () => {
    await fill('form.segment-form [name=name]', 'VIPs and pros');
    await fill('form.segment-form [name=description]', 'Everyone worth a call');
    await clickText(page, 'Create segment');
    await waitForText(page, 'h1', 'VIPs and pros');
    segmentId = Number(/\/segments\/(\d+)$/.exec(page.url())![1]);
    const stored = await get(`/segments/${segmentId}.json`);
    expect([stored.name, stored.description, stored.match, stored.rules]).toEqual([
      'VIPs and pros',
      'Everyone worth a call',
      'any',
      [
        { field: 'tags', operator: 'includes', value: 'vip' },
        { field: 'custom_data.plan', operator: 'equals', value: 'pro' },
        { field: 'opened_broadcast', operator: 'equals', value: broadcastId, within_days: 30 },
      ],
    ]);
    await waitForText(page, '.segment-members-count', '301 subscribers match');
    expect(await page.$$eval('.segment-rule-list li', (items) => items.map((li) => li.textContent))).toEqual([
      'Tags includes "vip"',
      'Custom field plan is "pro"',
      `Did open broadcast #${broadcastId} within 30 days`,
    ]);
    expect(await page.$$eval('table.segment-members tbody tr', (rows) => rows.length)).toBe(250);
    await expectAccessible();
    await clickText(page, 'Next');
    await waitForText(page, '.pager', '251–301 of 301');
    expect(await page.$$eval('table.segment-members tbody tr', (rows) => rows.length)).toBe(51);
    expect(await page.$eval('table.segment-members tbody tr:last-child td', (td) => td.textContent)).toBe('pro@example.com');
  });

  it('edits the segment in place: a rule the API refuses is named beside it, then saved', async () => {
    await clickText(page, 'Edit');
    await page.waitForSelector('form.segment-form');
    // The saved rules come back as rows, counted live as they stand.
    expect(await page.$$eval('form.segment-form [data-rule]', (rows) => rows.length)).toBe(3);
    await waitForText(page, '.segment-count', '301 subscribers match');
    await clickText(page, 'Remove rule 3');
    await clickText(page, 'Remove rule 2');
    await page.click('form.segment-form input[name=match][value=all]');
    await fill('form.segment-form [name=name]', 'VIPs');
    // An emptied tag: the count waits for it, and a save shows the API's message beside the rule.
    await page.$eval(rule(0, 'value'), (el) => ((el as HTMLInputElement).value = ''));
    await page.type(rule(0, 'value'), 'x');
    await page.keyboard.press('Backspace');
    await waitForText(page, '.segment-count', 'Fill in every rule');
    await clickText(page, 'Save segment');
    await waitForText(page, '[data-rule="0"] [role=alert]', 'value must be a non-empty string');
    await waitForProblem(/status of 422 .*\/segments\/\d+/);
    expect((await get(`/segments/${segmentId}.json`)).name).toBe('VIPs and pros');
    await expectAccessible();

    await page.type(rule(0, 'value'), 'vip');
    await waitForText(page, '.segment-count', '300 subscribers match');
    await clickText(page, 'Save segment');
    await waitForText(page, '.segment-members-count', '300 subscribers match');
    expect(await page.$eval('h1', (h) => h.textContent)).toBe('VIPs');
    const stored = await get(`/segments/${segmentId}.json`);
    expect([stored.name, stored.match, stored.rules]).toEqual(['VIPs', 'all', [{ field: 'tags', operator: 'includes', value: 'vip' }]]);
  });

  it('shows a segments_read token the pages without any action', async () => {
    const reader = await stack.api.fixtures.aToken(stack.channelId, ['segments_read']);
    const context = await browser.createBrowserContext();
    try {
      const other = await openPage(context);
      await other.page.goto(`${stack.url}/app/`);
      await other.page.waitForSelector('input[name=token]');
      await other.page.type('input[name=token]', reader);
      await other.page.keyboard.press('Enter');
      await other.page.waitForSelector('header nav a');
      expect(await other.page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual(['Segments']);
      await clickText(other.page, 'Segments');
      await waitForText(other.page, 'table.segments', 'VIPs');
      expect(await other.page.$$eval('a, button', (els) => els.map((e) => e.textContent))).not.toContain('New segment');
      await clickText(other.page, 'VIPs');
      await waitForText(other.page, '.segment-members-count', '300 subscribers match');
      const buttons = await other.page.$$eval('main button', (els) => els.map((e) => e.textContent));
      expect(buttons).not.toContain('Edit');
      expect(buttons).not.toContain('Delete');
      // Members are shown, but without subscribers_read they link nowhere.
      expect(await other.page.$('table.segment-members a')).toBeNull();
      await expectAccessible(other.page);
      expect(other.problems).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('refuses to delete a segment a scheduled broadcast targets, with the API’s message; deletes it once the broadcast is a draft', async () => {
    const scheduled = await stack.api.fixtures.aBroadcast(stack.channelId, { name: 'Targeted', segmentIds: [segmentId] });
    await stack.api.database
      .db('broadcasts')
      .where({ id: scheduled.id })
      .update({ status: 'future_scheduled', scheduled_send_at: new Date(Date.now() + 86_400_000) });
    await clickText(page, 'Delete');
    await waitForText(page, '[role=alert]', 'Segment is targeted by a scheduled or sending broadcast');
    await waitForProblem(/status of 422 .*\/segments\/\d+/);
    expect((await get(`/segments/${segmentId}.json`)).id).toBe(segmentId);
    await expectAccessible();

    await stack.api.database.db('broadcasts').where({ id: scheduled.id }).update({ status: 'draft', scheduled_send_at: null });
    await clickText(page, 'Delete');
    await waitForText(page, '.empty', 'No segments yet');
    expect((await get('/segments.json')).total).toBe(0);
  });
});

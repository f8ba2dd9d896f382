import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The sequences page in a real Chromium against the real stack, driven as a user would: build a
 * sequence's step tree (add, a refused add, move, delete), enrol subscribers, switch it on. The
 * steps share one page, in order; each ends with no console error, page error or failed request.
 */
describe('the sequences page in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let sequenceId: number;

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
  async function fill(selector: string, value: string): Promise<void> {
    await page.waitForSelector(selector);
    await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(selector, value);
  }
  /** The tree as the page shows it: actions in depth-first order, `[true(…) false(…)]` under a condition. */
  const tree = () =>
    page.$eval('ol.tree', (root) => {
      const line = (ol: Element): string =>
        [...ol.children]
          .map((li) => {
            const el = li as HTMLElement;
            let text = el.dataset.action === 'condition_branch' ? el.dataset.branch! : el.dataset.action!;
            const under = el.querySelector(':scope > ol.line');
            const branches = el.querySelector(':scope > ol.branches');
            if (under) text += `(${line(under)})`;
            if (branches) text += `[${line(branches)}]`;
            return text;
          })
          .join(' ');
      return line(root);
    });
  const waitForTree = async (want: string) => {
    await eventually(async () => ((await tree()) === want ? true : undefined), 10_000, 50);
  };
  const stepId = (action: string, branch?: boolean) =>
    page.$eval(`li[data-action=${action}]${branch === undefined ? '' : `[data-branch=${branch}]`}`, (li) => Number((li as HTMLElement).dataset.step));
  async function addStep(action: string, fields: Record<string, string> = {}, after?: number): Promise<void> {
    await page.select('form.add-step select[name=action]', action);
    if (after !== undefined) await page.select('form.add-step select[name=parent_id]', String(after));
    for (const [name, value] of Object.entries(fields)) {
      if (name === 'unit') await page.select('form.add-step select[name=unit]', value);
      else await fill(`form.add-step [name=${name}]`, value);
    }
    await clickText(page, 'Add step');
  }
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }

  it('lists no sequence yet, creates one and opens it, switched off', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual([
      'Broadcasts',
      'Subscribers',
      'Topics',
      'Segments',
      'Sequences',
      'Forms',
      'Templates',
      'Webhooks',
      'Suppressions',
      'Transactionals',
      'Email servers',
      'Settings',
    ]);
    await clickText(page, 'Sequences');
    await waitForText(page, '.empty', 'No sequences yet');
    await expectAccessible();

    await fill('[name=new_label]', 'Welcome series');
    await clickText(page, 'Create sequence');
    await waitForText(page, 'h1', 'Welcome series');
    sequenceId = Number(/\/sequences\/(\d+)$/.exec(page.url())![1]);
    await page.waitForSelector('.live[data-active=false]');
    expect(await tree()).toBe('entry_point');
  });

  it("builds the step tree: a refused step shows the API's message naming the field; add, move and delete change the tree", async () => {
    // 400 days is over the API's 365: its 422 names `delay`, and nothing is added.
    await addStep('delay', { amount: '400', unit: 'days' });
    await waitForText(page, 'form.add-step [role=alert]', 'delay must be a whole number of seconds');
    await waitForProblem(/status of 422 .*\/steps/);
    expect(await tree()).toBe('entry_point');

    await fill('form.add-step [name=amount]', '2');
    await clickText(page, 'Add step');
    await waitForText(page, 'li[data-action=delay]', 'Wait 2 days');
    await addStep('send_email', { subject: 'Welcome {{ subscriber.first_name }}', body: 'Hello and welcome.' });
    await waitForText(page, 'li[data-action=send_email]', 'Send email “Welcome {{ subscriber.first_name }}”');
    await addStep('condition');
    await waitForTree('entry_point delay send_email condition[true false]');
    // A send_email step shows its figures (none sent yet).
    expect(await page.$$eval('li[data-action=send_email] .step-figures > div', (items) => items.map((i) => i.textContent))).toEqual([
      'Sent0',
      'Delivered0',
      'Opens0',
      'Clicks0',
      'Bounces0',
      'Unsubscribes0',
    ]);

    // Move the email up, right after the start: the delay now follows it.
    const email = await stepId('send_email');
    await page.click(`li[data-step="${email}"] > .step-row button[data-do=move]`);
    await page.select('form.move-step select[name=under_id]', String(await stepId('entry_point')));
    await clickText(page, 'Move step');
    await waitForTree('entry_point send_email delay condition[true false]');

    // A tag step placed on the true branch, then deleted.
    await addStep('add_tag_to_subscriber', { tags: 'engaged' }, await stepId('condition_branch', true));
    await waitForTree('entry_point send_email delay condition[true(add_tag_to_subscriber) false]');
    await waitForText(page, 'li[data-action=add_tag_to_subscriber]', 'Add tags: engaged');
    const tag = await stepId('add_tag_to_subscriber');
    await page.click(`li[data-step="${tag}"] > .step-row button[data-do=delete]`);
    await waitForTree('entry_point send_email delay condition[true false]');

    // An edit keeps the action and changes its fields.
    await page.click(`li[data-step="${email}"] > .step-row button[data-do=edit]`);
    await fill('form.edit-step [name=subject]', 'Welcome aboard');
    await clickText(page, 'Save step');
    await waitForText(page, 'li[data-action=send_email]', 'Send email “Welcome aboard”');

    const steps = await (await fetch(`${stack.url}/api/v1/sequences/${sequenceId}/steps`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
    expect((steps as { data: Array<{ action: string }> }).data.map((s) => s.action)).toEqual([
      'entry_point',
      'send_email',
      'delay',
      'condition',
      'condition_branch',
      'condition_branch',
    ]);
    await waitForText(page, '.live', '3 steps');
    await expectAccessible();
    await screenshot(page, 'sequence');
  });

  it('enrols subscribers, shows each enrolment with its status, removes one, resumes the sequence and saves its settings', async () => {
    // Switched off: a new enrolment waits paused.
    await fill('[name=enrol_email]', 'ann@example.com');
    await clickText(page, 'Enrol');
    await waitForText(page, '[role=status]', 'Enrolled ann@example.com (paused)');
    await waitForText(page, 'tr[data-status=paused]', 'ann@example.com');
    await waitForText(page, 'tr[data-status=paused]', 'Start: subscribers enter here');
    await fill('[name=enrol_email]', 'ann@example.com');
    await clickText(page, 'Enrol');
    await waitForText(page, '[role=status]', 'already in this sequence');

    await fill('[name=enrol_email]', 'bob@example.com');
    await clickText(page, 'Enrol');
    await waitForText(page, 'tr[data-status=paused]', 'bob@example.com');
    await page.click('button[aria-label="Remove bob@example.com"]');
    await waitForText(page, 'tr[data-status=removed]', 'bob@example.com');
    await waitForText(page, '[data-enrolments]', '2 enrolments');

    // The status filter.
    await page.select('select[name=enrolment_status]', 'removed');
    await waitForText(page, '[data-enrolments]', '1 enrolment with status removed');
    expect(await page.$$eval('table.enrolments tbody tr', (rows) => rows.map((r) => (r as HTMLElement).dataset.status))).toEqual(['removed']);
    await page.select('select[name=enrolment_status]', '');
    await waitForText(page, '[data-enrolments]', '2 enrolments');

    // Resume: the paused enrolment goes on (active, or busy while a runtime holds it in a step).
    await clickText(page, 'Resume sequence');
    await page.waitForSelector('.live[data-active=true]');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('tr[data-status=active], tr[data-status=busy], tr[data-status=completed]')].some((tr) =>
        tr.textContent!.includes('ann@example.com'),
      ),
    );
    await waitForText(page, '.live', '1 subscriber under way');
    await expectAccessible();
    await screenshot(page, 'sequence-enrolments');

    // Settings: the enrolling tag and click tracking, saved through the API.
    await fill('[name=init_tag]', 'welcome');
    await page.click('input[name=track_clicks]');
    await clickText(page, 'Save settings');
    await waitForText(page, 'form.settings [role=status]', 'Saved.');
    // The save reloads the sequence; the form (and its notice) stays.
    await page.waitForNetworkIdle({ idleTime: 300 });
    expect(await page.$eval('form.settings [role=status]', (el) => el.textContent)).toBe('Saved.');
    expect(await page.$eval('[name=init_tag]', (el) => (el as HTMLInputElement).value)).toBe('welcome');
    const saved = await (await fetch(`${stack.url}/api/v1/sequences/${sequenceId}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
    expect(saved).toMatchObject({ init_tag: 'welcome', track_clicks: false, track_opens: true, active: true });

    // Ten more through the API: the list pages by 10, newest first.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${stack.url}/api/v1/sequences/${sequenceId}/add_subscriber`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: `reader${i}@example.com` }),
      });
      expect(res.status).toBe(201);
    }
    await page.reload();
    await waitForText(page, '[data-enrolments]', '12 enrolments');
    await waitForText(page, 'nav[aria-label="Enrolment pages"]', 'Page 1 of 2');
    expect(await page.$$eval('table.enrolments tbody tr', (rows) => rows.length)).toBe(10);
    await clickText(page, 'Next');
    await waitForText(page, 'nav[aria-label="Enrolment pages"]', 'Page 2 of 2');
    expect(await page.$$eval('table.enrolments tbody tr', (rows) => rows.map((r) => r.querySelector('td')!.textContent))).toEqual([
      'bob@example.com',
      'ann@example.com',
    ]);

    // At a phone's width the tree and the forms fold; only the enrolments table scrolls, inside its frame.
    await page.setViewport({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewport({ width: 1280, height: 900 });

    await clickText(page, '← Sequences');
    await waitForText(page, `tr[data-sequence="${sequenceId}"]`, 'Welcome series');
    expect(await page.$$eval(`tr[data-sequence="${sequenceId}"] td`, (cells) => cells.map((c) => c.textContent))).toEqual([
      'Welcome series',
      'active',
      '11',
      '3',
    ]);
    await expectAccessible();
    await screenshot(page, 'sequences');
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The templates pages in a real Chromium against the real stack, driven as a user would
 * (docs/dashboard.md, "Templates"): a template written with its live preview rendered by the API
 * in the sandboxed frame, a Liquid error shown under its field with line and column (and the
 * cursor put there), a save refused beside the field, an edit, a delete refused while a scheduled
 * broadcast uses the template and then done, and a read-only token's view. Each step ends with no
 * console error, page error or failed request, and axe-core finds nothing serious in each state.
 */
describe('the templates pages in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let templateId: number;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => {
    // A pause while typing may send the preview half a tag ("{{ subscriber.first_"), which the
    // API rightly refuses: those refusals are the feature working, not a problem of the page.
    dropProblems(/status of 422 .*\/templates\/preview/);
    expect(problems).toEqual([]);
  });

  const get = async (path: string) => (await fetch(`${stack.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
  /** Takes the refusals a step provokes (the browser logs each 4xx answer) off the problem list: at least one. */
  async function takeProblems(pattern: RegExp): Promise<void> {
    await eventually(async () => (problems.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    dropProblems(pattern);
  }
  function dropProblems(pattern: RegExp): void {
    for (let i = problems.length - 1; i >= 0; i--) if (pattern.test(problems[i]!)) problems.splice(i, 1);
  }
  async function fill(selector: string, value: string): Promise<void> {
    await page.waitForSelector(selector);
    await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(selector, value);
  }
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }
  /** The text the sandboxed preview frame shows (the HTML the API rendered, posted into it). */
  async function frameText(): Promise<string> {
    const frame = page.frames().find((f) => f.url().endsWith('/app/preview-frame.html'));
    return frame ? await frame.evaluate(() => document.documentElement.textContent ?? '') : '';
  }
  const fieldError = (field: string) => page.$eval(`.templates-field-error[data-field=${field}]`, (el) => el.textContent ?? '');

  it('signs in and lists no templates yet', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toContain('Templates');
    await clickText(page, 'Templates');
    await waitForText(page, '.empty', 'No templates yet');
    await expectAccessible();
  });

  it('writes a template with its live preview, a Liquid error under its field with line and column, and creates it', async () => {
    await clickText(page, 'New template');
    await waitForText(page, 'h1', 'New template');
    await fill('[name=label]', 'Welcome');
    await fill('[name=subject]', 'Hello {{ subscriber.first_name }}');
    await fill('[name=html_body]', '<p>Hi {{ subscriber.first_name }} ({{ subscriber.email }})</p>');
    // Rendered by the API for the sample subscriber, shown in the sandboxed frame.
    await waitForText(page, '.preview-subject', 'Hello Jane');
    await eventually(async () => ((await frameText()).includes('Hi Jane (jane.doe@example.com)') ? true : undefined), 10_000, 100);
    expect(await page.$eval('.templates-preview iframe', (f) => f.getAttribute('sandbox'))).toBe('allow-scripts');
    await expectAccessible();

    // An unclosed tag on line 2: the API's message under the HTML field, with its place.
    await page.type('[name=html_body]', '\n  {% if subscriber.tags %}<b>tagged</b>');
    await page.waitForSelector('.templates-field-error[data-field=html_body]');
    await takeProblems(/status of 422/);
    expect(await fieldError('html_body')).toContain('Line 2, column 3: html_body is not valid Liquid: tag {% if subscriber.tags %} not closed, line:2, col:3');
    expect(await page.$eval('[name=html_body]', (el) => [el.getAttribute('aria-invalid'), el.getAttribute('aria-describedby')])).toEqual([
      'true',
      'html_body-error',
    ]);
    expect(await page.$('.templates-field-error[data-field=subject]')).toBeNull();
    await expectAccessible();
    await screenshot(page, 'templates-liquid-error');
    // "Go to line 2" puts the cursor where the error is.
    await clickText(page, 'Go to line 2');
    expect(await page.evaluate(() => [document.activeElement?.getAttribute('name'), (document.activeElement as HTMLTextAreaElement).selectionStart])).toEqual([
      'html_body',
      '<p>Hi {{ subscriber.first_name }} ({{ subscriber.email }})</p>\n  '.length,
    ]);

    // Fixed: the error goes and the preview follows.
    await page.keyboard.press('End');
    await page.type('[name=html_body]', '{% endif %}');
    await eventually(async () => ((await page.$('.templates-field-error[data-field=html_body]')) === null ? true : undefined), 10_000, 100);
    await eventually(async () => ((await frameText()).includes('tagged') ? true : undefined), 10_000, 100);

    await clickText(page, 'Create template');
    await page.waitForFunction(() => /\/app\/templates\/\d+$/.test(location.pathname));
    templateId = Number(/\/templates\/(\d+)$/.exec(page.url())![1]);
    await waitForText(page, 'h1', 'Welcome');
    expect(await get(`/templates/${templateId}`)).toMatchObject({
      label: 'Welcome',
      subject: 'Hello {{ subscriber.first_name }}',
      preheader: null,
      body: null,
      html_body: '<p>Hi {{ subscriber.first_name }} ({{ subscriber.email }})</p>\n  {% if subscriber.tags %}<b>tagged</b>{% endif %}',
      template_purpose: 'broadcast',
      default_confirmation: false,
    });
  }, 60_000);

  it("shows a save's refusal beside its field, then saves an edit", async () => {
    // A confirmation template needs a body: the API's 422 names it.
    await page.select('[name=template_purpose]', 'confirmation');
    await clickText(page, 'Save template');
    await page.waitForSelector('.templates-field-error[data-field=body]');
    await takeProblems(/status of 422/);
    expect(await fieldError('body')).toBe("body can't be blank for a confirmation template");
    await expectAccessible();
    expect((await get(`/templates/${templateId}`)).template_purpose).toBe('broadcast');

    await fill('[name=body]', 'Confirm: {{ confirmation_url }}');
    await page.click('[name=default_confirmation]');
    await fill('[name=label]', 'Welcome confirmation');
    await waitForText(page, '.preview-text', 'Confirm: https://example.com/preview-link');
    await clickText(page, 'Save template');
    await waitForText(page, '[role=status]', 'Template saved.');
    expect(await page.$('.templates-field-error')).toBeNull();
    expect(await get(`/templates/${templateId}`)).toMatchObject({
      label: 'Welcome confirmation',
      body: 'Confirm: {{ confirmation_url }}',
      template_purpose: 'confirmation',
      default_confirmation: true,
    });
    await clickText(page, '← Templates');
    await waitForText(page, `tr[data-template="${templateId}"]`, 'Welcome confirmation');
    expect(await page.$$eval(`tr[data-template="${templateId}"] td`, (cells) => cells.slice(1, 3).map((c) => c.textContent))).toEqual(['confirmation', 'yes']);
    await expectAccessible();
    await screenshot(page, 'templates');
  }, 60_000);

  it("shows the API's refusal to delete a template a scheduled broadcast uses, then deletes it", async () => {
    const other = await (
      await fetch(`${stack.url}/api/v1/templates`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ label: 'In use', subject: 'Scheduled news' }),
      })
    ).json();
    const broadcast = await stack.api.fixtures.aBroadcast(stack.channelId, { subject: 'Scheduled news' });
    await stack.api.database.db('broadcasts').where({ id: broadcast.id }).update({ template_id: other.id, status: 'future_scheduled' });

    await page.reload();
    await clickText(page, 'In use');
    await waitForText(page, 'h1', 'In use');
    await clickText(page, 'Delete template');
    await waitForText(page, '[role=alert]', 'Template is used by a scheduled or sending broadcast');
    await takeProblems(/status of 422/);
    await expectAccessible();
    expect((await get(`/templates/${other.id}`)).label).toBe('In use');

    await stack.api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'draft' });
    await clickText(page, 'Delete template');
    await waitForText(page, 'h1', 'Templates');
    await eventually(async () => ((await page.$(`tr[data-template="${other.id}"]`)) === null ? true : undefined), 10_000, 50);
    expect(((await get('/templates')).data as Array<{ id: number }>).map((t) => t.id)).toEqual([templateId]);
  });

  it('shows a templates_read token the list and a read-only editor, without New, Save or Delete', async () => {
    const reader = await stack.api.fixtures.aToken(stack.channelId, ['templates_read']);
    await clickText(page, 'Sign out');
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', reader);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Templates');
    expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual(['Templates']);
    await page.waitForSelector(`tr[data-template="${templateId}"]`);
    expect(await page.$$eval('main a, main button', (els) => els.map((e) => e.textContent?.trim()))).not.toContain('New template');
    await clickText(page, 'Welcome confirmation');
    await waitForText(page, '.preview-text', 'Confirm: https://example.com/preview-link');
    expect(await page.$$eval('main button', (els) => els.map((e) => e.textContent?.trim()))).toEqual([]);
    expect(await page.$eval('[name=label]', (el) => (el as HTMLInputElement).readOnly)).toBe(true);
    await expectAccessible();
  });
});

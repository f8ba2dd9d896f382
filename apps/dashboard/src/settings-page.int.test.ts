import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The channel settings page in a real Chromium against the real stack (docs/dashboard.md,
 * "Channel settings"): the API's refusals shown beside the fields they name with nothing
 * written, a save the API stores, the brand kit shown, and a read-only token that sees the
 * settings but cannot change them. axe-core finds nothing serious in each state.
 */
describe('the channel settings page in a browser', () => {
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

  const settings = async () =>
    (await fetch(`${stack.url}/api/v1/channel/settings`, { headers: { Authorization: `Bearer ${stack.token}` } })).json() as Promise<{
      sender_email: string | null;
      sender_name: string | null;
      reputation_guard: Record<string, unknown>;
    }>;
  async function fill(name: string, value: string): Promise<void> {
    const selector = `form.settings [name="${name}"]`;
    await page.waitForSelector(selector);
    await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(selector, value);
  }
  const fieldError = (name: string) => page.$eval(`.field[data-field="${name}"]`, (el) => el.querySelector('.field-error')?.textContent ?? null);
  /** Takes one expected entry (the refused request the step provokes) off the problem list. */
  async function waitForProblem(pattern: RegExp): Promise<void> {
    await eventually(async () => (problems.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    problems.splice(
      problems.findIndex((p) => pattern.test(p)),
      1,
    );
  }
  async function signIn(token: string): Promise<void> {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', token);
    await page.keyboard.press('Enter');
    await page.waitForSelector('header nav');
  }

  it('opens from the navigation with the defaults and the brand kit', async () => {
    await signIn(stack.token);
    await clickText(page, 'Settings');
    await waitForText(page, 'h1', 'Channel settings');
    await page.waitForSelector('form.settings [name="reputation_guard.min_sent"]');
    expect(await page.$eval('form.settings [name="reputation_guard.min_sent"]', (el) => (el as HTMLInputElement).value)).toBe('500');
    expect(await page.$eval('form.settings [name="reputation_guard.enabled"]', (el) => (el as HTMLInputElement).checked)).toBe(true);
    await waitForText(page, '.brand-kit', '#2563eb');
    expect(await accessibilityViolations(page)).toEqual([]);
  });

  it("shows the API's refusals beside the fields they name, and writes nothing", async () => {
    const before = await settings();
    await fill('sender_email', 'not-an-address');
    await fill('reputation_guard.min_sent', '0');
    await fill('reputation_guard.max_complaint_rate', '101');
    await clickText(page, 'Save settings');
    await waitForProblem(/422/);
    await page.waitForSelector('.field[data-field="sender_email"] .field-error');
    expect(await fieldError('sender_email')).toContain('is not a valid email address');
    expect(await fieldError('reputation_guard.min_sent')).toContain('must be an integer of at least 1');
    expect(await fieldError('reputation_guard.max_complaint_rate')).toContain('must be a number from 0 to 100');
    expect(await fieldError('sender_name')).toBeNull();
    expect(await page.$eval('[name=sender_email]', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await settings()).toEqual(before);
  });

  it('saves what the API stores, and shows it again after a reload', async () => {
    await fill('sender_email', 'news@acme.example');
    await fill('sender_name', 'Acme News');
    await fill('reputation_guard.min_sent', '1000');
    await fill('reputation_guard.max_hard_bounce_rate', '3');
    await fill('reputation_guard.max_complaint_rate', '0.05');
    await page.click('form.settings [name="reputation_guard.enabled"]');
    await clickText(page, 'Save settings');
    await waitForText(page, '[role=status]', 'Settings saved.');
    expect(await page.$$('.field-error')).toHaveLength(0);
    expect(await settings()).toEqual({
      sender_email: 'news@acme.example',
      sender_name: 'Acme News',
      reputation_guard: { enabled: false, min_sent: 1000, max_hard_bounce_rate: 3, max_complaint_rate: 0.05 },
    });
    await page.reload();
    await page.waitForSelector('form.settings [name=sender_name]');
    await eventually(async () => ((await page.$eval('[name=sender_name]', (el) => (el as HTMLInputElement).value)) === 'Acme News' ? true : undefined));
    expect(await page.$eval('form.settings [name="reputation_guard.enabled"]', (el) => (el as HTMLInputElement).checked)).toBe(false);
  });

  it('lets a read-only token see the settings but not change them', async () => {
    const reader = await stack.api.fixtures.aToken(stack.channelId, ['channel_settings_read', 'broadcasts_read']);
    await page.evaluate(() => sessionStorage.clear());
    await signIn(reader);
    await clickText(page, 'Settings');
    await page.waitForSelector('form.settings [name=sender_name]');
    expect(await page.$eval('[name=sender_name]', (el) => (el as HTMLInputElement).value)).toBe('Acme News');
    expect(await page.$eval('[name=sender_name]', (el) => (el as HTMLInputElement).matches(':disabled'))).toBe(true);
    expect(await page.$$eval('form.settings button', (buttons) => buttons.map((b) => b.textContent))).toEqual([]);
    // Without templates_read there is no brand kit to show (its API would refuse).
    expect(await page.$('.brand-kit')).toBeNull();
    expect(await accessibilityViolations(page)).toEqual([]);
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { eventually, freePort } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';
import { recordingSmtpServer } from '../../api/src/test-support/smtp-server';

/**
 * The email servers pages in a real Chromium against the real stack, driven as a user would
 * (docs/dashboard.md, "Email servers"): a server created after the API's field errors show
 * beside their fields, Test connection succeeding against a real SMTP server on loopback (which
 * hears the password typed) and failing against a closed port, the DKIM record generated and
 * copied, edits (a blank limit is no limit; moving the connection clears the password), a
 * refused and a done delete, and a read-only token's pages. The password never shows in the
 * page once saved. No console error, page error or failed request; axe finds nothing serious.
 */
describe('the email servers pages in a browser', () => {
  const PASSWORD = 'Relay-pass-5813-secret';
  const FAILURE = 'Could not connect to the server, complete its TLS handshake or authenticate (check host, port, tls and credentials)';
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let smtp: Awaited<ReturnType<typeof recordingSmtpServer>>;
  let closedPort: number;
  let serverId: number;

  beforeAll(async () => {
    [stack, browser, smtp, closedPort] = await Promise.all([startStack(), launchBrowser(), recordingSmtpServer(), freePort()]);
    await browser.defaultBrowserContext().overridePermissions(stack.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    ({ page, problems } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  const get = async (path: string) => (await fetch(`${stack.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
  /** Takes one expected entry (a refused request the step provokes) off the problem list. */
  async function waitForProblem(pattern: RegExp): Promise<void> {
    await eventually(async () => (problems.some((p) => pattern.test(p)) ? true : undefined), 5_000, 50);
    problems.splice(
      problems.findIndex((p) => pattern.test(p)),
      1,
    );
  }
  async function fill(name: string, value: string): Promise<void> {
    const selector = `form [name=${name}]`;
    await page.waitForSelector(selector);
    await page.click(selector, { clickCount: 3 });
    await page.keyboard.press('Backspace');
    if (value !== '') await page.type(selector, value);
  }
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }
  /** Whether the password is anywhere in the page: its markup or any field's value. */
  const passwordInPage = () =>
    page.evaluate(
      (secret: string) =>
        document.documentElement.outerHTML.includes(secret) ||
        [...document.querySelectorAll('input, textarea')].some((el) => (el as HTMLInputElement).value.includes(secret)),
      PASSWORD,
    );
  const fieldError = (name: string) => page.$eval(`[data-field=${name}] .field-error`, (el) => el.textContent);

  it('lists the channel’s servers with host, TLS, active and limits', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    await clickText(page, 'Email servers');
    await waitForText(page, 'h1', 'Email servers');
    await page.waitForSelector('table.email-servers tbody tr');
    expect(await page.$$eval('table.email-servers tbody tr td', (cells) => cells.map((c) => c.textContent))).toEqual([
      `127.0.0.1:${stack.smtp.port}`,
      `127.0.0.1:${stack.smtp.port}`,
      'None',
      'yes',
      'No limit',
    ]);
    await expectAccessible();
    await screenshot(page, 'email-servers');
  });

  it("creates a server; the API's refusals show beside the fields they name, and nothing is stored", async () => {
    await clickText(page, 'New email server');
    await waitForText(page, 'h1', 'New email server');
    await expectAccessible();
    await fill('name', 'Primary relay');
    await fill('host', '127.0.0.1');
    await fill('port', '70000');
    await page.select('form [name=tls]', 'none');
    expect(await page.$eval('#field-tls-hint', (el) => el.textContent)).toContain('SMTP_ALLOW_PLAINTEXT=true');
    await fill('smtp_username', 'u');
    await fill('smtp_password', PASSWORD);
    await fill('from_email', 'not-an-email');
    await fill('max_per_second', '5');
    await fill('max_per_day', '1000');
    await clickText(page, 'Create email server');
    await page.waitForSelector('[data-field=port] .field-error');
    await waitForProblem(/status of 422/);
    expect(await fieldError('port')).toBe('port must be an integer from 1 to 65535');
    expect(await fieldError('from_email')).toBe('from_email is invalid');
    expect(await page.$eval('form [name=port]', (el) => [el.getAttribute('aria-invalid'), el.getAttribute('aria-describedby')])).toEqual([
      'true',
      'field-port-hint field-port-error',
    ]);
    expect(await page.$('[data-field=host] .field-error')).toBeNull();
    await expectAccessible();
    expect((await get('/email_servers')).total).toBe(1);

    await fill('port', String(smtp.port));
    await fill('from_email', 'relay@example.com');
    await clickText(page, 'Create email server');
    await waitForText(page, 'h1', 'Primary relay');
    serverId = Number(/\/email-servers\/(\d+)$/.exec(page.url())![1]);
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({
      name: 'Primary relay',
      host: '127.0.0.1',
      port: smtp.port,
      tls: 'none',
      smtp_username: 'u',
      smtp_password: '••••••••',
      from_email: 'relay@example.com',
      max_per_second: 5,
      max_per_minute: null,
      max_per_hour: null,
      max_per_day: 1000,
      active: true,
    });
    // Saved: the page shows the API's bullets as a placeholder, never the password itself.
    expect(await page.$eval('form [name=smtp_password]', (el) => [(el as HTMLInputElement).value, el.getAttribute('placeholder')])).toEqual(['', '••••••••']);
    expect(await passwordInPage()).toBe(false);
    await expectAccessible();
  });

  it('tests the connection: the real SMTP server hears the typed password, the page shows the success', async () => {
    // From the keyboard: focus the button, Enter.
    await page.focus('.email-server-test button');
    await page.keyboard.press('Enter');
    await waitForText(page, '[data-check=ok]', 'authenticated as u');
    expect(await page.$eval('[data-check=ok]', (el) => [el.getAttribute('role'), el.textContent])).toEqual([
      'status',
      `✓ Connected to 127.0.0.1:${smtp.port} (tls none), authenticated as u`,
    ]);
    expect(smtp.auths).toEqual([`u:${PASSWORD}`]);
    await expectAccessible();
  });

  it('generates a DKIM key and shows the TXT record to publish, with a copy button', async () => {
    await clickText(page, 'Generate DKIM key');
    await page.waitForSelector('[data-dkim=value]');
    const record = await page.$$eval('[data-dkim]', (els) => els.map((el) => el.textContent ?? ''));
    expect(record.slice(0, 2)).toEqual(['mailcast._domainkey.example.com', 'TXT']);
    expect(record[2]).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{300,}$/);
    await clickText(page, 'Copy value');
    await waitForText(page, '.email-server-dkim [role=status]', 'Record value copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(record[2]);
    await waitForText(page, 'button', 'Replace DKIM key');
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({ dkim_key_present: true, dkim_domain: 'example.com', dkim_selector: 'mailcast' });
    // The settings follow what the generation stored, so the next save does not blank them.
    await eventually(
      async () => ((await page.$eval('form [name=dkim_domain]', (el) => (el as HTMLInputElement).value)) === 'example.com' ? true : undefined),
      5_000,
      50,
    );
    await expectAccessible();
    await screenshot(page, 'email-server');
  });

  it('edits: a blank limit is no limit, the password is kept, removed, set again; moving the connection warns, then clears it', async () => {
    await fill('name', 'Main relay');
    await fill('max_per_day', '');
    await clickText(page, 'Save');
    await waitForText(page, 'form [role=status]', 'Saved.');
    await waitForText(page, 'h1', 'Main relay');
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({
      name: 'Main relay',
      max_per_second: 5,
      max_per_day: null,
      smtp_password: '••••••••',
      dkim_domain: 'example.com',
      dkim_selector: 'mailcast',
    });
    expect(await passwordInPage()).toBe(false);

    // "Remove the stored password" sends an empty one; typing a new one stores it again.
    await page.click('form [name=remove_password]');
    await clickText(page, 'Save');
    await waitForText(page, 'dd', 'none stored');
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({ smtp_password: null });
    expect(await page.$('form [name=remove_password]')).toBeNull();
    await fill('smtp_password', `${PASSWORD}-2`);
    await clickText(page, 'Save');
    await waitForText(page, 'dd', 'stored (write-only)');
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({ smtp_password: '••••••••' });
    expect(await passwordInPage()).toBe(false);

    expect(await page.$('.email-server-warning')).toBeNull();
    await fill('port', String(closedPort));
    await waitForText(page, '.email-server-warning', 'clears the stored password');
    await expectAccessible();
    await clickText(page, 'Save');
    await waitForText(page, 'dd', 'none stored');
    expect(await get(`/email_servers/${serverId}`)).toMatchObject({ port: closedPort, smtp_username: 'u', smtp_password: null });
    expect(await page.$eval('form [name=smtp_password]', (el) => el.getAttribute('placeholder'))).toBe('');
  });

  it('shows the failure of Test connection for a second server at a closed port', async () => {
    await clickText(page, '← Email servers');
    await clickText(page, 'New email server');
    await fill('name', 'Backup relay');
    await fill('host', 'localhost');
    await fill('port', String(closedPort));
    await page.select('form [name=tls]', 'none');
    await clickText(page, 'Create email server');
    await waitForText(page, 'h1', 'Backup relay');
    await clickText(page, 'Test connection');
    await waitForText(page, '.email-server-test [aria-live]', 'a failure answers after 10 seconds');
    await page.waitForSelector('[data-check=failed]', { timeout: 20_000 });
    expect(await page.$eval('[data-check=failed]', (el) => [el.getAttribute('role'), el.textContent])).toEqual(['alert', `✗ ${FAILURE}`]);
    expect(await page.$('[data-check=ok]')).toBeNull();
    await expectAccessible();
  }, 30_000);

  it('deletes after a confirmation; a server a scheduled broadcast uses is refused with the API’s message', async () => {
    await clickText(page, 'Delete email server');
    await waitForText(page, 'h1', 'Email servers');
    const names = () => get('/email_servers').then((list: { data: Array<{ name: string }> }) => list.data.map((s) => s.name));
    expect(await names()).toEqual([null, 'Main relay']);

    const broadcast = await stack.api.fixtures.aBroadcast(stack.channelId, { emailServerIds: [serverId] });
    await stack.api.database.db('broadcasts').where({ id: broadcast.id }).update({ status: 'scheduled' });
    await clickText(page, 'Main relay');
    await clickText(page, 'Delete email server');
    await waitForText(page, '[role=alert]', 'Email server is used by a scheduled or sending broadcast');
    await waitForProblem(/status of 422/);
    expect(await names()).toEqual([null, 'Main relay']);
    await expectAccessible();
  });

  it('shows a read-only token the servers without any action', async () => {
    const reader = await stack.api.fixtures.aToken(stack.channelId, ['email_servers_read']);
    await clickText(page, 'Sign out');
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', reader);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Email servers');
    expect(await page.$$eval('header nav a', (links) => links.map((a) => a.textContent))).toEqual(['Email servers']);
    expect(await page.$('a[href="/app/email-servers/new"]')).toBeNull();
    await clickText(page, 'Main relay');
    await waitForText(page, 'dt', 'Limits');
    expect(await page.$$eval('main button', (buttons) => buttons.map((b) => b.textContent))).toEqual([]);
    expect(await page.$('main form')).toBeNull();
    await expectAccessible();
  });
});

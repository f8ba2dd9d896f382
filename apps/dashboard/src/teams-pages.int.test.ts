import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { generate } from 'otplib';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';
import { aUser, type TestUser } from '../../api/src/test-support/users';

/**
 * The team pages in a real Chromium against the real stack (docs/dashboard.md, "Signing in" and
 * "Team pages"): users sign in with email and password (and a second factor), switch channel,
 * manage users, list and revoke sessions, enrol in two-factor, read the audit log; a Viewer sees
 * no write action and the API refuses one forced through. The steps share one page, in order; each
 * ends with no console error, page error or failed request, and the pages pass axe.
 */
// Each step signs in at least once (argon2id is slow on purpose) and runs axe: more than jest's 30 s on a loaded machine.
jest.setTimeout(90_000);

describe('the team pages in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let other: { channel: { id: number; name: string }; token: string };
  let manager: TestUser;
  let viewer: TestUser;
  let sudo: TestUser;
  let recoveryCodes: string[] = [];
  let totpSecret = '';

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    ({ page, problems } = await openPage(browser));
    other = await stack.api.fixtures.aTenant();
    manager = await aUser(stack.api, {
      email: 'manager@example.com',
      systemPermissions: { user_management: true },
      channels: [
        { channelId: stack.channelId, role: 'Manager' },
        { channelId: other.channel.id, role: 'Viewer' },
      ],
    });
    viewer = await aUser(stack.api, { email: 'viewer@example.com', channels: [{ channelId: stack.channelId, role: 'Viewer' }] });
    sudo = await aUser(stack.api, { email: 'root@example.com', sudo: true });
    // Something to tell the channels apart: a broadcast in the other channel only.
    const created = await fetch(`${stack.url}/api/v1/broadcasts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${other.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ broadcast: { subject: 'Only in the other channel', body: '<p>Hi</p>' } }),
    });
    expect(created.status).toBe(201);
  }, 90_000);
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
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }
  async function signInWithPassword(user: { email: string; password: string }): Promise<void> {
    await page.waitForSelector('input[name=email]');
    await fill('input[name=email]', user.email);
    await fill('input[name=password]', user.password);
    await page.keyboard.press('Enter');
  }
  /** A fresh start on the sign-in page: no cookie, no hint (a step does not depend on where the last one ended). */
  async function freshSignInPage(): Promise<void> {
    const cookies = await page.cookies();
    if (cookies.length > 0) await page.deleteCookie(...cookies);
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=email]');
  }
  async function signOut(): Promise<void> {
    await clickText(page, 'Sign out');
    await page.waitForSelector('input[name=email]');
  }
  /** Texts of every button and link on the page. */
  const actionTexts = () => page.$$eval('button, a', (els) => els.map((e) => (e.textContent ?? '').trim()));
  /** The time step after the current one: accepted (one step of drift) and never used before. */
  const nextTotp = (secret: string) => generate({ secret, epoch: Math.floor(Date.now() / 1000) + 30 });

  it('signs in with email and password; a wrong password shows the API message; the session is an HttpOnly cookie', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=email]');
    // The token form stays for developers, on the same page.
    expect(await page.$('input[name=token]')).not.toBeNull();
    await expectAccessible();
    await screenshot(page, 'teams-sign-in');

    await signInWithPassword({ email: manager.email, password: 'not the password at all' });
    await waitForText(page, '[role=alert]', 'Invalid email or password');
    await waitForProblem(/status of 401 .*\/auth\/sign_in/);

    await signInWithPassword(manager);
    await waitForText(page, 'h1', 'Broadcasts');
    expect(page.url()).toBe(`${stack.url}/app/broadcasts`);
    expect(await actionTexts()).toContain('New broadcast');
    const nav = await actionTexts();
    expect(nav).toContain('Users');
    expect(nav).not.toContain('Audit log');
    const cookies = await page.cookies();
    const session = cookies.find((c) => c.name === 'mailcast_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    expect(await page.evaluate(() => [document.cookie, sessionStorage.getItem('mailcast.token')])).toEqual(['', null]);
    expect(page.url()).not.toContain(session!.value);
    await expectAccessible();

    // A reload keeps the session (the cookie), with no token anywhere.
    await page.reload();
    await waitForText(page, 'h1', 'Broadcasts');
    await waitForText(page, '.who', manager.email);
  });

  it('acts for the channel picked in the switcher, with that channel role', async () => {
    await page.waitForSelector('select[name=channel]');
    await page.select('select[name=channel]', String(other.channel.id));
    await waitForText(page, 'td, a', 'Only in the other channel');
    // Viewer there: no New broadcast.
    expect(await actionTexts()).not.toContain('New broadcast');
    await page.select('select[name=channel]', String(stack.channelId));
    await waitForText(page, '.empty', 'No broadcasts yet');
    expect(await actionTexts()).toContain('New broadcast');
  });

  const NEW_USER = { email: 'new.editor@example.com', password: 'a long enough password 1' };

  it('creates a user, gives them a channel role, then custom flags, deactivates and activates them', async () => {
    await clickText(page, 'Users');
    await waitForText(page, 'h1', 'Users');
    await waitForText(page, 'td', manager.email);
    await page.click('input[name=new_user_send_reset]');
    await fill('input[name=new_user_email]', NEW_USER.email);
    await fill('input[name=new_user_first_name]', 'Nia');
    await fill('input[name=new_user_password]', NEW_USER.password);
    await clickText(page, 'Create user');
    await waitForText(page, '[role=status]', `${NEW_USER.email} created.`);
    await waitForText(page, 'td', NEW_USER.email);
    await expectAccessible();
    await screenshot(page, 'teams-users');

    await clickText(page, NEW_USER.email, 'a');
    await waitForText(page, 'h1', NEW_USER.email);
    await waitForText(page, 'p', 'No channel yet');
    await page.select('select[name=add_channel]', String(stack.channelId));
    await page.select('select[name=add_role]', 'Editor');
    await clickText(page, 'Give access');
    await waitForText(page, 'form[data-channel] .badge', 'Editor');

    // Custom: the flags show; a write without its read gets the read, and the API says so.
    const prefix = `grant_${stack.channelId}`;
    await page.select(`select[name=${prefix}_role]`, 'Custom');
    await page.waitForSelector(`input[name=${prefix}_flag]`);
    const checked = await page.$$eval(`input[name=${prefix}_flag]:checked`, (els) => els.map((e) => (e as HTMLInputElement).value));
    for (const flag of checked) await page.click(`input[name=${prefix}_flag][value=${flag}]`);
    await page.click(`input[name=${prefix}_flag][value=broadcasts_write]`);
    await clickText(page, 'Save');
    await waitForText(page, 'form[data-channel] .badge', 'Custom');
    await waitForText(page, '[role=status]', 'broadcasts_read');
    await expectAccessible();
    await screenshot(page, 'teams-user');

    await clickText(page, 'Deactivate');
    await waitForText(page, '[data-status]', 'inactive');
    await clickText(page, 'Activate');
    await waitForText(page, '[data-status]', 'active');
    await clickText(page, '← Users');
    await waitForText(page, `tr[data-user="${NEW_USER.email}"] [data-status]`, 'active');
  });

  it('lists the own sessions and revokes another one', async () => {
    // A second session of the same user, from elsewhere.
    const elsewhere = await fetch(`${stack.url}/auth/sign_in`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'User-Agent': 'elsewhere-agent' },
      body: JSON.stringify({ email: manager.email, password: manager.password }),
    });
    expect(elsewhere.status).toBe(200);
    const cookie = (elsewhere.headers.get('set-cookie') ?? '').split(';')[0]!;
    const alive = () => fetch(`${stack.url}/auth/session`, { headers: { Cookie: cookie } }).then((r) => r.status);
    expect(await alive()).toBe(200);

    await clickText(page, 'Sessions');
    await waitForText(page, 'h1', 'Sessions');
    await waitForText(page, 'td', 'elsewhere-agent');
    expect(await page.$$eval('tr[data-session]', (rows) => rows.length)).toBe(2);
    await waitForText(page, '.badge', 'this session');
    await expectAccessible();
    await clickText(page, 'Revoke');
    await waitForText(page, '[role=status]', 'Session ended.');
    await eventually(async () => ((await page.$$eval('tr[data-session]', (rows) => rows.length)) === 1 ? true : undefined), 5_000, 50);
    expect(await alive()).toBe(401);
  });

  it('enrols in two-factor: the QR code as an image, a code from the app, ten recovery codes shown once', async () => {
    await clickText(page, 'Two-factor');
    await waitForText(page, 'h1', 'Two-factor authentication');
    await clickText(page, 'Set up two-factor');
    await page.waitForSelector('img.qr');
    const src = await page.$eval('img.qr', (img) => (img as HTMLImageElement).src);
    expect(src).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(Buffer.from(src.split(',')[1]!, 'base64').toString('utf8')).toContain('<svg');
    // The image is drawn (the policy allows data: images): a loaded image has a width.
    await page.waitForFunction(() => (document.querySelector('img.qr') as HTMLImageElement).naturalWidth > 0);
    totpSecret = await page.$eval('[data-secret]', (el) => (el.textContent ?? '').trim());
    expect(totpSecret).toMatch(/^[A-Z2-7]{16,}$/);
    await expectAccessible();
    await screenshot(page, 'teams-two-factor-enrol');

    // A wrong code first: the API's message, nothing turned on.
    await fill('input[name=code]', '000000');
    await clickText(page, 'Turn on two-factor');
    await page.waitForSelector('[role=alert]');
    await waitForProblem(/status of 4\d\d .*\/auth\/two_factor\/confirm/);

    await fill('input[name=code]', await generate({ secret: totpSecret }));
    await clickText(page, 'Turn on two-factor');
    await page.waitForSelector('ol.recovery-codes');
    recoveryCodes = await page.$$eval('ol.recovery-codes code', (els) => els.map((e) => (e.textContent ?? '').trim()));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    const continueDisabled = () => page.$$eval('button', (els) => (els.find((e) => e.textContent?.trim() === 'Continue') as HTMLButtonElement).disabled);
    expect(await continueDisabled()).toBe(true);
    await expectAccessible();
    await page.click('input[name=saved_codes]');
    expect(await continueDisabled()).toBe(false);
    await clickText(page, 'Continue');
    await waitForText(page, 'p', 'Two-factor is on');
  });

  it('signs in with the second factor: a wrong code refused, then a code from the app; a recovery code once', async () => {
    await signOut();
    await signInWithPassword(manager);
    await waitForText(page, 'h1', 'Two-factor authentication');
    await expectAccessible();
    await fill('input[name=code]', '000000');
    await page.keyboard.press('Enter');
    await waitForText(page, '[role=alert]', 'Invalid code');
    await waitForProblem(/status of 401 .*\/auth\/two_factor\/verify/);
    await fill('input[name=code]', await nextTotp(totpSecret));
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');

    await signOut();
    await signInWithPassword(manager);
    await waitForText(page, 'h1', 'Two-factor authentication');
    await fill('input[name=code]', recoveryCodes[0]!);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');

    // The used recovery code does not work twice.
    await signOut();
    await signInWithPassword(manager);
    await waitForText(page, 'h1', 'Two-factor authentication');
    await fill('input[name=code]', recoveryCodes[0]!);
    await page.keyboard.press('Enter');
    await waitForText(page, '[role=alert]', 'Invalid code');
    await waitForProblem(/status of 401 .*\/auth\/two_factor\/verify/);
    await clickText(page, 'Cancel and sign out');
    await page.waitForSelector('input[name=email]');
  });

  it('shows a Viewer no write action on any page, and the API refuses a write forced through', async () => {
    await freshSignInPage();
    await signInWithPassword(viewer);
    await waitForText(page, 'h1', 'Broadcasts');
    const WRITE = /^(New|Create|Add|Delete|Send|Duplicate|Remove|Edit|Pause|Resume|Enrol|Save)\b/;
    const nav = await actionTexts();
    expect(nav).not.toContain('Users');
    expect(nav).not.toContain('Audit log');
    for (const [link, heading] of [
      ['Broadcasts', 'Broadcasts'],
      ['Subscribers', 'Subscribers'],
      ['Topics', 'Topics'],
      ['Sequences', 'Sequences'],
      ['Forms', 'Forms'],
    ] as const) {
      await clickText(page, link);
      await waitForText(page, 'h1', heading);
      await page.waitForFunction(() => !(document.querySelector('main')?.textContent ?? '').includes('Loading…'));
      expect((await actionTexts()).filter((t) => WRITE.test(t))).toEqual([]);
      expect(await page.$$('main input[name^=new_]')).toEqual([]);
    }
    await expectAccessible();
    await screenshot(page, 'teams-viewer');

    const forced = await page.evaluate(async () => {
      const session = (await (await fetch('/auth/session')).json()) as { csrf_token: string };
      const res = await fetch('/api/v1/subscribers.json', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': session.csrf_token },
        body: JSON.stringify({ subscriber: { email: 'forced@example.com' } }),
      });
      return { status: res.status, body: (await res.json()) as { error?: string } };
    });
    // A missing permission is the spec's 401 "Unauthorized"; the session lives on.
    expect(forced).toEqual({ status: 401, body: { error: 'Unauthorized' } });
    await waitForProblem(/status of 401 .*\/api\/v1\/subscribers\.json/);
    expect(await page.evaluate(() => fetch('/auth/session').then((r) => r.status))).toBe(200);
    const listed = await fetch(`${stack.url}/api/v1/subscribers.json?email=forced@example.com`, { headers: { Authorization: `Bearer ${stack.token}` } });
    expect(((await listed.json()) as { subscribers: unknown[] }).subscribers).toEqual([]);
    await signOut();
  });

  it('shows a sudo user the audit log, with filters and pages', async () => {
    // More than a page of writes (50): a token's subscribers, each an entry.
    for (let i = 0; i < 52; i += 1) {
      const res = await fetch(`${stack.url}/api/v1/subscribers.json`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ subscriber: { email: `audited${i}@example.com` } }),
      });
      expect(res.status).toBe(201);
    }
    await freshSignInPage();
    await signInWithPassword(sudo);
    await clickText(page, 'Audit log');
    await waitForText(page, 'h1', 'Audit log');
    await page.waitForSelector('table.audit-log');
    await expectAccessible();
    await screenshot(page, 'teams-audit-log');
    await eventually(
      async () => {
        await clickText(page, 'Filter');
        await page.waitForSelector('[data-total]');
        const total = Number(await page.$eval('[data-total]', (el) => (el as HTMLElement).dataset.total));
        return total > 55 ? true : undefined;
      },
      10_000,
      250,
    );
    await waitForText(page, '.pager', '1–50 of');
    await clickText(page, 'Next');
    await waitForText(page, '.pager', '51–');

    // Filtered by action: the user the manager created, by the manager.
    await fill('input[name=audit_action]', 'createUser');
    await clickText(page, 'Filter');
    await waitForText(page, '[data-total]', '1 entry');
    await waitForText(page, 'table.audit-log td', manager.email);
    const actions = await page.$$eval('table.audit-log tbody td code', (els) => els.map((e) => e.textContent));
    expect(actions).toEqual(['createUser']);
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';
import { aUser, type TestUser } from '../../api/src/test-support/users';

/**
 * The suppressions and transactionals pages in a real Chromium against the real stack
 * (docs/dashboard.md, "Suppressions and transactionals"): the channel list with add, a refusal
 * shown under its field, search, bulk paste (add and remove, with the API's counts), the address
 * check and a removal; the transactional log (sent through the capturing SMTP server, one
 * suppressed, one bounced) filtered and paged into one message's detail and events; and the
 * installation-wide tab, seen only by a sudo user. Each step ends with no console error, page
 * error or failed request, and axe-core finds nothing serious on each page state.
 */
// One sign-in with a password (argon2id is slow on purpose) and axe on every state.
jest.setTimeout(90_000);

describe('the suppressions and transactionals pages in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let admin: TestUser;
  const sent: Record<string, number> = {};

  beforeAll(async () => {
    [stack, browser] = await Promise.all([
      startStack({ verdictFor: (to) => (to.startsWith('bounce@') ? { code: 550, message: '5.1.1 No such user' } : undefined) }),
      launchBrowser(),
    ]);
    ({ page, problems } = await openPage(browser));
    admin = await aUser(stack.api, { email: 'root@example.com', sudo: true });
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  });
  afterEach(() => expect(problems).toEqual([]));

  const get = async (path: string) => (await fetch(`${stack.url}/api/v1${path}`, { headers: { Authorization: `Bearer ${stack.token}` } })).json();
  const post = async (path: string, body: object) =>
    (
      await fetch(`${stack.url}/api/v1${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json();
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
  /** A date input, set as the browser's own picker would (its typed form depends on the locale). */
  async function setDate(selector: string, value: string): Promise<void> {
    await page.$eval(
      selector,
      (el, v) => {
        (el as HTMLInputElement).value = v as string;
        el.dispatchEvent(new Event('input', { bubbles: true }));
      },
      value,
    );
  }
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }
  const channelList = async () => ((await get('/suppressions.json')).suppressions as Array<{ email: string; reason: string }>).map((s) => s.email).sort();

  it('signs in with a channel token and shows both areas, without the installation-wide tab', async () => {
    await page.goto(`${stack.url}/app/`);
    await page.waitForSelector('input[name=token]');
    await page.type('input[name=token]', stack.token);
    await page.keyboard.press('Enter');
    await waitForText(page, 'h1', 'Broadcasts');
    const nav = await page.$$eval('header nav a', (links) => links.map((a) => a.textContent));
    expect(nav).toEqual(expect.arrayContaining(['Suppressions', 'Transactionals']));
    await clickText(page, 'Suppressions');
    await waitForText(page, '.empty', 'Nobody is suppressed here yet');
    expect(await page.$('.suppressions-tabs')).toBeNull();
    await expectAccessible();
  });

  it("adds one address; a malformed one shows the API's message under the field and writes nothing", async () => {
    await fill('input[name=suppression_email]', 'Ann@Example.com');
    await clickText(page, 'Add');
    await waitForText(page, 'table.suppressions', 'ann@example.com');
    expect(await channelList()).toEqual(['ann@example.com']);

    await fill('input[name=suppression_email]', 'not an address');
    await clickText(page, 'Add');
    await waitForText(page, '#suppression-add-feedback [role=alert]', 'email is invalid');
    await waitForProblem(/status of 422 .*\/suppressions\.json/);
    expect(await page.$eval('input[name=suppression_email]', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect(await channelList()).toEqual(['ann@example.com']);
    await expectAccessible();
  });

  it('pastes addresses in bulk: adds and removes them, showing the counts the API answers', async () => {
    await fill('textarea[name=suppression_bulk]', 'b1@example.com, b2@example.com\nann@example.com\nnope\nB1@example.com');
    await waitForText(page, 'form[aria-label="Paste addresses"] [aria-live]', '5 entries');
    await clickText(page, "Add all to the channel's list");
    await page.waitForSelector('.suppressions-result [data-count=added]');
    expect(await page.$$eval('.suppressions-result dd', (dds) => dds.map((d) => `${d.getAttribute('data-count')}=${d.textContent}`))).toEqual([
      'added=2',
      'already_suppressed=1',
      'invalid=1',
    ]);
    await waitForText(page, '.suppressions-result', 'Not addresses: nope');
    await waitForText(page, 'table.suppressions', 'b2@example.com');
    expect(await channelList()).toEqual(['ann@example.com', 'b1@example.com', 'b2@example.com']);
    await expectAccessible();

    await fill('textarea[name=suppression_bulk]', 'b1@example.com\nzz@example.com');
    await clickText(page, "Remove all from the channel's list");
    await page.waitForSelector('.suppressions-result [data-count=removed]');
    expect(await page.$$eval('.suppressions-result dd', (dds) => dds.map((d) => `${d.getAttribute('data-count')}=${d.textContent}`))).toEqual([
      'removed=1',
      'not_found=1',
    ]);
    expect(await channelList()).toEqual(['ann@example.com', 'b2@example.com']);
  });

  it('searches the list, checks an address and removes one entry', async () => {
    await fill('input[name=suppression_filter]', 'B2');
    await clickText(page, 'Search');
    await eventually(async () => ((await page.$$('table.suppressions tbody tr')).length === 1 ? true : undefined), 10_000, 50);
    await waitForText(page, 'table.suppressions', 'b2@example.com');

    await fill('input[name=suppression_check]', 'ANN@example.com');
    await clickText(page, 'Check');
    await waitForText(page, '[data-suppressed=true]', "ann@example.com is suppressed by the channel's list (reason: manual)");
    await fill('input[name=suppression_check]', 'free@example.com');
    await clickText(page, 'Check');
    await waitForText(page, '[data-suppressed=false]', 'free@example.com is not suppressed');
    await expectAccessible();

    await page.waitForSelector('tr[data-email="b2@example.com"] button');
    await page.click('tr[data-email="b2@example.com"] button');
    await waitForText(page, '[role=status]', 'b2@example.com is off the');
    expect(await channelList()).toEqual(['ann@example.com']);
    await screenshot(page, 'suppressions');
  });

  it('shows the transactional log with its filters, and one message with its events', async () => {
    // Through the real pipeline: the dispatcher sends through the capturing server; ann is suppressed; bounce@ is refused (550).
    for (const to of ['buyer@example.com', 'ann@example.com', 'bounce@example.com']) {
      sent[to] = ((await post('/transactionals.json', { to, subject: `Receipt for ${to}`, body: 'Thanks' })) as { id: number }).id;
    }
    await eventually(
      async () => {
        const statuses = ((await get('/transactionals.json')).data as Array<{ status: string }>).map((t) => t.status).sort();
        return statuses.join() === 'bounced,sent,suppressed' ? true : undefined;
      },
      20_000,
      100,
    );
    await clickText(page, 'Transactionals');
    await waitForText(page, 'table.transactionals', 'buyer@example.com');
    expect(await page.$$eval('table.transactionals tbody tr', (rows) => rows.map((r) => Number(r.getAttribute('data-transactional'))))).toEqual([
      sent['bounce@example.com'],
      sent['ann@example.com'],
      sent['buyer@example.com'],
    ]);
    await expectAccessible();

    await page.select('select[name=transactional_status]', 'suppressed');
    await clickText(page, 'Search');
    await eventually(async () => ((await page.$$('table.transactionals tbody tr')).length === 1 ? true : undefined), 10_000, 50);
    await waitForText(page, 'table.transactionals', 'ann@example.com');

    await page.select('select[name=transactional_status]', '');
    await fill('input[name=transactional_email]', 'BOUNCE');
    await clickText(page, 'Search');
    await eventually(async () => ((await page.$$('table.transactionals tbody tr')).length === 1 ? true : undefined), 10_000, 50);
    await waitForText(page, 'table.transactionals', 'bounce@example.com');

    // A range that ends before today: nothing matches.
    await fill('input[name=transactional_email]', '');
    await setDate('input[name=transactional_to]', '2020-01-01');
    await clickText(page, 'Search');
    await waitForText(page, '.empty', 'No transactional email matches these filters');
    await expectAccessible();
    await clickText(page, 'Clear');
    await waitForText(page, 'table.transactionals', 'buyer@example.com');

    await clickText(page, 'buyer@example.com');
    await waitForText(page, 'h1', 'Receipt for buyer@example.com');
    const detail = (await get(`/transactionals/${sent['buyer@example.com']}.json`)) as { message_id: string };
    await waitForText(page, '[data-field=status]', 'sent');
    await waitForText(page, '[data-field=message_id]', detail.message_id);
    await page.waitForSelector('table.transactional-events');
    expect(await page.$$eval('table.transactional-events tbody tr', (rows) => rows.map((r) => r.getAttribute('data-event')))).toEqual([
      'email.sent',
      'email.delivered',
    ]);
    await expectAccessible();
    await screenshot(page, 'transactional');

    await page.goto(`${stack.url}/app/transactionals/${sent['bounce@example.com']}`);
    await waitForText(page, '[data-field=status]', 'bounced');
    await waitForText(page, '[data-field=error]', 'No such user');
    await waitForText(page, 'tr[data-event="email.bounced"]', 'No such user');
    await page.goto(`${stack.url}/app/transactionals/${sent['ann@example.com']}`);
    await waitForText(page, '.empty', 'the address is suppressed');
    await expectAccessible();
  });

  it('shows a sudo user the installation-wide list, with add, bulk paste and remove', async () => {
    await clickText(page, 'Sign out');
    await page.waitForSelector('input[name=email]');
    await fill('input[name=email]', admin.email);
    await fill('input[name=password]', admin.password);
    await page.keyboard.press('Enter');
    await page.waitForSelector('header nav');
    await page.goto(`${stack.url}/app/suppressions`);
    await clickText(page, 'Installation-wide');
    await waitForText(page, 'h2', 'Installation-wide list');
    await waitForText(page, '.empty', 'Nobody is suppressed here yet');
    await expectAccessible();

    await fill('input[name=suppression_email]', 'everyone-hates@example.com');
    await clickText(page, 'Add');
    await waitForText(page, 'table.suppressions', 'everyone-hates@example.com');
    await fill('textarea[name=suppression_bulk]', 'g1@example.com,g2@example.com');
    await clickText(page, 'Add all to the installation-wide list');
    await waitForText(page, '.suppressions-result [data-count=added]', '2');
    await page.waitForSelector('tr[data-email="g1@example.com"] button');
    await page.click('tr[data-email="g1@example.com"] button');
    await eventually(async () => ((await page.$('tr[data-email="g1@example.com"]')) === null ? true : undefined), 10_000, 50);
    const global = (await stack.api.database.db('suppressions').whereNull('channel_id').orderBy('email')).map((r: { email: string }) => r.email);
    expect(global).toEqual(['everyone-hates@example.com', 'g2@example.com']);
    // The channel's list is untouched (bounce@ joined it by its hard bounce), and its check now names the global list.
    expect(await channelList()).toEqual(['ann@example.com', 'bounce@example.com']);
    expect(await get('/suppressions/check.json?email=g2@example.com')).toMatchObject({ suppressed: true, scope: 'global' });
    await expectAccessible();
    await screenshot(page, 'suppressions-global');
  });
});

import type { Browser, Page } from 'puppeteer-core';
import { eventually } from '@mailcast/testkit';
import { accessibilityViolations, clickText, launchBrowser, openPage, screenshot, waitForText } from './test-support/browser';
import { startStack, type Stack } from '../../dispatcher/src/test-support/stack';

/**
 * The forms, topics and archive pages in a real Chromium against the real stack, driven as a
 * user would (docs/dashboard.md, "Forms", "Topics"): topics CRUD with a refusal, a form built
 * block by block with its live preview drawn for every widget type, the snippet copied, a
 * variant, the analytics chart over counters written straight into the database, duplicate and
 * delete, and a broadcast's archive toggle saved. Each step ends with no console error, page
 * error or failed request, and axe-core finds nothing serious on each new page.
 */
describe('the forms, topics and archive pages in a browser', () => {
  let stack: Stack;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let formId: number;
  let identifier: string;

  beforeAll(async () => {
    [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
    await browser.defaultBrowserContext().overridePermissions(stack.url, ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    ({ page, problems } = await openPage(browser));
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
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
  async function fill(selector: string, value: string): Promise<void> {
    await page.waitForSelector(selector);
    await page.$eval(selector, (el) => ((el as HTMLInputElement).value = ''));
    await page.type(selector, value);
  }
  async function expectAccessible(): Promise<void> {
    expect(await accessibilityViolations(page)).toEqual([]);
  }
  /** What the preview's shadow root holds: the widget's wrapper classes, the form's headings and fields. */
  const preview = () =>
    page.$eval('.form-preview', (host) => {
      const root = host.shadowRoot!;
      const box = root.querySelector<HTMLElement>('.mc-form:not(.mc-fab)')!;
      const stage = host.getBoundingClientRect();
      const drawn = (root.firstElementChild as HTMLElement).getBoundingClientRect();
      return {
        widget: (host as HTMLElement).dataset.widget,
        top: (root.firstElementChild as HTMLElement).className,
        box: box.className,
        fab: root.querySelector('.mc-fab')?.textContent ?? null,
        headings: [...root.querySelectorAll('h2')].map((h) => h.textContent),
        fields: [...root.querySelectorAll('input,button')].map((i) => `${i.tagName.toLowerCase()}:${i.getAttribute('type')}`),
        background: box.style.getPropertyValue('--mc-bg'),
        inside: drawn.left >= stage.left - 1 && drawn.right <= stage.right + 1 && drawn.top >= stage.top - 1 && drawn.bottom <= stage.bottom + 1,
      };
    });

  it('signs in and shows the new areas in the navigation', async () => {
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
  });

  it("creates, edits and deletes topics; a refusal shows the API's message", async () => {
    await clickText(page, 'Topics');
    await waitForText(page, '.empty', 'No topics yet');
    await expectAccessible();
    await fill('form.new-topic [name=name]', 'Product news');
    await fill('form.new-topic [name=key]', 'product_news');
    await clickText(page, 'Create topic');
    await waitForText(page, 'table.topics', 'product_news');
    // The same key again: the API's 422, shown as it comes, and nothing added.
    await fill('form.new-topic [name=name]', 'Other news');
    await fill('form.new-topic [name=key]', 'product_news');
    await clickText(page, 'Create topic');
    await page.waitForSelector('form.new-topic [role=alert]');
    await waitForProblem(/status of 422 .*\/topics/);
    const refusal = await page.$eval('form.new-topic [role=alert]', (el) => el.textContent);
    expect(refusal).toMatch(/product_news|custom_data_key/);
    expect((await get('/topics.json')).total).toBe(1);

    await page.select('form.new-topic [name=storage]', 'tag');
    await fill('form.new-topic [name=name]', 'Weekly digest');
    await fill('form.new-topic [name=key]', 'weekly');
    await clickText(page, 'Create topic');
    await waitForText(page, 'table.topics', 'weekly');
    await expectAccessible();

    const [news] = (await get('/topics.json')).data as Array<{ id: number }>;
    await page.click(`tr[data-topic="${news!.id}"] button[data-do=edit]`);
    await fill('form.edit-topic [name=name]', 'Product updates');
    await clickText(page, 'Save topic');
    await waitForText(page, `tr[data-topic="${news!.id}"]`, 'Product updates');
    // The rows show first; each topic's counts fill in when its own answer comes (docs/dashboard.md, "Benchmark").
    await page.waitForFunction(
      (row: string) => document.querySelectorAll(`${row} td[data-counted=true]`).length === 4,
      { timeout: 10_000 },
      `tr[data-topic="${news!.id}"]`,
    );
    expect(await page.$$eval(`tr[data-topic="${news!.id}"] td`, (cells) => cells.slice(1, 7).map((c) => c.textContent))).toEqual([
      'custom data',
      'product_news',
      '0',
      '0',
      '0',
      '0',
    ]);
    await page.click(`tr[data-topic="${news!.id}"] button[data-do=delete]`);
    await eventually(async () => ((await page.$(`tr[data-topic="${news!.id}"]`)) === null ? true : undefined), 10_000, 50);
    expect(((await get('/topics.json')).data as Array<{ name: string }>).map((t) => t.name)).toEqual(['Weekly digest']);
    await screenshot(page, 'topics');
  });

  it('creates a form and opens its builder, with the preview drawn by the embed renderer', async () => {
    await clickText(page, 'Forms');
    await waitForText(page, '.empty', 'No opt-in forms yet');
    await expectAccessible();
    await fill('[name=new_label]', 'Newsletter sign-up');
    await clickText(page, 'Create form');
    await waitForText(page, 'h1', 'Newsletter sign-up');
    formId = Number(/\/forms\/(\d+)$/.exec(page.url())![1]);
    identifier = ((await get(`/opt_in_forms/${formId}`)) as { identifier: string }).identifier;
    await page.waitForSelector('.form-preview[data-drawn=inline_embed]');
    expect(await preview()).toMatchObject({ widget: 'inline_embed', top: 'mc-form', fields: ['input:email', 'button:submit'], inside: true });
    await expectAccessible();
  });

  it("adds a block, sees it in the preview before saving, saves it; a form without an email field or with a bad colour shows the API's 422", async () => {
    await page.select('[name=new_block_type]', 'heading');
    await clickText(page, 'Add block');
    await page.waitForSelector('li[data-block=heading]');
    await fill('li[data-block=heading] [data-field=text_value]', 'Get the news');
    await eventually(async () => ((await preview()).headings[0] === 'Get the news' ? true : undefined), 5_000, 50);
    // Moved to the top, it is drawn first.
    await page.click('li[data-block=heading] button[data-do=up]');
    await page.click('li[data-block=heading] button[data-do=up]');
    expect(await page.$$eval('ol.block-list > li', (items) => items.map((li) => (li as HTMLElement).dataset.block))).toEqual([
      'heading',
      'input_field',
      'button',
    ]);

    // Without its email field the API refuses the form, and says why; the field put back is drawn again.
    await page.click('li[data-block=input_field] button[data-do=remove]');
    await eventually(async () => ((await preview()).fields.includes('input:email') ? undefined : true), 5_000, 50);
    await clickText(page, 'Save form');
    await waitForText(page, 'form.builder-settings [role=alert]', 'The form view must have exactly one email input');
    await waitForProblem(/status of 422 .*\/opt_in_forms/);
    await page.select('[name=new_block_type]', 'input_field');
    await clickText(page, 'Add block');
    await page.select('li[data-block=input_field] [data-field=input_field_value_type]', 'email');
    await page.click('li[data-block=input_field] button[data-do=up]');
    expect(await page.$$eval('ol.block-list > li', (items) => items.map((li) => (li as HTMLElement).dataset.block))).toEqual([
      'heading',
      'input_field',
      'button',
    ]);
    await eventually(async () => ((await preview()).fields.join() === 'input:email,button:submit' ? true : undefined), 5_000, 50);

    await fill('[name=color_background]', '#fff;}');
    await clickText(page, 'Save form');
    await waitForText(page, 'form.builder-settings [role=alert]', 'theme_settings');
    await waitForProblem(/status of 422 .*\/opt_in_forms/);
    expect((await get(`/opt_in_forms/${formId}`)).opt_in_form_blocks).toHaveLength(2);

    await fill('[name=color_background]', '#fef3c7');
    await eventually(async () => ((await preview()).background === '#fef3c7' ? true : undefined), 5_000, 50);
    await clickText(page, 'Save form');
    await waitForText(page, '[role=status]', 'Form saved.');
    const saved = await get(`/opt_in_forms/${formId}`);
    expect((saved.opt_in_form_blocks as Array<{ block_type: string; text_value: string | null }>).map((b) => [b.block_type, b.text_value])).toEqual([
      ['heading', 'Get the news'],
      ['input_field', null],
      ['button', null],
    ]);
    expect(saved.theme_settings.colors.background).toBe('#fef3c7');
  });

  it('draws the preview as each widget type: overlays stay inside the preview stage', async () => {
    const expected: Record<string, { top: RegExp; box: RegExp; fab?: string }> = {
      popup_modal: { top: /^mc-backdrop$/, box: /^mc-form$/ },
      slide_in_panel: { top: /mc-slide/, box: /mc-slide/ },
      sticky_bar: { top: /mc-bar/, box: /mc-bar/ },
      floating_button: { top: /^mc-backdrop$/, box: /^mc-form$/, fab: 'Sign Up' },
      full_page: { top: /^mc-backdrop mc-full$/, box: /^mc-form$/ },
      inline_embed: { top: /^mc-form$/, box: /^mc-form$/ },
    };
    for (const [widget, want] of Object.entries(expected)) {
      await page.select('[name=widget_type]', widget);
      await page.waitForSelector(`.form-preview[data-drawn=${widget}]`);
      const drawn = await preview();
      expect(drawn.top).toMatch(want.top);
      expect(drawn.box).toMatch(want.box);
      expect(drawn.fab).toBe(want.fab ?? null);
      expect(drawn.headings).toEqual(['Get the news']);
      expect(drawn.inside).toBe(true);
    }
    await page.select('[name=widget_type]', 'slide_in_panel');
    await clickText(page, 'Save form');
    await waitForText(page, '[role=status]', 'Form saved.');
    expect((await get(`/opt_in_forms/${formId}`)).widget_type).toBe('slide_in_panel');
  });

  it('edits what follows a sign-up: the blocks drawn in the "after sign-up" preview, a refused redirect URL shown by its field, the email templates picked', async () => {
    const template = async (body: Record<string, unknown>) =>
      (
        (await (
          await fetch(`${stack.url}/api/v1/templates`, {
            method: 'POST',
            headers: { Authorization: `Bearer ${stack.token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()) as { id: number }
      ).id;
    const confirmation = await template({
      label: 'Please confirm',
      subject: 'Confirm',
      body: 'Click {{ confirmation_url }}',
      template_purpose: 'confirmation',
    });
    const welcome = await template({ label: 'Warm welcome', subject: 'Welcome!', body: 'Hello' });
    await page.reload();
    await page.waitForSelector(`[name=welcome_email_template_id] option[value="${welcome}"]`);
    // Each picker offers the templates of its purpose only, beside "none" (the channel's default, the built-in welcome).
    const options = (name: string) => page.$$eval(`[name=${name}] option`, (os) => os.map((o) => o.textContent));
    expect(await options('confirmation_email_template_id')).toEqual(["The channel's default", 'Please confirm']);
    expect(await options('welcome_email_template_id')).toEqual(['The built-in welcome', 'Warm welcome']);

    // The preview's "after sign-up" view draws the post-submission blocks, an edit at once; the toggle works from the keyboard.
    await page.focus('.preview-state button[data-state=after]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.form-preview[data-drawn-state=after]');
    expect(await page.$eval('.preview-state button[data-state=after]', (b) => b.getAttribute('aria-pressed'))).toBe('true');
    const after = () =>
      page.$eval('.form-preview', (host) => [...host.shadowRoot!.querySelectorAll('.mc-done > *')].map((n) => `${n.tagName.toLowerCase()}:${n.textContent}`));
    expect(await after()).toEqual(['p:Thanks for signing up!']);
    await fill('ol.after-list li[data-block=text] [data-field=text_value]', 'You are in!');
    await page.select('[name=new_after_block_type]', 'heading');
    await page.click('fieldset.after-signup button[data-do=add]');
    await fill('ol.after-list li[data-block=heading] [data-field=text_value]', 'Welcome aboard');
    await page.click('ol.after-list li[data-block=heading] button[data-do=up]');
    await eventually(async () => ((await after()).join() === 'h2:Welcome aboard,p:You are in!' ? true : undefined), 5_000, 50);
    // The post-submission list offers only the block types the API allows there.
    expect(await page.$$eval('[name=new_after_block_type] option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual([
      'text',
      'heading',
      'image',
      'divider',
      'spacer',
    ]);
    await expectAccessible();

    // A redirect URL the API refuses: its message by the field, the field marked invalid, nothing saved.
    await fill('[name=confirmation_redirect_url]', 'ftp://example.com/thanks');
    await clickText(page, 'Save form');
    await waitForText(page, '[data-field=confirmation_redirect_url] [role=alert]', 'confirmation_redirect_url must be an http or https URL');
    await waitForProblem(/status of 422 .*\/opt_in_forms/);
    expect(await page.$eval('[name=confirmation_redirect_url]', (el) => el.getAttribute('aria-invalid'))).toBe('true');
    expect((await get(`/opt_in_forms/${formId}`)).confirmation_redirect_url).toBeNull();
    await expectAccessible();

    await fill('[name=confirmation_redirect_url]', 'https://example.com/thanks');
    await page.select('[name=confirmation_email_template_id]', String(confirmation));
    await page.select('[name=welcome_email_template_id]', String(welcome));
    await page.click('[name=include_unsubscribe_link_in_confirmation]');
    await clickText(page, 'Save form');
    await waitForText(page, '[role=status]', 'Form saved.');
    expect(await page.$('[data-field=confirmation_redirect_url] [role=alert]')).toBeNull();
    const saved = await get(`/opt_in_forms/${formId}`);
    expect(saved).toMatchObject({
      confirmation_redirect_url: 'https://example.com/thanks',
      confirmation_email_template_id: confirmation,
      welcome_email_template_id: welcome,
      include_unsubscribe_link_in_confirmation: false,
    });
    expect((saved.opt_in_post_submission_blocks as Array<{ block_type: string; text_value: string | null }>).map((b) => [b.block_type, b.text_value])).toEqual([
      ['heading', 'Welcome aboard'],
      ['text', 'You are in!'],
    ]);
    // Reloaded, the editor shows what was saved.
    await page.reload();
    await page.waitForSelector(`[name=welcome_email_template_id] option[value="${welcome}"]`);
    expect(await page.$eval('[name=confirmation_redirect_url]', (el) => (el as HTMLInputElement).value)).toBe('https://example.com/thanks');
    expect(await page.$eval('[name=welcome_email_template_id]', (el) => (el as HTMLSelectElement).value)).toBe(String(welcome));
    expect(await page.$eval('[name=include_unsubscribe_link_in_confirmation]', (el) => (el as HTMLInputElement).checked)).toBe(false);
  }, 120_000);

  it('copies the embed snippet', async () => {
    const snippet = `<script src="${stack.url}/f/${identifier}/embed.js" async></script>`;
    expect(await page.$eval('[name=snippet]', (el) => (el as HTMLTextAreaElement).value)).toBe(snippet);
    expect(await page.$eval('a.hosted-link', (a) => a.getAttribute('href'))).toBe(`${stack.url}/f/${identifier}`);
    await clickText(page, 'Copy snippet');
    await waitForText(page, '.snippet [role=status]', 'Snippet copied.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
  });

  it("adds a variant and lists it; the analytics chart draws counters written in the database (totals are the main form's, each variant in its row)", async () => {
    await fill('[name=variant_name]', 'Short');
    await fill('[name=variant_weight]', '30');
    await clickText(page, 'Add variant');
    await waitForText(page, 'h1', 'Newsletter sign-up — Short');
    const variantId = Number(/\/forms\/(\d+)$/.exec(page.url())![1]);
    await clickText(page, '← Main form');
    await waitForText(page, 'h1', 'Newsletter sign-up');
    await waitForText(page, `tr[data-variant="${variantId}"]`, 'Short');

    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await stack.api.database.db('opt_in_form_daily_statistics').insert([
      { form_id: formId, day: day(-2), shard: 0, views: 10, unique_views: 8, submissions: 2 },
      { form_id: formId, day: day(-1), shard: 3, views: 20, unique_views: 12, submissions: 4 },
      { form_id: variantId, day: day(-1), shard: 1, views: 5, unique_views: 5, submissions: 1 },
    ]);
    await page.reload();
    await page.waitForSelector('.form-chart[data-drawn=true]');
    const totals = await page.$$eval('.analytics .figure', (items) =>
      items.map((i) => [(i as HTMLElement).dataset.total, i.querySelector('.figure-value')!.textContent]),
    );
    expect(totals).toEqual([
      ['views', '30'],
      ['unique_views', '20'],
      ['submissions', '6'],
      ['conversion_rate', '30%'],
    ]);
    expect(await page.$$eval('.form-chart canvas', (c) => c.length)).toBeGreaterThan(0);
    expect(
      await page.$$eval('table.variant-figures tbody tr', (rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent).join('|'))),
    ).toEqual(expect.arrayContaining([expect.stringMatching(/^Short\|30\|5\|5\|1\|20%$/)]));
    await expectAccessible();
    await screenshot(page, 'form-builder');
  });

  it('duplicates and deletes a form; the list shows the figures', async () => {
    await clickText(page, 'Duplicate');
    await waitForText(page, 'h1', 'Newsletter sign-up (Copy)');
    const copyId = Number(/\/forms\/(\d+)$/.exec(page.url())![1]);
    expect(copyId).not.toBe(formId);
    await clickText(page, 'Delete');
    await waitForText(page, 'h1', 'Forms');
    await page.waitForSelector(`tr[data-form="${formId}"]`);
    expect(await page.$(`tr[data-form="${copyId}"]`)).toBeNull();
    expect(await page.$$eval(`tr[data-form="${formId}"] td`, (cells) => cells.map((c) => c.textContent))).toEqual([
      'Newsletter sign-up',
      'Slide-in panel',
      'enabled',
      '30',
      '6',
      expect.stringMatching(/%$/),
    ]);
    await expectAccessible();
  });

  it('saves the archive toggle and the topic on a broadcast; the list links the channel archive', async () => {
    await clickText(page, 'Broadcasts');
    await waitForText(page, 'h1', 'Broadcasts');
    const who = await get('/whoami');
    expect(await page.$eval('a.archive-link', (a) => a.getAttribute('href'))).toBe(`/archive/${who.channel.slug as string}`);
    await clickText(page, 'New broadcast');
    await page.waitForSelector('select[name=topic_id]');
    await fill('input[name=subject]', 'Our archive issue');
    await page.click('input[name=archive]');
    const topicId = String(((await get('/topics.json')).data as Array<{ id: number }>)[0]!.id);
    await page.select('select[name=topic_id]', topicId);
    await expectAccessible();
    await clickText(page, 'Create draft');
    await page.waitForFunction(() => /\/broadcasts\/\d+$/.test(location.pathname));
    const id = Number(/\/broadcasts\/(\d+)$/.exec(page.url())![1]);
    const saved = await get(`/broadcasts/${id}`);
    expect(saved).toMatchObject({ archive: true, topic_id: Number(topicId), excluded_segment_ids: [] });

    // Edit: the toggle shows the saved state and turns off again.
    await page.goto(`${stack.url}/app/broadcasts/${id}/edit`);
    await page.waitForSelector('input[name=archive]');
    expect(await page.$eval('input[name=archive]', (el) => (el as HTMLInputElement).checked)).toBe(true);
    await page.click('input[name=archive]');
    await clickText(page, 'Save');
    await page.waitForFunction(() => /\/broadcasts\/\d+$/.test(location.pathname));
    expect((await get(`/broadcasts/${id}`)).archive).toBe(false);
  });
});

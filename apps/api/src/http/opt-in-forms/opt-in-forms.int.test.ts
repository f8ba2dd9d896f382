import { Clock } from '@mailcast/core';
import request from 'supertest';
import { expectResponseMatchesDocument } from '../../openapi/test-support/match-document';
import { useApi } from '../../test-support/harness';

const NOW = new Date('2026-12-15T12:00:00Z');

/** docs/opt-in-forms.md: the authenticated API of opt-in forms. */
describe('opt-in forms API', () => {
  const api = useApi({ env: { PUBLIC_URL: 'https://forms.example.com' }, overrides: [{ token: Clock, value: { now: () => new Date(NOW) } }] });
  let token: string;
  let channelId: number;

  beforeAll(async () => {
    const tenant = await api.fixtures.aTenant();
    token = tenant.token;
    channelId = tenant.channel.id;
  });

  const as = (t = token) => ({
    get: (path: string) => request(api.app).get(path).set('Authorization', `Bearer ${t}`),
    post: (path: string, body: object = {}) => request(api.app).post(path).set('Authorization', `Bearer ${t}`).send(body),
    patch: (path: string, body: object) => request(api.app).patch(path).set('Authorization', `Bearer ${t}`).send(body),
    delete: (path: string) => request(api.app).delete(path).set('Authorization', `Bearer ${t}`),
  });
  const newForm = async (body: object = {}) => {
    const created = await as().post('/api/v1/opt_in_forms', { label: 'Newsletter', ...body });
    expect([created.status, created.body.error]).toEqual([201, undefined]);
    return created.body as Record<string, unknown> & { id: number; identifier: string };
  };
  const emailInput = { block_type: 'input_field', input_field_value_type: 'email', input_field_label: 'Email' };
  const rowCount = async (table: string) => Number((await api.database.db(table).count({ n: '*' }).first())?.n);
  const aTopic = async (channel: number, name: string) =>
    Number(
      (
        await api.database.db('topics').insert({ channel_id: channel, name, storage: 'tag', tag_name: name, created_at: NOW, updated_at: NOW }).returning('id')
      )[0]!.id,
    );
  const aTemplate = async (t: string) => (await as(t).post('/api/v1/templates', { label: 'T', subject: 'Hi', body: 'Hello' })).body.id as number;

  it('creates a form with every default and the three default blocks, and reads it back', async () => {
    const created = await as().post('/api/v1/opt_in_forms', { opt_in_form: { label: 'Newsletter' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(Number),
      identifier: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      label: 'Newsletter',
      form_type: 'embed',
      widget_type: 'inline_embed',
      enabled: true,
      allowed_embedding_domains: [],
      theme_settings: { colors: {}, typography: {}, layout: {}, effects: {} },
      automation_settings: { tag_list: [], sequence_ids: [], double_opt_in: false, send_welcome_email: false },
      security_settings: {
        honeypot: true,
        time_validation: true,
        min_submit_seconds: 3,
        rate_limit: true,
        rate_limit_max: 5,
        rate_limit_window_minutes: 60,
        turnstile: false,
        turnstile_site_key: null,
      },
      trigger_settings: { trigger: 'immediate', delay_seconds: 0, scroll_percentage: 50, frequency: 'every_visit', devices: ['desktop', 'tablet', 'mobile'] },
      widget_settings: {},
      confirmation_email_template_id: null,
      welcome_email_template_id: null,
      confirmation_redirect_url: null,
      include_unsubscribe_link_in_confirmation: true,
      analytics: { views_count: 0, unique_views_count: 0, submissions_count: 0, conversion_rate: 0 },
      is_variant: false,
      parent_form_id: null,
      variant_name: null,
      variant_weight: 50,
      variants_count: 0,
      opt_in_form_blocks: [
        expect.objectContaining({ block_type: 'input_field', input_field_value_type: 'email', required: true, position: 0 }),
        expect.objectContaining({ block_type: 'button', button_label: 'Sign Up', position: 1 }),
      ],
      opt_in_post_submission_blocks: [expect.objectContaining({ block_type: 'text', text_value: 'Thanks for signing up!' })],
      embed_url: `https://forms.example.com/f/${created.body.identifier as string}/embed.js`,
      created_at: NOW.toISOString(),
      updated_at: NOW.toISOString(),
    });
    const read = await as().get(`/api/v1/opt_in_forms/${created.body.id as number}`);
    expect(read.body).toEqual(created.body);
    expectResponseMatchesDocument(created);
    expectResponseMatchesDocument(read);
  });

  it('takes every attribute flat, allowed domains as a newline-separated string, and this channel’s templates', async () => {
    const template = await aTemplate(token);
    const form = await newForm({
      form_type: 'web',
      widget_type: 'popup_modal',
      enabled: false,
      allowed_embedding_domains: 'Example.com\n\n shop.example.com \r\nexample.com',
      confirmation_email_template_id: template,
      welcome_email_template_id: template,
      confirmation_redirect_url: 'https://example.com/thanks',
      include_unsubscribe_link_in_confirmation: false,
      theme_settings: { colors: { primary: '#1a2B3c', text: '#fff' }, typography: { font_family: 'Inter, sans-serif' } },
      automation_settings: { tag_list: ['lead'], double_opt_in: true },
      security_settings: { rate_limit_max: 10, turnstile: true, turnstile_site_key: 'site-key' },
      trigger_settings: { trigger: 'scroll', scroll_percentage: 70, frequency: 'once_per_day', devices: ['mobile'] },
      widget_settings: { position: 'bottom-right', nested: { a: 1 } },
    });
    expect(form).toMatchObject({
      form_type: 'web',
      widget_type: 'popup_modal',
      enabled: false,
      allowed_embedding_domains: ['example.com', 'shop.example.com'],
      confirmation_email_template_id: template,
      welcome_email_template_id: template,
      confirmation_redirect_url: 'https://example.com/thanks',
      include_unsubscribe_link_in_confirmation: false,
      theme_settings: { colors: { primary: '#1a2B3c', text: '#fff' }, typography: { font_family: 'Inter, sans-serif' }, layout: {}, effects: {} },
      automation_settings: { tag_list: ['lead'], sequence_ids: [], double_opt_in: true, send_welcome_email: false },
      security_settings: { honeypot: true, rate_limit_max: 10, turnstile: true, turnstile_site_key: 'site-key', min_submit_seconds: 3 },
      trigger_settings: { trigger: 'scroll', scroll_percentage: 70, frequency: 'once_per_day', devices: ['mobile'], delay_seconds: 0 },
      widget_settings: { position: 'bottom-right', nested: { a: 1 } },
    });
    const arrayDomains = await newForm({ allowed_embedding_domains: ['a.example', 'b.example'] });
    expect(arrayDomains.allowed_embedding_domains).toEqual(['a.example', 'b.example']);
  });

  it('deep-merges settings objects on PATCH, null deleting a key (back to its default), other fields unchanged', async () => {
    const form = await newForm({
      theme_settings: { colors: { primary: '#111111', background: '#ffffff' }, layout: { width: '400px' } },
      security_settings: { rate_limit_max: 9, min_submit_seconds: 5 },
      widget_settings: { a: { b: 1, c: 2 }, d: 3 },
    });
    const patched = await as().patch(`/api/v1/opt_in_forms/${form.id}`, {
      opt_in_form: {
        theme_settings: { colors: { primary: '#222222', background: null }, effects: { shadow: 'none' } },
        security_settings: { rate_limit_max: null, honeypot: false },
        widget_settings: { a: { c: null, e: 4 } },
      },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.theme_settings).toEqual({ colors: { primary: '#222222' }, typography: {}, layout: { width: '400px' }, effects: { shadow: 'none' } });
    expect(patched.body.security_settings).toMatchObject({ rate_limit_max: 5, min_submit_seconds: 5, honeypot: false });
    expect(patched.body.widget_settings).toEqual({ a: { b: 1, e: 4 }, d: 3 });
    expect(patched.body.label).toBe('Newsletter');
    expect(patched.body.opt_in_form_blocks).toEqual(form.opt_in_form_blocks);
    const label = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { label: 'Renamed' });
    expect(label.body).toMatchObject({ label: 'Renamed', widget_settings: { a: { b: 1, e: 4 }, d: 3 } });
    const reset = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { security_settings: null, widget_settings: null });
    expect(reset.body.security_settings).toEqual({
      honeypot: true,
      time_validation: true,
      min_submit_seconds: 3,
      rate_limit: true,
      rate_limit_max: 5,
      rate_limit_window_minutes: 60,
      turnstile: false,
      turnstile_site_key: null,
    });
    expect(reset.body.widget_settings).toEqual({});
    expect(reset.body.theme_settings).toEqual(patched.body.theme_settings);
    expectResponseMatchesDocument(patched);
  });

  it('refuses bad settings with a 422 naming the field, and writes nothing', async () => {
    const form = await newForm();
    const forms = await rowCount('opt_in_forms');
    const cases: Array<[object, string]> = [
      [{ label: '' }, "label can't be blank"],
      [{ widget_type: 'banner' }, 'widget_type must be one of inline_embed, popup_modal, slide_in_panel, floating_button, sticky_bar, full_page'],
      [{ form_type: 'paper' }, 'form_type must be one of embed, web'],
      [{ theme_settings: { colors: { primary: 'red' } } }, 'theme_settings.colors.primary must be a hex colour'],
      [{ theme_settings: { typography: { font: 'Arial; color: red' } } }, 'theme_settings.typography.font must not contain'],
      [{ theme_settings: { layout: { bg: 'URL(https://evil.example/x)' } } }, 'theme_settings.layout.bg must not contain'],
      [{ theme_settings: { effects: { w: 'expression(alert(1))' } } }, 'theme_settings.effects.w must not contain'],
      [{ theme_settings: { colors: { a: '#fff}' } } }, 'theme_settings.colors.a must not contain'],
      [{ theme_settings: { layout: { x: '<b>' } } }, 'theme_settings.layout.x must not contain'],
      [
        { trigger_settings: { frequency: 'hourly' } },
        'trigger_settings.frequency must be one of always, every_visit, once_per_session, once_per_day, once_per_week, once',
      ],
      [{ trigger_settings: { trigger: 'hover' } }, 'trigger_settings.trigger must be one of immediate, time_delay, scroll, exit_intent'],
      [{ security_settings: { rate_limit_max: 'many' } }, 'security_settings.rate_limit_max must be a number'],
      [{ automation_settings: { unknown_key: true } }, 'automation_settings.unknown_key is not allowed'],
      [{ confirmation_redirect_url: 'javascript:alert(1)' }, 'confirmation_redirect_url must be an http or https URL'],
      [{ confirmation_email_template_id: 999_999 }, 'confirmation_email_template_id 999999 is not a template of this channel'],
      [{ automation_settings: { sequence_ids: [999_999] } }, 'automation_settings.sequence_ids 999999 are not sequences of this channel'],
    ];
    for (const [body, message] of cases) {
      const created = await as().post('/api/v1/opt_in_forms', { label: 'X', ...body });
      expect([JSON.stringify(body), created.status, created.body.error]).toEqual([JSON.stringify(body), 422, expect.stringContaining(message)]);
      if (!('label' in body)) {
        const patched = await as().patch(`/api/v1/opt_in_forms/${form.id}`, body);
        expect([JSON.stringify(body), patched.status, patched.body.error]).toEqual([JSON.stringify(body), 422, expect.stringContaining(message)]);
      }
    }
    expect((await as().post('/api/v1/opt_in_forms', {})).body).toEqual({ error: "label can't be blank" });
    const foreignTemplate = await aTemplate((await api.fixtures.aTenant()).token);
    const foreign = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { welcome_email_template_id: foreignTemplate });
    expect(foreign.body).toEqual({ error: `welcome_email_template_id ${foreignTemplate} is not a template of this channel` });
    expect(await rowCount('opt_in_forms')).toBe(forms);
    expect((await as().get(`/api/v1/opt_in_forms/${form.id}`)).body).toEqual(form);
  });

  it('replaces block lists, or edits them by id with _destroy, and keeps the block rules', async () => {
    const topic = await aTopic(channelId, 'news');
    const form = await newForm({
      opt_in_form_blocks: [
        { block_type: 'heading', text_value: 'Join us' },
        emailInput,
        { block_type: 'custom_field', custom_field_key: 'company_name', input_field_label: 'Company' },
        { block_type: 'dropdown', options: ['a', 'b'], custom_field_key: 'choice' },
        { block_type: 'topic', topic_id: topic, checkbox_label: 'News' },
        { block_type: 'button' },
      ],
      opt_in_post_submission_blocks: [
        { block_type: 'heading', text_value: 'Done' },
        { block_type: 'image', image_url: 'https://example.com/a.png' },
        { block_type: 'divider' },
        { block_type: 'spacer' },
        { block_type: 'text', text_value: 'See you' },
      ],
    });
    const blocks = form.opt_in_form_blocks as Array<{ id: number; block_type: string; position: number; button_label: string | null; topic_id: number | null }>;
    expect(blocks.map((b) => [b.block_type, b.position])).toEqual([
      ['heading', 0],
      ['input_field', 1],
      ['custom_field', 2],
      ['dropdown', 3],
      ['topic', 4],
      ['button', 5],
    ]);
    expect(blocks[5]!.button_label).toBe('Sign Up');
    expect(blocks[4]!.topic_id).toBe(topic);
    expect((form.opt_in_post_submission_blocks as unknown[]).length).toBe(5);

    const edited = await as().patch(`/api/v1/opt_in_forms/${form.id}`, {
      opt_in_form_blocks_attributes: [
        { id: blocks[0]!.id, text_value: 'Join now' },
        { id: blocks[3]!.id, _destroy: true },
        { block_type: 'text', text_value: 'Fine print', position: 9 },
      ],
    });
    expect(edited.status).toBe(200);
    const after = edited.body.opt_in_form_blocks as Array<{ id: number; block_type: string; text_value: string | null }>;
    expect(after.map((b) => b.block_type)).toEqual(['heading', 'input_field', 'custom_field', 'topic', 'button', 'text']);
    expect(after[0]).toMatchObject({ id: blocks[0]!.id, text_value: 'Join now' });
    expect(edited.body.opt_in_post_submission_blocks).toEqual(form.opt_in_post_submission_blocks);

    const replaced = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { opt_in_post_submission_blocks: [{ block_type: 'text', text_value: 'Bye' }] });
    expect((replaced.body.opt_in_post_submission_blocks as Array<{ text_value: string }>).map((b) => b.text_value)).toEqual(['Bye']);
    expect(replaced.body.opt_in_form_blocks).toEqual(edited.body.opt_in_form_blocks);
  });

  it('refuses blocks that break the rules, naming them, and writes nothing', async () => {
    const mine = await aTopic(channelId, 'offers');
    const theirs = await aTopic((await api.fixtures.aChannel()).id, 'theirs');
    const form = await newForm();
    const blocksBefore = await rowCount('opt_in_form_blocks');
    const cases: Array<[object, string]> = [
      [{ opt_in_form_blocks: [{ block_type: 'button' }] }, 'The form view must have exactly one email input (it has 0)'],
      [{ opt_in_form_blocks: [emailInput, emailInput] }, 'The form view must have exactly one email input (it has 2)'],
      [
        { opt_in_post_submission_blocks: [{ block_type: 'button' }, { block_type: 'input_field' }] },
        'opt_in_post_submission_blocks allow only heading, text, image, divider, spacer blocks (not button, input_field)',
      ],
      [{ opt_in_form_blocks: [emailInput, { block_type: 'custom_field', custom_field_key: 'Bad-Key' }] }, 'custom_field_key "Bad-Key" must start with'],
      [{ opt_in_form_blocks: [emailInput, { block_type: 'custom_field', custom_field_key: '1abc' }] }, 'custom_field_key "1abc" must start with'],
      [{ opt_in_form_blocks: [emailInput, { block_type: 'custom_field', input_field_label: 'Company' }] }, 'custom_field_key is required for a custom field'],
      [{ opt_in_form_blocks: [emailInput, { block_type: 'topic' }] }, 'topic_id is required for a topic block'],
      [{ opt_in_form_blocks: [emailInput, { block_type: 'topic', topic_id: theirs }] }, `topic_id ${theirs} is not a topic of this channel`],
      [
        {
          opt_in_form_blocks: [emailInput, { block_type: 'topic', topic_id: mine }, { block_type: 'topic', topic_id: mine }],
        },
        `topic_id ${mine} appears more than once in this form`,
      ],
      [
        { opt_in_post_submission_blocks: [{ block_type: 'image', image_url: 'javascript:alert(1)' }] },
        'opt_in_post_submission_blocks[0].image_url must be an http or https URL',
      ],
      [{ opt_in_form_blocks: [{ block_type: 'sparkle' }] }, 'opt_in_form_blocks[0].block_type must be one of heading'],
      [{ opt_in_form_blocks: [{ ...emailInput, input_field_value_type: 'phone' }] }, 'opt_in_form_blocks[0].input_field_value_type must be one of email'],
      [{ opt_in_form_blocks_attributes: [{ id: 999_999, text_value: 'x' }] }, 'opt_in_form_blocks: block 999999 is not a block of this list'],
      [{ opt_in_form_blocks: [emailInput], opt_in_form_blocks_attributes: [] }, 'opt_in_form_blocks and opt_in_form_blocks_attributes cannot both be given'],
    ];
    for (const [body, message] of cases) {
      const patched = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { label: 'Changed', ...body });
      expect([JSON.stringify(body), patched.status, patched.body.error]).toEqual([JSON.stringify(body), 422, expect.stringContaining(message)]);
    }
    const emailId = (form.opt_in_form_blocks as Array<{ id: number }>)[0]!.id;
    const destroyEmail = await as().patch(`/api/v1/opt_in_forms/${form.id}`, { opt_in_form_blocks_attributes: [{ id: emailId, _destroy: true }] });
    expect(destroyEmail.body).toEqual({ error: 'The form view must have exactly one email input (it has 0)' });
    const createBad = await as().post('/api/v1/opt_in_forms', { label: 'Y', opt_in_form_blocks: [{ block_type: 'text' }] });
    expect(createBad.status).toBe(422);
    expect(await rowCount('opt_in_form_blocks')).toBe(blocksBefore);
    expect((await as().get(`/api/v1/opt_in_forms/${form.id}`)).body).toEqual(form);
  });

  it('creates variants (Variant B, C…) with weights, refuses a variant of a variant, and deletes variants with the form', async () => {
    const form = await newForm({ label: 'Split', theme_settings: { colors: { primary: '#123456' } } });
    const b = await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, {});
    expect(b.status).toBe(201);
    expect(b.body).toMatchObject({
      label: 'Split',
      is_variant: true,
      parent_form_id: form.id,
      variant_name: 'Variant B',
      variant_weight: 50,
      theme_settings: form.theme_settings,
      variants_count: 0,
    });
    expect(b.body.identifier).not.toBe(form.identifier);
    expect((b.body.opt_in_form_blocks as Array<{ block_type: string }>).map((x) => x.block_type)).toEqual(['input_field', 'button']);
    const c = await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, { weight: 20 });
    expect(c.body).toMatchObject({ variant_name: 'Variant C', variant_weight: 20 });
    const named = await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, { name: 'Bold', weight: 0 });
    expect(named.body).toMatchObject({ variant_name: 'Bold', variant_weight: 0 });
    expect((await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, { weight: 101 })).body).toEqual({ error: 'weight must be less than or equal to 100' });
    expect((await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, { weight: -1 })).status).toBe(422);
    expect((await as().post(`/api/v1/opt_in_forms/${b.body.id as number}/variants`, {})).body).toEqual({ error: 'A variant cannot have variants' });
    expect((await as().get(`/api/v1/opt_in_forms/${form.id}`)).body.variants_count).toBe(3);
    const variantPatch = await as().patch(`/api/v1/opt_in_forms/${b.body.id as number}`, { label: 'B label' });
    expect(variantPatch.body).toMatchObject({ label: 'B label', is_variant: true });
    const reweighted = await as().patch(`/api/v1/opt_in_forms/${b.body.id as number}`, { variant_weight: 70, variant_name: 'Green' });
    expect(reweighted.body).toMatchObject({ variant_name: 'Green', variant_weight: 70 });
    expect((await as().patch(`/api/v1/opt_in_forms/${form.id}`, { variant_weight: 10 })).body).toEqual({
      error: 'variant_name and variant_weight can only be set on a variant',
    });
    expect((await as().patch(`/api/v1/opt_in_forms/${b.body.id as number}`, { variant_weight: 101 })).body).toEqual({
      error: 'variant_weight must be less than or equal to 100',
    });
    const fourth = await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, {});
    expect(fourth.body.variant_name).toBe('Variant B');

    const list = await as().get('/api/v1/opt_in_forms?filter=Split');
    expect((list.body.opt_in_forms as Array<{ id: number }>).map((f) => f.id)).toEqual([form.id]);

    const deleted = await as().delete(`/api/v1/opt_in_forms/${form.id}`);
    expect([deleted.status, deleted.body]).toEqual([200, { message: 'Opt-in form deleted' }]);
    for (const id of [form.id, b.body.id as number, c.body.id as number]) expect((await as().get(`/api/v1/opt_in_forms/${id}`)).status).toBe(404);
    const left = await api.database.db('opt_in_form_blocks').whereIn('form_id', [form.id, b.body.id, c.body.id, named.body.id]).count({ n: '*' }).first();
    expect(Number(left?.n)).toBe(0);
    expectResponseMatchesDocument(b);
    expectResponseMatchesDocument(deleted);
  });

  it('duplicates a form as a new main form with a new identifier, "(Copy)", no variants and no figures', async () => {
    const form = await newForm({ label: 'Original', widget_type: 'sticky_bar', opt_in_form_blocks: [{ block_type: 'heading', text_value: 'Hi' }, emailInput] });
    await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, {});
    await api.database.db('opt_in_form_daily_statistics').insert({ form_id: form.id, day: '2026-12-10', shard: 0, views: 5, unique_views: 4, submissions: 2 });
    const copy = await as().post(`/api/v1/opt_in_forms/${form.id}/duplicate`, {});
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      label: 'Original (Copy)',
      widget_type: 'sticky_bar',
      is_variant: false,
      parent_form_id: null,
      variant_name: null,
      variants_count: 0,
      analytics: { views_count: 0, unique_views_count: 0, submissions_count: 0, conversion_rate: 0 },
    });
    expect(copy.body.identifier).not.toBe(form.identifier);
    expect(copy.body.id).not.toBe(form.id);
    const texts = (blocks: unknown) =>
      (blocks as Array<{ block_type: string; text_value: string | null; id: number }>).map((x) => [x.block_type, x.text_value]);
    expect(texts(copy.body.opt_in_form_blocks)).toEqual(texts(form.opt_in_form_blocks));
    const ids = (blocks: unknown) => (blocks as Array<{ id: number }>).map((x) => x.id);
    expect(ids(copy.body.opt_in_form_blocks)).not.toEqual(ids(form.opt_in_form_blocks));
    const labelled = await as().post(`/api/v1/opt_in_forms/${form.id}/duplicate`, { label: 'Second' });
    expect(labelled.body.label).toBe('Second');
    expect((await as().get(`/api/v1/opt_in_forms/${form.id}`)).body.analytics).toEqual({
      views_count: 5,
      unique_views_count: 4,
      submissions_count: 2,
      conversion_rate: 50,
    });
    expectResponseMatchesDocument(copy);
  });

  it('answers analytics from the sharded daily counters, per day and per variant', async () => {
    const form = await newForm({ label: 'Measured' });
    const variant = (await as().post(`/api/v1/opt_in_forms/${form.id}/variants`, { weight: 30 })).body.id as number;
    await api.database.db('opt_in_form_daily_statistics').insert([
      { form_id: form.id, day: '2026-12-01', shard: 0, views: 10, unique_views: 6, submissions: 1 },
      { form_id: form.id, day: '2026-12-01', shard: 3, views: 4, unique_views: 2, submissions: 1 },
      { form_id: form.id, day: '2026-12-03', shard: 1, views: 2, unique_views: 1, submissions: 0 },
      { form_id: form.id, day: '2026-11-01', shard: 0, views: 100, unique_views: 100, submissions: 100 },
      { form_id: variant, day: '2026-12-02', shard: 0, views: 3, unique_views: 3, submissions: 1 },
      { form_id: variant, day: '2026-12-02', shard: 5, views: 3, unique_views: 3, submissions: 0 },
    ]);
    const answer = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics?start_date=2026-12-01&end_date=2026-12-03`);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      form_id: form.id,
      start_date: '2026-12-01',
      end_date: '2026-12-03',
      totals: { views: 16, unique_views: 9, submissions: 2, conversion_rate: 22.22 },
      daily: [
        { date: '2026-12-01', views: 14, unique_views: 8, submissions: 2, conversion_rate: 25 },
        { date: '2026-12-02', views: 0, unique_views: 0, submissions: 0, conversion_rate: 0 },
        { date: '2026-12-03', views: 2, unique_views: 1, submissions: 0, conversion_rate: 0 },
      ],
      variants: [{ form_id: variant, variant_name: 'Variant B', variant_weight: 30, views: 6, unique_views: 6, submissions: 1, conversion_rate: 16.67 }],
    });
    expectResponseMatchesDocument(answer);
    const variantAnswer = await as().get(`/api/v1/opt_in_forms/${variant}/analytics?start_date=2026-12-01&end_date=2026-12-03`);
    expect(variantAnswer.body).toMatchObject({ totals: { views: 6, unique_views: 6, submissions: 1, conversion_rate: 16.67 }, variants: [] });

    // Default: the last 30 days up to today (the clock's), the November row outside it.
    const byDefault = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics`);
    expect(byDefault.body).toMatchObject({ start_date: '2026-11-16', end_date: '2026-12-15', totals: { views: 16, unique_views: 9, submissions: 2 } });
    expect(byDefault.body.daily).toHaveLength(30);
    expect(byDefault.body.warnings).toBeUndefined();

    const badDate = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics?start_date=yesterday&end_date=2026-02-30`);
    expect(badDate.status).toBe(200);
    expect(badDate.body).toMatchObject({ start_date: '2026-11-16', end_date: '2026-12-15' });
    expect(badDate.body.warnings).toEqual([
      { code: 'parameter_ignored', param: 'start_date', message: expect.stringContaining('start_date is not a date') },
      { code: 'parameter_ignored', param: 'end_date', message: expect.stringContaining('end_date is not a date') },
    ]);
    expectResponseMatchesDocument(badDate);
    const instants = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics?start_date=2026-12-02T10:00:00Z&end_date=2026-12-02`);
    expect(instants.body).toMatchObject({ start_date: '2026-12-02', end_date: '2026-12-02', daily: [expect.objectContaining({ date: '2026-12-02' })] });
    const tooLong = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics?start_date=2020-01-01&end_date=2026-12-02`);
    expect([tooLong.status, tooLong.body]).toEqual([422, { error: 'the date range may span at most 1000 days' }]);
    const reversed = await as().get(`/api/v1/opt_in_forms/${form.id}/analytics?start_date=2026-12-03&end_date=2026-12-01`);
    expect([reversed.status, reversed.body]).toEqual([422, { error: 'end_date must not be before start_date' }]);
  });

  it('lists main forms only, 250 a page, filtered by label, widget type and enabled', async () => {
    const tenant = await api.fixtures.aTenant();
    const t = tenant.token;
    const rows = Array.from({ length: 251 }, (_, i) => ({
      channel_id: tenant.channel.id,
      identifier: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      label: i === 0 ? 'Spring 50%_sale' : `Form ${i}`,
      widget_type: i % 2 === 0 ? 'inline_embed' : 'popup_modal',
      enabled: i % 3 !== 0,
      created_at: new Date(NOW.getTime() + i * 1000),
      updated_at: NOW,
    }));
    await api.database.db('opt_in_forms').insert(rows);
    const first = (await api.database.db('opt_in_forms').where({ channel_id: tenant.channel.id }).orderBy('id').first('id')) as { id: number };
    await api.database.db('opt_in_forms').insert({
      channel_id: tenant.channel.id,
      identifier: '00000000-0000-4000-8000-999999999999',
      label: 'Spring variant',
      parent_form_id: first.id,
      variant_name: 'Variant B',
      created_at: NOW,
      updated_at: NOW,
    });
    const page1 = await as(t).get('/api/v1/opt_in_forms');
    expect(page1.status).toBe(200);
    expect(page1.body.opt_in_forms).toHaveLength(250);
    expect(page1.body.pagination).toEqual({ prev: null, next: 2, count: 251, pages: 2, page: 1 });
    expect(page1.body.opt_in_forms[0]).toMatchObject({ label: 'Spring 50%_sale', variants_count: 1 });
    const page2 = await as(t).get('/api/v1/opt_in_forms?page=2');
    expect(page2.body.pagination).toEqual({ prev: 1, next: null, count: 251, pages: 2, page: 2 });
    expect((page2.body.opt_in_forms as Array<{ label: string }>).map((f) => f.label)).toEqual(['Form 250']);

    const labels = async (query: string) =>
      ((await as(t).get(`/api/v1/opt_in_forms?${query}`)).body.opt_in_forms as Array<{ label: string }>).map((f) => f.label);
    expect(await labels('filter=spring')).toEqual(['Spring 50%_sale']);
    expect(await labels('filter=50%25_')).toEqual(['Spring 50%_sale']);
    expect(await labels('filter=Form 25')).toEqual(['Form 25', 'Form 250']);
    const popups = (await as(t).get('/api/v1/opt_in_forms?widget_type=popup_modal')).body;
    expect(popups.pagination.count).toBe(125);
    expect((popups.opt_in_forms as Array<{ widget_type: string }>).every((f) => f.widget_type === 'popup_modal')).toBe(true);
    const disabled = (await as(t).get('/api/v1/opt_in_forms?enabled=false')).body;
    expect(disabled.pagination.count).toBe(84);
    expect((disabled.opt_in_forms as Array<{ enabled: boolean }>).every((f) => !f.enabled)).toBe(true);
    expect((await as(t).get('/api/v1/opt_in_forms?widget_type=popup_modal&enabled=true')).body.pagination.count).toBe(83);
    expect((await as(t).get('/api/v1/opt_in_forms?widget_type=banner')).status).toBe(422);
    expect((await as(t).get('/api/v1/opt_in_forms?page=0')).status).toBe(422);
    expectResponseMatchesDocument(page2);
  });

  it('keeps each channel to its own forms, and needs the opt-in form permissions', async () => {
    const other = await api.fixtures.aTenant();
    const form = await newForm();
    for (const answer of [
      await as(other.token).get(`/api/v1/opt_in_forms/${form.id}`),
      await as(other.token).patch(`/api/v1/opt_in_forms/${form.id}`, { label: 'Mine' }),
      await as(other.token).delete(`/api/v1/opt_in_forms/${form.id}`),
      await as(other.token).get(`/api/v1/opt_in_forms/${form.id}/analytics`),
      await as(other.token).post(`/api/v1/opt_in_forms/${form.id}/variants`, {}),
      await as(other.token).post(`/api/v1/opt_in_forms/${form.id}/duplicate`, {}),
      await as().get('/api/v1/opt_in_forms/abc'),
    ]) {
      expect([answer.status, answer.body]).toEqual([404, { error: 'Opt-in form not found' }]);
    }
    expect((await as(other.token).get('/api/v1/opt_in_forms')).body.pagination.count).toBe(0);

    const readOnly = await api.fixtures.aToken(channelId, ['opt_in_forms_read']);
    expect((await as(readOnly).get(`/api/v1/opt_in_forms/${form.id}`)).status).toBe(200);
    expect((await as(readOnly).get('/api/v1/opt_in_forms')).status).toBe(200);
    expect((await as(readOnly).get(`/api/v1/opt_in_forms/${form.id}/analytics`)).status).toBe(200);
    for (const answer of [
      await as(readOnly).post('/api/v1/opt_in_forms', { label: 'x' }),
      await as(readOnly).patch(`/api/v1/opt_in_forms/${form.id}`, { label: 'x' }),
      await as(readOnly).delete(`/api/v1/opt_in_forms/${form.id}`),
      await as(readOnly).post(`/api/v1/opt_in_forms/${form.id}/variants`, {}),
      await as(readOnly).post(`/api/v1/opt_in_forms/${form.id}/duplicate`, {}),
    ]) {
      expect([answer.status, answer.body]).toEqual([401, { error: 'Unauthorized' }]);
    }
    const writeOnly = await api.fixtures.aToken(channelId, ['opt_in_forms_write']);
    expect((await as(writeOnly).get(`/api/v1/opt_in_forms/${form.id}`)).status).toBe(401);
    expect((await as(writeOnly).get(`/api/v1/opt_in_forms/${form.id}/analytics`)).status).toBe(401);
    const whoami = await as().get('/api/v1/whoami');
    expect(whoami.body.token.permissions).toMatchObject({ opt_in_forms_read: true, opt_in_forms_write: true });
  });

  it('warns of parameters it does not take', async () => {
    const created = await as().post('/api/v1/opt_in_forms', { opt_in_form: { label: 'W', colour: 'red' } });
    expect(created.status).toBe(201);
    expect(created.body.warnings).toEqual([expect.objectContaining({ code: 'unrecognized_parameter', param: 'colour' })]);
  });
});

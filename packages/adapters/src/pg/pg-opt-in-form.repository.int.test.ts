import { randomUUID } from 'node:crypto';
import { BLOCK_DEFAULTS, OPT_IN_FORM_DEFAULTS, settingsFromJson, type NewOptInForm, type OptInFormBlockWrite } from '@mailcast/core';
import { createTestDatabase, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { PgOptInFormRepository } from './pg-opt-in-form.repository';

const block = (overrides: Partial<OptInFormBlockWrite>): OptInFormBlockWrite => ({ ...BLOCK_DEFAULTS, ...overrides });

const aForm = (overrides: Partial<NewOptInForm> = {}): NewOptInForm => ({
  ...settingsFromJson({}),
  label: 'Newsletter',
  formType: 'embed',
  widgetType: 'inline_embed',
  enabled: true,
  allowedEmbeddingDomains: [],
  confirmationEmailTemplateId: null,
  welcomeEmailTemplateId: null,
  confirmationRedirectUrl: null,
  includeUnsubscribeLinkInConfirmation: true,
  identifier: randomUUID(),
  parentFormId: null,
  variantName: null,
  variantWeight: 50,
  formBlocks: [
    block({ blockType: 'input_field', inputFieldValueType: 'email', required: true }),
    block({ blockType: 'button', position: 1, buttonLabel: 'Sign Up' }),
  ],
  postSubmissionBlocks: [block({ textValue: 'Thanks' })],
  ...overrides,
});

describe('PgOptInFormRepository', () => {
  let database: TestDatabase;
  let forms: PgOptInFormRepository;
  let channelId: number;
  let otherChannel: number;
  const now = new Date('2026-12-01T10:00:00Z');

  beforeAll(async () => {
    database = await createTestDatabase();
    const fixtures = new Fixtures(database.db, createBoss(database.url, 'api'));
    channelId = (await fixtures.aChannel()).id;
    otherChannel = (await fixtures.aChannel()).id;
    forms = new PgOptInFormRepository(database.db);
  });
  afterAll(() => database.drop());

  it('finds a form and its variants by identifier in any channel, with both block lists and defaults applied', async () => {
    const main = await forms.create(channelId, aForm(), now);
    const variant = await forms.create(channelId, aForm({ parentFormId: main.id, variantName: 'Variant B', variantWeight: 30 }), now);
    // A row written without settings (as another writer might) reads with every default.
    await database
      .db('opt_in_forms')
      .where({ id: main.id })
      .update({ security_settings: JSON.stringify({ rate_limit_max: 9 }) });

    const found = await forms.findByIdentifier(main.identifier);
    expect(found?.securitySettings).toEqual({ ...OPT_IN_FORM_DEFAULTS.securitySettings, rateLimitMax: 9 });
    expect(found?.triggerSettings.frequency).toBe('every_visit');
    expect(found?.formBlocks.map((b) => b.blockType)).toEqual(['input_field', 'button']);
    expect(found?.postSubmissionBlocks.map((b) => b.textValue)).toEqual(['Thanks']);
    expect((await forms.findByIdentifier(variant.identifier))?.parentFormId).toBe(main.id);
    expect((await forms.variantsOf(main.id)).map((v) => [v.variantName, v.variantWeight])).toEqual([['Variant B', 30]]);
    expect(await forms.findByIdentifier('not-a-uuid')).toBeNull();
    expect(await forms.findById(otherChannel, main.id)).toBeNull();
  });

  it('saves a block list: kept ids updated, new ones inserted, the others deleted', async () => {
    const form = await forms.create(channelId, aForm(), now);
    const [email, button] = form.formBlocks;
    await forms.saveBlocks(form.id, 'form', [{ ...email!, position: 1 }, block({ blockType: 'heading', position: 0, textValue: 'Join' })], now);
    const saved = (await forms.findById(channelId, form.id))!;
    expect(saved.formBlocks.map((b) => [b.blockType, b.position])).toEqual([
      ['heading', 0],
      ['input_field', 1],
    ]);
    expect(saved.formBlocks.some((b) => b.id === button!.id)).toBe(false);
    expect(saved.postSubmissionBlocks).toHaveLength(1);
  });
});

import { randomUUID } from 'node:crypto';
import { BLOCK_DEFAULTS, OPT_IN_FORM_DEFAULTS, settingsFromJson, type NewOptInForm, type OptInFormBlockWrite, type OptInFormRepository } from '@mailcast/core';
import { createTestDatabase, eventually, Fixtures, type TestDatabase } from '@mailcast/testkit';
import { createBoss } from '../queue/boss';
import { CachedOptInFormRepository } from './cached-opt-in-form.repository';
import { PgFormSubmissionRepository } from './pg-form-submission.repository';
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

/** docs/opt-in-forms.md, "The form in memory" and "Submission processing". */
describe('the public forms path: forms kept in memory, a plain sign-up in one statement', () => {
  let database: TestDatabase;
  let forms: PgOptInFormRepository;
  let channelId: number;
  const now = new Date('2026-12-04T10:00:00Z');
  const caches: CachedOptInFormRepository[] = [];

  /** The repository behind a cache, counting the reads that reach it. */
  function counted() {
    const reads = { n: 0 };
    const inner: OptInFormRepository = Object.create(forms) as OptInFormRepository;
    inner.findByIdentifier = (identifier) => (reads.n++, forms.findByIdentifier(identifier));
    inner.variantsOf = (id) => (reads.n++, forms.variantsOf(id));
    const cache = new CachedOptInFormRepository(inner, database.db, { maxEntries: 2 });
    caches.push(cache);
    return { cache, reads };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    channelId = (await new Fixtures(database.db, createBoss(database.url, 'api')).aChannel()).id;
    forms = new PgOptInFormRepository(database.db);
  });
  afterAll(async () => {
    await Promise.all(caches.map((c) => c.close()));
    await database.drop();
  });

  it('answers a known identifier from memory until a change to the form or its blocks is announced, by hand as through the repository', async () => {
    const form = await forms.create(channelId, aForm(), now);
    const { cache, reads } = counted();
    await cache.start();
    expect(cache.active).toBe(true);
    expect((await cache.findByIdentifier(form.identifier))?.label).toBe('Newsletter');
    expect((await cache.findByIdentifier(form.identifier.toUpperCase()))?.label).toBe('Newsletter');
    expect(await cache.variantsOf(form.id)).toEqual([]);
    expect(await cache.variantsOf(form.id)).toEqual([]);
    expect(reads.n).toBe(2);

    // A row edited by hand: the trigger announces it at its commit.
    await database.db('opt_in_forms').where({ id: form.id }).update({ enabled: false });
    await eventually(async () => ((await cache.findByIdentifier(form.identifier))?.enabled === false ? true : undefined), 5_000, 20);
    // A block list saved through the repository, and a variant added.
    await forms.saveBlocks(form.id, 'post_submission', [{ ...BLOCK_DEFAULTS, blockType: 'text', textValue: 'Thanks!' }], now);
    await eventually(
      async () => ((await cache.findByIdentifier(form.identifier))?.postSubmissionBlocks[0]?.textValue === 'Thanks!' ? true : undefined),
      5_000,
      20,
    );
    await forms.create(channelId, aForm({ parentFormId: form.id, variantName: 'Variant B' }), now);
    await eventually(async () => ((await cache.variantsOf(form.id)).length === 1 ? true : undefined), 5_000, 20);
    // Deleted: gone from memory too.
    await forms.delete(channelId, form.id);
    await eventually(async () => ((await cache.findByIdentifier(form.identifier)) === null ? true : undefined), 5_000, 20);
  });

  it('keeps no unknown identifier, at most maxEntries forms, and serves nothing from memory without its listener', async () => {
    const { cache, reads } = counted();
    const unknown = randomUUID();
    expect(await cache.findByIdentifier(unknown)).toBeNull();
    expect(await cache.findByIdentifier(unknown)).toBeNull();
    await cache.start();
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => forms.create(channelId, aForm(), now)));
    // The creations' own announcements arrive first: wait for the cache to keep what it reads.
    await eventually(
      async () => {
        const before = reads.n;
        await cache.findByIdentifier(a!.identifier);
        await cache.findByIdentifier(a!.identifier);
        return reads.n === before + 1 ? true : undefined;
      },
      5_000,
      20,
    );
    reads.n = 0;
    await cache.findByIdentifier(unknown);
    await cache.findByIdentifier(unknown);
    expect(reads.n).toBe(2);
    reads.n = 0;
    for (const f of [b!, c!, a!]) await cache.findByIdentifier(f.identifier);
    // a was the oldest when b and c came in (two entries at most): read again.
    expect(reads.n).toBe(3);

    await cache.close();
    expect(cache.active).toBe(false);
    reads.n = 0;
    await cache.findByIdentifier(a!.identifier);
    await cache.findByIdentifier(a!.identifier);
    expect(reads.n).toBe(2);
  });

  it('writes a new subscriber, its event and the counted submission in one statement; an address already there writes nothing', async () => {
    const form = await forms.create(channelId, aForm(), now);
    const submissions = new PgFormSubmissionRepository(database.db);
    const count = { formId: form.id, day: '2026-12-04', shard: 3 };
    const event = (type: string) => (row: { channelId: number; email: string }) => [
      { channelId: row.channelId, type: type as 'subscriber.created', data: { email: row.email }, createdAt: now },
    ];
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    database.db.on('query', listen);
    const created = await submissions.insertSubscriberCounted(
      { channelId, email: 'one@example.com', requiresConfirmation: false, source: 'opt_in_form', tags: ['news'] },
      now,
      event('subscriber.created'),
      count,
    );
    database.db.off('query', listen);
    expect(statements).toHaveLength(1);
    expect(created).toMatchObject({ email: 'one@example.com', source: 'opt_in_form', tags: ['news'] });
    const again = await submissions.insertSubscriberCounted(
      { channelId, email: 'one@example.com', requiresConfirmation: false, firstName: 'Other' },
      now,
      event('subscriber.created'),
      count,
    );
    expect(again).toBeNull();
    const counter = await database.db('opt_in_form_daily_statistics').where({ form_id: form.id }).select('shard', 'submissions');
    expect(counter).toEqual([{ shard: 3, submissions: 1 }]);
    const events = await database.db('events').whereRaw(`data->>'email' = ?`, ['one@example.com']).select('type', 'data');
    expect(events).toEqual([{ type: 'subscriber.created', data: { email: 'one@example.com', subscriber_id: created!.id } }]);
    expect((await database.db('subscribers').where({ channel_id: channelId, email: 'one@example.com' }).first('first_name')).first_name).toBeNull();
  });

  it('sign-ups of one turn go in one statement: each gets its row or null, with its events and its counter', async () => {
    const [form, other] = [await forms.create(channelId, aForm(), now), await forms.create(channelId, aForm(), now)];
    const submissions = new PgFormSubmissionRepository(database.db);
    await submissions.insertSubscriberCounted({ channelId, email: 'taken@example.com', requiresConfirmation: false }, now, () => [], {
      formId: form.id,
      day: '2026-12-05',
      shard: 0,
    });
    const event = (row: { channelId: number; email: string }) => [
      { channelId: row.channelId, type: 'subscriber.created' as const, data: { email: row.email }, createdAt: now },
    ];
    const statements: string[] = [];
    const listen = (query: { sql: string }) => statements.push(query.sql);
    database.db.on('query', listen);
    const signUp = (email: string, formId: number, shard: number) =>
      submissions.insertSubscriberCounted({ channelId, email, requiresConfirmation: false, source: 'opt_in_form' }, now, event, {
        formId,
        day: '2026-12-05',
        shard,
      });
    const answers = await Promise.all([
      signUp('b1@example.com', form.id, 1),
      signUp('b2@example.com', form.id, 1),
      signUp('taken@example.com', form.id, 1),
      signUp('b3@example.com', form.id, 2),
      signUp('b4@example.com', other.id, 1),
    ]);
    database.db.off('query', listen);
    expect(statements).toHaveLength(1);
    expect(answers.map((a) => a?.email ?? null)).toEqual(['b1@example.com', 'b2@example.com', null, 'b3@example.com', 'b4@example.com']);
    const counters = await database
      .db('opt_in_form_daily_statistics')
      .whereIn('form_id', [form.id, other.id])
      .orderBy(['form_id', 'shard'])
      .select('form_id', 'shard', 'submissions');
    expect(counters.map((c: { form_id: string; shard: number; submissions: number }) => [Number(c.form_id), c.shard, c.submissions])).toEqual([
      [form.id, 0, 1],
      [form.id, 1, 2],
      [form.id, 2, 1],
      [other.id, 1, 1],
    ]);
    const events = await database.db('events').whereRaw(`data->>'email' LIKE 'b_@example.com'`).orderBy('id').select('data');
    expect(events.map((e: { data: { email: string; subscriber_id: number } }) => [e.data.email, e.data.subscriber_id])).toEqual(
      answers.filter((a) => a !== null).map((a) => [a!.email, a!.id]),
    );
  });
});

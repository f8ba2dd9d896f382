import { createBoss, loadConfig } from '@mailcast/adapters';
import {
  BLOCK_DEFAULTS,
  Clock,
  Mailer,
  OPT_IN_FORM_DEFAULTS,
  PriorityMailer,
  SubmitOptInForm,
  Templates,
  ValidationError,
  type OptInForm,
  type OptInFormBlockFields,
  type OptInSubmission,
} from '@mailcast/core';
import { parseEmail, startSmtpCapture, type ParsedEmail, type SmtpCapture } from '@mailcast/devkit';
import { eventually, freePort, memoryLogger, testClock } from '@mailcast/testkit';
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type PgBoss from 'pg-boss';
import request from 'supertest';
import type { DependencyContainer } from 'tsyringe';
import { startApi, type ApiHarness } from '../../api/src/test-support/harness';
import { buildContainer } from './container';
import { HANDLERS } from './handlers';
import { startWorkers, type JobWorkers } from './workers/job-workers';

/** A browser's agent: Node's own ("node") is on the bot list, which gets a button instead of acting (docs/engagement.md). */
const PERSON = { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' };

/**
 * Opt-in form submissions (docs/opt-in-forms.md, "Submission processing") through
 * SubmitOptInForm resolved from the api's container: real PostgreSQL, the dispatcher's workers
 * sending to a real SMTP server, confirmation links followed over HTTP. The api's clock is the
 * test's, so the ten-minute window can pass.
 */

describe('SubmitOptInForm (docs/opt-in-forms.md: Submission processing)', () => {
  let api: ApiHarness;
  let server: http.Server;
  let smtp: SmtpCapture;
  let boss: PgBoss;
  let dispatcher: DependencyContainer;
  let workers: JobWorkers;
  let publicUrl: string;
  let channelId: number;
  let token: string;
  let submit: SubmitOptInForm;
  const time = testClock();

  beforeAll(async () => {
    const port = await freePort();
    publicUrl = `http://127.0.0.1:${port}`;
    api = await startApi({ env: { PUBLIC_URL: publicUrl, RATE_LIMIT_PER_MINUTE: '0' }, overrides: [{ token: Clock, value: time.clock }] });
    server = http.createServer(api.app);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    smtp = await startSmtpCapture();
    boss = createBoss(api.database.url, 'dispatcher');
    boss.on('error', () => undefined);
    await boss.start();
    dispatcher = buildContainer({
      config: loadConfig({ DATABASE_URL: api.database.url, PUBLIC_URL: publicUrl, SMTP_ALLOW_PRIVATE: 'true' }),
      logger: memoryLogger().logger,
      db: api.database.db,
      boss,
    });
    workers = startWorkers(boss, dispatcher, HANDLERS);
    const tenant = await api.fixtures.aTenant();
    channelId = tenant.channel.id;
    token = tenant.token;
    await api.fixtures.aCaptureServer(channelId, smtp.port, { fromEmail: 'news@example.com', fromName: 'Example News' });
    submit = api.container.resolve(SubmitOptInForm);
  });
  afterAll(async () => {
    await workers.stop();
    await boss.stop({ graceful: false, close: true, wait: true });
    await dispatcher.resolve<Mailer>(Mailer).close();
    await dispatcher.resolve<Mailer>(PriorityMailer).close();
    await dispatcher.resolve<Templates>(Templates).close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await smtp.close();
    await api.close();
  });

  const db = () => api.database.db;
  const call = (method: 'get' | 'post', path: string, body?: object) => {
    const r = request(api.app)[method](path).set('Authorization', `Bearer ${token}`);
    return body === undefined ? r : r.send(body);
  };
  const subscriber = async (email: string) => (await db()('subscribers').where({ channel_id: channelId, email }).first()) as Record<string, any>;
  const eventTypes = async (subscriberId: number) =>
    (await db()('events').where({ channel_id: channelId }).orderBy('id').select('type', 'data'))
      .filter((e: { data: { subscriber_id?: number; subscriber?: { id: number } } }) => (e.data.subscriber_id ?? e.data.subscriber?.id) === subscriberId)
      .map((e: { type: string }) => e.type);
  const enrolledIn = async (subscriberId: number) =>
    (
      (await db()('subscriber_sequences').where({ subscriber_id: subscriberId }).orderBy('sequence_id').select('sequence_id')) as Array<{ sequence_id: string }>
    ).map((r) => Number(r.sequence_id));
  const queuedConfirmations = async (subscriberId: number) =>
    Number(((await db()('subscriber_confirmations').where({ subscriber_id: subscriberId, email_queued: true }).count('* as n')) as Array<{ n: string }>)[0]!.n);
  const welcomes = async (subscriberId: number) =>
    (await db()('transactionals').where({ subscriber_id: subscriberId }).orderBy('id').select('id', 'subject', 'status')) as Array<{
      id: number;
      subject: string;
    }>;
  const mailsTo = (to: string) => smtp.messages.filter((m) => m.to.includes(to));
  async function mailTo(to: string, nth = 1): Promise<ParsedEmail> {
    const message = await eventually(async () => mailsTo(to)[nth - 1]);
    return parseEmail(message.raw);
  }
  const confirmLink = (mail: ParsedEmail) => {
    const match = new RegExp(`${publicUrl.replace(/[.]/g, '\\.')}/confirm/[A-Za-z0-9_-]{43}(?!/)`).exec(mail.text ?? '');
    if (!match) throw new Error(`no confirmation link in ${mail.text}`);
    return match[0];
  };
  /** Resolves once the dispatcher has finished every queued job that sends email. */
  const sendingDone = () =>
    eventually(async () => {
      const { rows } = await db().raw(
        `SELECT count(*)::int AS n FROM pgboss.job WHERE name IN ('subscribers.confirmation', 'transactionals.send') AND state NOT IN ('completed', 'failed', 'cancelled')`,
      );
      return (rows as Array<{ n: number }>)[0]!.n === 0 ? true : undefined;
    });
  const submissionsCounted = async (formId: number) =>
    Number(((await db()('opt_in_form_daily_statistics').where({ form_id: formId }).sum('submissions as n')) as Array<{ n: string | null }>)[0]!.n ?? 0);

  async function aTopic(fields: { custom_data_key?: string; tag_name?: string }): Promise<number> {
    const [row] = (await db()('topics')
      .insert({
        channel_id: channelId,
        name: `Topic ${randomUUID()}`,
        storage: fields.tag_name === undefined ? 'custom_data' : 'tag',
        custom_data_key: fields.custom_data_key ?? null,
        tag_name: fields.tag_name ?? null,
        created_at: new Date(),
        updated_at: new Date(),
      })
      .returning('id')) as Array<{ id: string }>;
    return Number(row!.id);
  }
  async function aTemplate(fields: Record<string, unknown>): Promise<number> {
    const res = await call('post', '/api/v1/templates', fields);
    expect(res.status).toBe(201);
    return res.body.id as number;
  }
  const block = (fields: Partial<OptInFormBlockFields> & Pick<OptInFormBlockFields, 'blockType' | 'position'>): OptInFormBlockFields => ({
    ...BLOCK_DEFAULTS,
    ...fields,
  });

  /** A form written through the forms' repository, as the public route loads and hands it over. */
  async function aForm(
    automation: Partial<OptInForm['automationSettings']> = {},
    extra: Partial<
      Pick<OptInForm, 'confirmationEmailTemplateId' | 'welcomeEmailTemplateId' | 'includeUnsubscribeLinkInConfirmation' | 'confirmationRedirectUrl'>
    > & {
      topicIds?: number[];
    } = {},
  ): Promise<OptInForm> {
    const topicIds = extra.topicIds ?? [];
    return api.fixtures.repositories.optInForms.create(
      channelId,
      {
        ...OPT_IN_FORM_DEFAULTS,
        automationSettings: { ...OPT_IN_FORM_DEFAULTS.automationSettings, ...automation },
        label: 'Sign up',
        formType: 'embed',
        widgetType: 'inline_embed',
        enabled: true,
        allowedEmbeddingDomains: [],
        confirmationEmailTemplateId: extra.confirmationEmailTemplateId ?? null,
        welcomeEmailTemplateId: extra.welcomeEmailTemplateId ?? null,
        confirmationRedirectUrl: extra.confirmationRedirectUrl ?? null,
        includeUnsubscribeLinkInConfirmation: extra.includeUnsubscribeLinkInConfirmation ?? true,
        identifier: randomUUID(),
        parentFormId: null,
        variantName: null,
        variantWeight: 50,
        formBlocks: [
          block({ blockType: 'input_field', position: 0, inputFieldValueType: 'email', required: true }),
          ...topicIds.map((topicId, i) => block({ blockType: 'topic', position: i + 1, topicId })),
          // The custom fields the form asks for; a submission's other custom_data keys are dropped.
          block({ blockType: 'custom_field', position: topicIds.length + 1, customFieldKey: 'company' }),
          block({ blockType: 'custom_field', position: topicIds.length + 2, customFieldKey: 'city' }),
          block({ blockType: 'button', position: topicIds.length + 3 }),
        ],
        postSubmissionBlocks: [],
      },
      new Date(),
    );
  }
  const submission = (form: OptInForm, email: string, extra: Partial<OptInSubmission> = {}): OptInSubmission => ({
    form,
    email,
    customData: {},
    topics: {},
    ipAddress: '203.0.113.9',
    ...extra,
  });

  it('subscribes a new address: source opt_in_form, custom fields, topic boxes, the form tags, sequences and welcome, counted', async () => {
    const digest = await aTopic({ custom_data_key: 'digest' });
    const offers = await aTopic({ custom_data_key: 'offers' });
    const beta = await aTopic({ tag_name: 'beta' });
    const { sequence } = await api.fixtures.aSequence(channelId, []);
    const { sequence: off } = await api.fixtures.aSequence(channelId, [], { active: false });
    const welcome = await aTemplate({
      label: 'welcome',
      subject: 'Welcome, {{ subscriber.first_name }}',
      body: 'Glad to have you, {{ subscriber.first_name }}.',
    });
    const form = await aForm(
      { tagList: ['lead', ' newsletter '], sequenceIds: [sequence.id, off.id], sendWelcomeEmail: true },
      { welcomeEmailTemplateId: welcome, topicIds: [digest, offers, beta] },
    );

    const answer = await submit.execute(
      submission(form, ' Ana@Example.com ', {
        firstName: 'Ana',
        lastName: ' ',
        customData: { company: 'Acme' },
        topics: { [digest]: true, [offers]: false, [beta]: true, 999999: true },
      }),
    );
    expect(answer).toEqual({ status: 'subscribed', message: expect.any(String) });
    const s = await subscriber('ana@example.com');
    expect(s).toMatchObject({
      first_name: 'Ana',
      last_name: null,
      source: 'opt_in_form',
      ip_address: '203.0.113.9',
      is_active: true,
      requires_confirmation: false,
      custom_data: { company: 'Acme', digest: true, offers: false },
    });
    expect([...s.tags].sort()).toEqual(['beta', 'lead', 'newsletter']);
    // Only the active sequence enrols, with its event.
    expect(await enrolledIn(s.id)).toEqual([sequence.id]);
    expect(await eventTypes(s.id)).toEqual(['subscriber.created', 'sequence.subscriber_added']);

    const mail = await mailTo('ana@example.com');
    expect(mail.subject).toBe('Welcome, Ana');
    expect(mail.text).toContain('Glad to have you, Ana.');
    // A welcome carries the unsubscribe link and header.
    expect(mail.headers['list-unsubscribe']).toMatch(new RegExp(`^<${publicUrl}/u/`));
    expect(await submissionsCounted(form.id)).toBe(1);
    const [counter] = (await db()('opt_in_form_daily_statistics').where({ form_id: form.id })) as Array<{ day: Date; shard: number }>;
    expect(counter!.shard).toBeGreaterThanOrEqual(0);
    expect(counter!.shard).toBeLessThan(8);
    expect(counter!.day.toISOString().slice(0, 10)).toBe(time.clock.now().toISOString().slice(0, 10));
  });

  it("merges the form's custom fields into a known subscriber, no other key, and leaves their topic values alone", async () => {
    const digest = await aTopic({ custom_data_key: 'weekly' });
    const known = await api.fixtures.aSubscriber(channelId, 'known@example.com', {
      customData: { plan: 'pro', weekly: false },
      firstName: 'Kim',
      tags: ['old'],
    });
    const form = await aForm({ tagList: ['form-tag'] }, { topicIds: [digest] });
    // plan and weekly are not fields of the form: a visitor who knows the address cannot write them.
    const answer = await submit.execute(
      submission(form, 'known@example.com', { customData: { company: 'Initech', plan: 'free', weekly: true }, topics: { [digest]: true } }),
    );
    expect(answer.status).toBe('subscribed');
    const s = await subscriber('known@example.com');
    expect(s.custom_data).toEqual({ plan: 'pro', weekly: false, company: 'Initech' });
    expect(s).toMatchObject({ first_name: 'Kim', source: 'api_subscription' });
    expect([...s.tags].sort()).toEqual(['form-tag', 'old']);
    expect(await eventTypes(known.id)).toEqual(['subscriber.updated']);

    // The same again changes nothing, so it emits nothing.
    await submit.execute(submission(form, 'known@example.com', { customData: { company: 'Initech' } }));
    expect(await eventTypes(known.id)).toEqual(['subscriber.updated']);
    expect(await submissionsCounted(form.id)).toBe(2);
  });

  it('double opt-in: one confirmation email (the form template), nothing applied until the link is opened, then tags, sequence and welcome', async () => {
    const { sequence } = await api.fixtures.aSequence(channelId, []);
    const confirmation = await aTemplate({
      label: 'form confirmation',
      template_purpose: 'confirmation',
      subject: 'Confirm your sign-up, {{ subscriber.first_name }}',
      body: 'Click: {{ confirmation_url }}',
    });
    const welcome = await aTemplate({ label: 'welcome doi', subject: 'You are in', body: 'Welcome aboard.' });
    const topic = await aTopic({ custom_data_key: 'news' });
    const form = await aForm(
      { tagList: ['confirmed-lead'], sequenceIds: [sequence.id], doubleOptIn: true, sendWelcomeEmail: true },
      { confirmationEmailTemplateId: confirmation, welcomeEmailTemplateId: welcome, topicIds: [topic] },
    );

    const first = await submit.execute(submission(form, 'dee@example.com', { firstName: 'Dee', customData: { city: 'Oslo' }, topics: { [topic]: true } }));
    expect(first).toEqual({ status: 'confirmation_required', message: expect.any(String) });
    const pending = await subscriber('dee@example.com');
    // The visitor's own data is written; the form's automation waits.
    expect(pending).toMatchObject({
      requires_confirmation: true,
      confirmed_at: null,
      tags: [],
      custom_data: { city: 'Oslo', news: true },
      source: 'opt_in_form',
    });
    expect(await enrolledIn(pending.id)).toEqual([]);
    const mail = await mailTo('dee@example.com');
    expect(mail.subject).toBe('Confirm your sign-up, Dee');

    // A second submission within ten minutes sends nothing more, whatever it says.
    time.advance(9 * 60 * 1000);
    const again = await submit.execute(submission(form, 'dee@example.com', { customData: { city: 'Bergen' } }));
    expect(again.status).toBe('confirmation_required');
    expect(await queuedConfirmations(pending.id)).toBe(1);
    await sendingDone();
    expect(mailsTo('dee@example.com')).toHaveLength(1);
    expect(await welcomes(pending.id)).toEqual([]);
    expect((await subscriber('dee@example.com')).tags).toEqual([]);

    const page = await fetch(confirmLink(mail), { headers: PERSON });
    expect(page.status).toBe(200);
    const confirmed = await subscriber('dee@example.com');
    expect(confirmed).toMatchObject({ confirmed_at: expect.any(Date), is_active: true, tags: ['confirmed-lead'], custom_data: { city: 'Bergen', news: true } });
    expect(await enrolledIn(confirmed.id)).toEqual([sequence.id]);
    expect(await eventTypes(confirmed.id)).toEqual(['subscriber.created', 'subscriber.updated', 'subscriber.subscribed', 'sequence.subscriber_added']);
    const welcomed = await mailTo('dee@example.com', 2);
    expect(welcomed.subject).toBe('You are in');
    expect(await db()('opt_in_form_pending_actions').where({ subscriber_id: confirmed.id })).toEqual([]);
    expect(await submissionsCounted(form.id)).toBe(2);

    // Confirmed now: a later submission of the form sends neither a confirmation nor a second welcome.
    time.advance(60 * 60 * 1000);
    expect((await submit.execute(submission(form, 'dee@example.com'))).status).toBe('subscribed');
    await sendingDone();
    expect(mailsTo('dee@example.com')).toHaveLength(2);
    expect(await queuedConfirmations(confirmed.id)).toBe(1);
  });

  it("confirming sends the person on to the form's confirmation_redirect_url (303); a scanner's GET confirms nothing, the button's POST does", async () => {
    const REDIRECT = 'https://example.com/thanks?from=form';
    const form = await aForm({ doubleOptIn: true, tagList: ['redirected'] }, { confirmationRedirectUrl: REDIRECT });
    expect((await submit.execute(submission(form, 'rita@example.com'))).status).toBe('confirmation_required');
    const link = confirmLink(await mailTo('rita@example.com'));

    // Node's own agent is a bot's: the page with the button, nothing confirmed, no redirect.
    const scanned = await fetch(link, { redirect: 'manual' });
    expect([scanned.status, scanned.headers.get('location')]).toEqual([200, null]);
    expect((await subscriber('rita@example.com')).confirmed_at).toBeNull();

    const pressed = await fetch(link, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'confirmed_by=person',
    });
    expect([pressed.status, pressed.headers.get('location')]).toEqual([303, REDIRECT]);
    expect(await subscriber('rita@example.com')).toMatchObject({ confirmed_at: expect.any(Date), tags: ['redirected'] });
    // Opened again: already confirmed, nothing held any more, so our own page.
    const again = await fetch(link, { redirect: 'manual', headers: PERSON });
    expect([again.status, again.headers.get('location')]).toEqual([200, null]);

    // A person's GET on a second address redirects at once.
    expect((await submit.execute(submission(form, 'sam@example.com'))).status).toBe('confirmation_required');
    const direct = await fetch(confirmLink(await mailTo('sam@example.com')), { redirect: 'manual', headers: PERSON });
    expect([direct.status, direct.headers.get('location')]).toEqual([303, REDIRECT]);
  });

  it('double opt-in after ten minutes: a still unconfirmed address gets one more email', async () => {
    const form = await aForm({ doubleOptIn: true });
    await submit.execute(submission(form, 'late@example.com'));
    await mailTo('late@example.com');
    time.advance(10 * 60 * 1000 + 1000);
    await submit.execute(submission(form, 'late@example.com'));
    const second = await mailTo('late@example.com', 2);
    expect(second.subject).toBe('Please confirm your subscription');
    expect(await queuedConfirmations((await subscriber('late@example.com')).id)).toBe(2);
  });

  it('a confirmed subscriber on a double opt-in form gets no confirmation email: the form applies at once', async () => {
    const known = await api.fixtures.aSubscriber(channelId, 'sure@example.com');
    await db()('subscribers').where({ id: known.id }).update({ confirmed_at: new Date() });
    const form = await aForm({ doubleOptIn: true, tagList: ['vip'] });
    expect((await submit.execute(submission(form, 'sure@example.com'))).status).toBe('subscribed');
    expect((await subscriber('sure@example.com')).tags).toEqual(['vip']);
    expect(await queuedConfirmations(known.id)).toBe(0);
  });

  it('resubscribes an unsubscribed address: at once without double opt-in, after confirming with it', async () => {
    const gone = await api.fixtures.aSubscriber(channelId, 'gone@example.com');
    await db()('subscribers').where({ id: gone.id }).update({ is_active: false, unsubscribed_at: new Date(), confirmed_at: new Date() });
    const plain = await aForm({ tagList: ['back'] });
    expect((await submit.execute(submission(plain, 'gone@example.com'))).status).toBe('subscribed');
    expect(await subscriber('gone@example.com')).toMatchObject({ is_active: true, unsubscribed_at: null, tags: ['back'] });
    expect(await eventTypes(gone.id)).toEqual(['subscriber.updated', 'subscriber.subscribed']);

    const left = await api.fixtures.aSubscriber(channelId, 'left@example.com');
    await db()('subscribers').where({ id: left.id }).update({ is_active: false, unsubscribed_at: new Date(), confirmed_at: new Date() });
    const doi = await aForm({ doubleOptIn: true, tagList: ['returned'] });
    expect((await submit.execute(submission(doi, 'left@example.com'))).status).toBe('confirmation_required');
    // Still unsubscribed until the mailbox confirms; its earlier confirmation no longer counts.
    expect(await subscriber('left@example.com')).toMatchObject({ is_active: false, unsubscribed_at: expect.any(Date), confirmed_at: null, tags: [] });
    const mail = await mailTo('left@example.com');
    expect((await fetch(confirmLink(mail), { headers: PERSON })).status).toBe(200);
    expect(await subscriber('left@example.com')).toMatchObject({ is_active: true, unsubscribed_at: null, confirmed_at: expect.any(Date), tags: ['returned'] });
  });

  it('"I did not sign up" in the confirmation email drops what the form held', async () => {
    const form = await aForm({ doubleOptIn: true, tagList: ['never'] });
    await submit.execute(submission(form, 'notme@example.com'));
    const mail = await mailTo('notme@example.com');
    const link = `${confirmLink(mail)}/unsubscribe`;
    expect((await fetch(link, { method: 'POST', headers: PERSON })).status).toBe(200);
    expect(await db()('opt_in_form_pending_actions').where({ subscriber_id: (await subscriber('notme@example.com')).id })).toEqual([]);
  });

  it('sends the welcome once per subscriber and form; another form welcomes again', async () => {
    const one = await aForm({ sendWelcomeEmail: true });
    const two = await aForm({ sendWelcomeEmail: true });
    await submit.execute(submission(one, 'wendy@example.com', { firstName: 'Wendy' }));
    await submit.execute(submission(one, 'wendy@example.com'));
    await submit.execute(submission(two, 'wendy@example.com'));
    await sendingDone();
    const s = await subscriber('wendy@example.com');
    expect(await welcomes(s.id)).toHaveLength(2);
    const first = await mailTo('wendy@example.com');
    // No template on the form: the built-in welcome, with the channel's name.
    expect(first.subject).toBe('Welcome to Test channel');
    expect(first.text).toContain('Hello Wendy,');
    expect(mailsTo('wendy@example.com')).toHaveLength(2);
    const rows = (await db()('opt_in_form_welcomes').where({ subscriber_id: s.id }).orderBy('form_id')) as Array<{ form_id: string; transactional_id: string }>;
    expect(rows.map((r) => Number(r.form_id))).toEqual([one.id, two.id]);
    expect(rows.every((r) => r.transactional_id !== null)).toBe(true);
  });

  it('a suppressed address gets no email: neither a confirmation nor a welcome', async () => {
    for (const email of ['blocked@example.com', 'blocked-doi@example.com']) {
      await db()('suppressions').insert({ channel_id: channelId, email, reason: 'manual', created_at: new Date() });
    }
    const welcomeForm = await aForm({ sendWelcomeEmail: true, tagList: ['t'] });
    const doiForm = await aForm({ doubleOptIn: true, sendWelcomeEmail: true });
    expect((await submit.execute(submission(welcomeForm, 'blocked@example.com'))).status).toBe('subscribed');
    expect((await submit.execute(submission(doiForm, 'blocked-doi@example.com'))).status).toBe('confirmation_required');
    const blocked = await subscriber('blocked@example.com');
    expect(blocked.tags).toEqual(['t']);
    expect(await welcomes(blocked.id)).toEqual([]);
    expect(await db()('opt_in_form_welcomes').where({ subscriber_id: blocked.id })).toEqual([]);
    expect(await queuedConfirmations((await subscriber('blocked-doi@example.com')).id)).toBe(0);
    await sendingDone();
    expect(mailsTo('blocked@example.com')).toEqual([]);
    expect(mailsTo('blocked-doi@example.com')).toEqual([]);
  });

  it('concurrent duplicate submissions make one subscriber, one confirmation email, one welcome', async () => {
    const doi = await aForm({ doubleOptIn: true, sendWelcomeEmail: true });
    const plain = await aForm({ sendWelcomeEmail: true, tagList: ['twice'] });
    const [a, b] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => submit.execute(submission(doi, 'race-doi@example.com')))),
      Promise.all(Array.from({ length: 6 }, () => submit.execute(submission(plain, 'race@example.com')))),
    ]);
    expect(new Set(a.map((x) => x.status))).toEqual(new Set(['confirmation_required']));
    expect(new Set(b.map((x) => x.status))).toEqual(new Set(['subscribed']));
    const raceDoi = await subscriber('race-doi@example.com');
    const race = await subscriber('race@example.com');
    expect(await queuedConfirmations(raceDoi.id)).toBe(1);
    expect(await welcomes(race.id)).toHaveLength(1);
    expect(await eventTypes(race.id)).toEqual(['subscriber.created']);
    expect(await submissionsCounted(doi.id)).toBe(6);
    expect(await submissionsCounted(plain.id)).toBe(6);
    await sendingDone();
    expect(mailsTo('race-doi@example.com')).toHaveLength(1);
    expect(mailsTo('race@example.com')).toHaveLength(1);
  });

  it('refuses an invalid address with the 422 application error, writing nothing', async () => {
    const form = await aForm();
    const refused = await submit.execute(submission(form, 'not-an-address')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).fields).toEqual({ email: ['is invalid'] });
    expect(await submissionsCounted(form.id)).toBe(0);
  });
});

import { hashConfirmationToken } from '@mailcast/domain';
import type { EmailServer, Mailer, MailOutcome, OutgoingEmail, PublicLinks, TemplatePart, TemplateScope, Templates } from '../ports';
import { CountingRandom, FakeJobs, FakeTransactor, FixedClock, engineOver, fakeRepositories } from '../test-support/fakes';
import { ConfirmSubscription } from './confirm-subscription';
import { CreateSubscriber } from './create-subscriber';
import { CONFIRMATION_EMAIL_RETRY_DELAYS_MS, renderConfirmationEmail, SendConfirmationEmail } from './send-confirmation-email';

class FakeMailer implements Mailer {
  readonly sent: OutgoingEmail[] = [];
  constructor(public outcome: MailOutcome = { kind: 'accepted', response: '250 ok' }) {}
  async send(_server: EmailServer, email: OutgoingEmail): Promise<MailOutcome> {
    this.sent.push(email);
    return this.outcome;
  }
  async close(): Promise<void> {}
}

/**
 * Fills `{{ a.b }}` from the scope and drops `{% %}` tags; a source containing BROKEN fails to
 * render, as invalid Liquid would. Real Liquid is exercised end to end (double-opt-in.int.test).
 */
class FakeTemplates implements Templates {
  check(): string | null {
    return null;
  }
  async render<const Parts extends readonly TemplatePart[]>(_channelId: number, parts: Parts, scope: TemplateScope) {
    const lookup = (path: string) => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], scope);
    return parts.map(({ source }) => {
      if (source.includes('BROKEN')) throw new Error('unexpected tag');
      return source.replace(/\{%[^%]*%\}/g, '').replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_m, path: string) => String(lookup(path) ?? ''));
    }) as { -readonly [K in keyof Parts]: string };
  }
  async close(): Promise<void> {}
}
const templates = new FakeTemplates();

const links: PublicLinks = {
  confirmation: (token) => `https://mail.example.com/confirm/${token}`,
  confirmationUnsubscribe: (token) => `https://mail.example.com/confirm/${token}/unsubscribe`,
  archive: (slug, rest) => `https://mail.example.com/archive/${slug}${rest === undefined ? '' : `/${rest}`}`,
  webView: (token) => `https://mail.example.com/w/${token}`,
};

async function setup() {
  const repositories = fakeRepositories();
  const transactor = new FakeTransactor(repositories);
  const clock = new FixedClock(new Date('2026-03-01T10:00:00Z'));
  const random = new CountingRandom();
  const channel = await repositories.channels.create({ name: 'Letters', fromEmail: 'letters@example.com' });
  await repositories.emailServers.create({
    channelId: channel.id,
    host: 'smtp.example.com',
    port: 587,
    tls: 'none',
    username: null,
    password: null,
    fromEmail: null,
    fromName: null,
  });
  const principal = { tokenId: 1, channelId: channel.id, permissions: [] };
  const create = new CreateSubscriber(transactor, clock, random, links, repositories);
  return { repositories, transactor, clock, random, channel, principal, create };
}

describe('CreateSubscriber', () => {
  it('a double opt-in create stores only the hash of the token it answers with, and queues the email', async () => {
    const { repositories, principal, create } = await setup();
    const result = await create.execute(principal, {
      email: 'A@Example.com',
      fields: {},
      doubleOptIn: { replyTo: null, templateId: null, includeUnsubscribeLink: true },
    });
    expect(result.kind).toBe('pending');
    if (result.kind !== 'pending') return;
    const token = result.confirmationUrl.split('/').pop()!;
    const [row] = repositories.subscriberConfirmations.rows;
    expect(Buffer.from(row!.tokenHash).equals(hashConfirmationToken(token))).toBe(true);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(repositories.jobs.sent).toEqual([{ name: 'subscribers.confirmation', data: { confirmationId: row!.id } }]);
    expect(repositories.outbox.events.map((e) => e.type)).toEqual(['subscriber.created']);
  });

  it('a reissue supersedes the open link; confirming through the stale one is refused', async () => {
    const { repositories, transactor, clock, random, principal, create } = await setup();
    const doi = { replyTo: null, templateId: null, includeUnsubscribeLink: true };
    const first = await create.execute(principal, { email: 'b@example.com', fields: {}, doubleOptIn: doi });
    const second = await create.execute(principal, { email: 'b@example.com', fields: {}, doubleOptIn: doi });
    expect(second.kind).toBe('pending');
    expect(repositories.subscriberConfirmations.rows.map((r) => r.supersededAt)).toEqual([clock.current, null]);
    const confirm = new ConfirmSubscription(transactor, clock, random);
    const token = (r: typeof first) => (r.kind === 'pending' ? r.confirmationUrl.split('/').pop()! : '');
    expect((await confirm.execute({ token: token(first) })).kind).toBe('superseded');
    expect((await confirm.execute({ token: token(second) })).kind).toBe('confirmed');
    expect((await confirm.execute({ token: token(second) })).kind).toBe('already_confirmed');
    expect((await confirm.execute({ token: 'x'.repeat(43) })).kind).toBe('unknown');
  });
});

describe('SendConfirmationEmail', () => {
  async function pending(outcome?: MailOutcome) {
    const s = await setup();
    await s.create.execute(s.principal, {
      email: 'c@example.com',
      fields: { firstName: 'Cy' },
      doubleOptIn: { replyTo: 'reply@example.com', templateId: null, includeUnsubscribeLink: true },
    });
    const mailer = new FakeMailer(outcome);
    const jobs = new FakeJobs();
    const send = new SendConfirmationEmail(s.transactor, engineOver(mailer), jobs, s.clock, s.random, links, templates);
    return { ...s, mailer, jobs, send, confirmationId: s.repositories.subscriberConfirmations.rows[0]!.id };
  }

  it('sends from the channel address with the default template, and marks the request sent', async () => {
    const { send, mailer, confirmationId, repositories } = await pending();
    expect(await send.execute({ confirmationId })).toBe('sent');
    expect(mailer.sent).toHaveLength(1);
    const email = mailer.sent[0]!;
    expect(email).toMatchObject({
      from: { email: 'letters@example.com', name: 'Letters' },
      to: 'c@example.com',
      replyTo: 'reply@example.com',
      subject: 'Please confirm your subscription',
    });
    expect(email.text).toMatch(/Please confirm your subscription to Letters by opening this link:\n\nhttps:\/\/mail\.example\.com\/confirm\/\S{43}\n/);
    expect(email.headers?.['List-Unsubscribe']).toMatch(/^<https:\/\/mail\.example\.com\/confirm\/\S{43}\/unsubscribe>$/);
    expect(repositories.subscriberConfirmations.rows[0]!.emailSentAt).not.toBeNull();
    // A second run of the same job sends nothing.
    expect(await send.execute({ confirmationId })).toBe('stale');
    expect(mailer.sent).toHaveLength(1);
  });

  it('a temporary SMTP failure schedules its own retry, until the schedule runs out', async () => {
    const temporary: MailOutcome = { kind: 'rejected', permanent: false, code: 451, message: 'try later' };
    const { send, jobs, confirmationId, clock } = await pending(temporary);
    expect(await send.execute({ confirmationId })).toBe('retry_scheduled');
    expect(jobs.sent).toEqual([
      {
        name: 'subscribers.confirmation',
        data: { confirmationId, attempt: 2 },
        startAfter: new Date(clock.current.getTime() + CONFIRMATION_EMAIL_RETRY_DELAYS_MS[0]),
      },
    ]);
    const last = CONFIRMATION_EMAIL_RETRY_DELAYS_MS.length + 1;
    expect(await send.execute({ confirmationId, attempt: last })).toBe('gave_up');
    expect(jobs.sent).toHaveLength(1);
  });

  it('a permanent rejection is final', async () => {
    const { send, jobs, confirmationId } = await pending({ kind: 'rejected', permanent: true, code: 550, message: 'no such user' });
    expect(await send.execute({ confirmationId })).toBe('rejected');
    expect(jobs.sent).toEqual([]);
  });
});

describe('renderConfirmationEmail', () => {
  const subscriber = {
    id: 1,
    channelId: 1,
    email: 'd@example.com',
    firstName: 'Di',
    lastName: null,
    ipAddress: null,
    isActive: true,
    source: 'api_subscription',
    subscribedAt: new Date(0),
    unsubscribedAt: null,
    confirmedAt: null,
    requiresConfirmation: true,
    redactedAt: null,
    tags: [],
    customData: {},
    createdAt: new Date(0),
    updatedAt: new Date(0),
  };
  const channel = { id: 1, name: 'Ch', slug: 'ch', fromEmail: null, fromName: null, trackOpens: true, trackClicks: true, createdAt: new Date(0) };
  const scope = (unsubscribeUrl: string | null) => ({ confirmationUrl: 'C', unsubscribeUrl, subscriber, channel });

  it('appends the unsubscribe link only when asked and not already placed; keeps the subject on one line', async () => {
    const template = { subject: 'Hi\r\n{{ subscriber.first_name }}', body: 'Go {{ confirmation_url }}' };
    expect(await renderConfirmationEmail(templates, template, scope(null))).toEqual({ subject: 'Hi Di', text: 'Go C' });
    expect((await renderConfirmationEmail(templates, template, scope('U'))).text).toBe('Go C\n\nDid not sign up? Unsubscribe: U\n');
    const placed = { subject: 's', body: 'Go {{ confirmation_url }} / {{ unsubscribe_url }}' };
    expect((await renderConfirmationEmail(templates, placed, scope('U'))).text).toBe('Go C / U');
  });

  it('falls back to the built-in template when the stored one does not render', async () => {
    const rendered = await renderConfirmationEmail(templates, { subject: 'x', body: 'BROKEN' }, scope(null));
    expect(rendered.subject).toBe('Please confirm your subscription');
    expect(rendered.text).toContain('Please confirm your subscription to Ch by opening this link:\n\nC\n');
  });
});

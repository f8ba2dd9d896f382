import { emailServerFor, formatConfirmationToken, hashConfirmationToken, listUnsubscribeHeaders, senderAddress, subjectLine } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import {
  Clock,
  JobQueue,
  PublicLinks,
  RandomSource,
  SendEngine,
  Templates,
  Transactor,
  type Channel,
  type ConfirmationTemplate,
  type EmailServer,
  type OutgoingEmail,
  type Subscriber,
  type SubscriberConfirmation,
} from '../ports';

/** Used when neither the request nor the channel names a template. */
export const DEFAULT_CONFIRMATION_TEMPLATE = {
  subject: 'Please confirm your subscription',
  body: [
    '{% if subscriber.first_name != blank %}Hello {{ subscriber.first_name }},{% else %}Hello,{% endif %}',
    '',
    'Please confirm your subscription to {{ channel.name }} by opening this link:',
    '',
    '{{ confirmation_url }}',
    '',
    'If you did not ask to subscribe, you can ignore this email.',
  ].join('\n'),
};

/**
 * How long a database statement of this job is tried again through an outage: every statement
 * is safe to repeat (a second link minted for the same request is harmless; marking the email
 * sent is conditional), and a job given up would be lost (pg-boss does not retry it).
 */
const THROUGH_AN_OUTAGE_MS = 60_000;

/** Temporary SMTP failures are retried this many times in all, after these delays. */
export const CONFIRMATION_EMAIL_RETRY_DELAYS_MS = [30_000, 120_000, 600_000, 1_800_000] as const;

export type ConfirmationEmailOutcome = 'sent' | 'stale' | 'suppressed' | 'no_email_server' | 'rejected' | 'retry_scheduled' | 'gave_up';

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');

interface Prepared {
  request: SubscriberConfirmation;
  link: SubscriberConfirmation;
  token: string;
  subscriber: Subscriber;
  channel: Channel;
  server: EmailServer;
  template: Pick<ConfirmationTemplate, 'subject' | 'body'>;
}

const PLACES_UNSUBSCRIBE = /\{\{-?\s*unsubscribe_url\b/;

/**
 * Renders a confirmation template with Liquid (the Templates port, text context). In scope:
 * `confirmation_url`, `unsubscribe_url`, `subscriber` (`email`, `first_name`, `last_name`,
 * `tags`, `custom_data`) and `channel` (`name`). A stored template that does not render (invalid
 * Liquid) gives way to the built-in one: the recipient still gets a working link.
 */
export async function renderConfirmationEmail(
  templates: Templates,
  template: Pick<ConfirmationTemplate, 'subject' | 'body'>,
  scope: { confirmationUrl: string; unsubscribeUrl: string | null; subscriber: Subscriber; channel: Channel },
): Promise<{ subject: string; text: string }> {
  const values = {
    confirmation_url: scope.confirmationUrl,
    unsubscribe_url: scope.unsubscribeUrl ?? '',
    subscriber: {
      email: scope.subscriber.email,
      first_name: scope.subscriber.firstName,
      last_name: scope.subscriber.lastName,
      tags: scope.subscriber.tags,
      custom_data: scope.subscriber.customData,
    },
    channel: { name: scope.channel.name },
  };
  const parts = (t: Pick<ConfirmationTemplate, 'subject' | 'body'>) =>
    [
      { source: t.subject, context: 'text' },
      { source: t.body, context: 'text' },
    ] as const;
  let used = template;
  let subject: string;
  let text: string;
  try {
    [subject, text] = await templates.render(scope.channel.id, parts(used), values);
  } catch {
    // Invalid, or past the render time limit (docs/templates.md "Rendering"): the built-in one.
    used = DEFAULT_CONFIRMATION_TEMPLATE;
    [subject, text] = await templates.render(scope.channel.id, parts(used), values);
  }
  // include_unsubscribe_link: a visible link, unless the template already placed one.
  if (scope.unsubscribeUrl !== null && !PLACES_UNSUBSCRIBE.test(used.body)) {
    text += `\n\nDid not sign up? Unsubscribe: ${scope.unsubscribeUrl}\n`;
  }
  return { subject: subjectLine(subject), text };
}

/**
 * Sends the email of one double opt-in request (dispatcher job). Only a hash of the token the
 * api answered with is stored, so this mints a second link of its own for the email, bound to
 * the same request; both stay valid until a newer request supersedes them.
 */
@injectable()
export class SendConfirmationEmail {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(SendEngine) private readonly engine: SendEngine,
    @inject(JobQueue) private readonly jobs: JobQueue,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(PublicLinks) private readonly links: PublicLinks,
    @inject(Templates) private readonly templates: Templates,
  ) {}

  async execute(input: { confirmationId: number; attempt?: number }): Promise<ConfirmationEmailOutcome> {
    const attempt = input.attempt ?? 1;
    const prepared = await this.persist(() => this.prepare(input.confirmationId));
    if (typeof prepared === 'string') return prepared;

    const email = await this.compose(prepared);
    // The server's sending limits hold for confirmations too; they go ahead of broadcasts.
    const outcome = await this.engine.send([prepared.server], () => email, { priority: true });
    if (outcome.kind === 'deferred') {
      // No slot soon (docs/sending-limits.md): the same attempt, once the server has room.
      const next = { confirmationId: input.confirmationId, attempt };
      await this.persist(() => this.jobs.send('subscribers.confirmation', next, { startAfter: outcome.until }));
      return 'retry_scheduled';
    }
    if (outcome.kind === 'accepted') {
      const now = this.clock.now();
      // The email is out: this must be written (through an outage), or a retry would send it again.
      await this.persist(() =>
        this.transactor.run(async (repositories) => {
          await repositories.subscriberConfirmations.markEmailSent(prepared.request.id, now);
          await repositories.subscriberConfirmations.markEmailSent(prepared.link.id, now);
        }),
      );
      return 'sent';
    }
    if (outcome.permanent) return 'rejected';
    const delay = CONFIRMATION_EMAIL_RETRY_DELAYS_MS[attempt - 1];
    if (delay === undefined) return 'gave_up';
    const startAfter = new Date(this.clock.now().getTime() + delay);
    await this.persist(() => this.jobs.send('subscribers.confirmation', { confirmationId: input.confirmationId, attempt: attempt + 1 }, { startAfter }));
    return 'retry_scheduled';
  }

  private persist<T>(work: () => Promise<T>): Promise<T> {
    return this.engine.persist(work, THROUGH_AN_OUTAGE_MS);
  }

  private prepare(confirmationId: number): Promise<Prepared | 'stale' | 'suppressed' | 'no_email_server'> {
    const now = this.clock.now();
    return this.transactor.run(async (repositories) => {
      const request = await repositories.subscriberConfirmations.findById(confirmationId);
      if (request === null) return 'stale';
      // The subscriber's lock orders this against a newer request superseding this one.
      const subscriber = await repositories.subscribers.findById(request.channelId, request.subscriberId, { forUpdate: true });
      const current = await repositories.subscriberConfirmations.findById(confirmationId);
      if (
        subscriber === null ||
        current === null ||
        subscriber.redactedAt !== null ||
        subscriber.confirmedAt !== null ||
        current.supersededAt !== null ||
        current.emailSentAt !== null
      ) {
        return 'stale';
      }
      // A suppressed address gets no email from the channel, a confirmation included.
      if ((await repositories.suppressions.find(request.channelId, subscriber.email)) !== null) return 'suppressed';
      const server = emailServerFor(await repositories.emailServers.listForChannel(request.channelId));
      const channel = await repositories.channels.findById(request.channelId);
      if (server === undefined || channel === null) return 'no_email_server';
      const template =
        (current.templateId !== null ? await repositories.confirmationTemplates.findById(request.channelId, current.templateId) : null) ??
        (await repositories.confirmationTemplates.findDefault(request.channelId)) ??
        DEFAULT_CONFIRMATION_TEMPLATE;
      const token = formatConfirmationToken(this.random.bytes(32));
      const link = await repositories.subscriberConfirmations.create(
        {
          channelId: current.channelId,
          subscriberId: current.subscriberId,
          tokenHash: hashConfirmationToken(token),
          templateId: current.templateId,
          replyTo: current.replyTo,
          includeUnsubscribeLink: current.includeUnsubscribeLink,
        },
        now,
      );
      return { request: current, link, token, subscriber, channel, server, template };
    });
  }

  private async compose(p: Prepared): Promise<OutgoingEmail> {
    const confirmationUrl = this.links.confirmation(p.token);
    const unsubscribeUrl = p.request.includeUnsubscribeLink ? this.links.confirmationUnsubscribe(p.token) : null;
    const { subject, text } = await renderConfirmationEmail(this.templates, p.template, {
      confirmationUrl,
      unsubscribeUrl,
      subscriber: p.subscriber,
      channel: p.channel,
    });
    const host = new URL(confirmationUrl).hostname;
    const headers: Record<string, string> = {};
    if (unsubscribeUrl !== null) {
      // RFC 8058 one-click: a POST to this URL unsubscribes without a page.
      Object.assign(headers, listUnsubscribeHeaders(unsubscribeUrl));
    }
    return {
      messageId: `<confirmation.${p.link.id}.${hex(this.random.bytes(8))}@${host}>`,
      from: senderAddress(p.server, p.channel, host),
      to: p.subscriber.email,
      replyTo: p.request.replyTo,
      subject,
      text,
      headers,
    };
  }
}

import { decideEnrol } from '@mailcast/domain';
import type { RandomSource, Repositories, Subscriber } from '../ports';
import { enrolmentEvent } from '../sequences/sequence-rules';

/** What a form does for a subscriber once they are subscribed (at once, or on confirmation). */
export interface FormActions {
  formId: number;
  sequenceIds: readonly number[];
  sendWelcomeEmail: boolean;
  welcomeEmailTemplateId: number | null;
}

/** Used when the form names no welcome template, or the one it names is gone or empty. */
export const DEFAULT_WELCOME_TEMPLATE = {
  subject: 'Welcome to {{ data.channel.name }}',
  body: [
    '{% if subscriber.first_name != blank %}Hello {{ subscriber.first_name }},{% else %}Hello,{% endif %}',
    '',
    'Thank you for subscribing to {{ data.channel.name }}.',
  ].join('\n'),
};

/**
 * Enrols the subscriber in the form's sequences and sends its welcome email, in the caller's
 * transaction, which holds the subscriber's row (docs/opt-in-forms.md, "Submission processing").
 * Only the channel's active sequences enrol; an enrolment under way is left alone and an ended
 * one is not restarted (as add_subscriber without `restart`), each new one with its
 * `sequence.subscriber_added` event. The welcome goes once per form and subscriber, never to a
 * suppressed address, as a transactional (docs/transactionals.md) with an unsubscribe link.
 */
export async function performFormActions(
  r: Repositories,
  random: RandomSource,
  subscriber: Subscriber,
  actions: FormActions,
  now: Date,
  suppressed?: boolean,
): Promise<void> {
  for (const sequenceId of new Set(actions.sequenceIds)) {
    const sequence = await r.sequences.findById(subscriber.channelId, sequenceId);
    if (sequence === null || !sequence.active) continue;
    const existing = await r.sequences.findEnrolment(sequence.id, subscriber.id, { forUpdate: true });
    if (decideEnrol(existing?.status ?? null, false) !== 'create') continue;
    const enrolment = await r.sequences.enrol(sequence, subscriber.id, 'active', now);
    await r.outbox.record(enrolmentEvent('sequence.subscriber_added', enrolment, now));
  }
  if (!actions.sendWelcomeEmail) return;
  const blocked = suppressed ?? (await r.suppressions.find(subscriber.channelId, subscriber.email)) !== null;
  if (blocked) return;
  if (!(await r.formSubmissions.claimWelcome(actions.formId, subscriber.id, now))) return;

  const stored = actions.welcomeEmailTemplateId === null ? null : await r.templates.findById(subscriber.channelId, actions.welcomeEmailTemplateId);
  const usable = stored !== null && stored.subject?.trim() && (stored.body?.trim() || stored.htmlBody?.trim());
  const channel = await r.channels.findById(subscriber.channelId);
  const transactional = await r.transactionals.create(
    {
      channelId: subscriber.channelId,
      subscriberId: subscriber.id,
      to: subscriber.email,
      subject: usable ? stored.subject! : DEFAULT_WELCOME_TEMPLATE.subject,
      preheader: usable ? stored.preheader : null,
      body: usable ? (stored.body ?? '') : DEFAULT_WELCOME_TEMPLATE.body,
      htmlBody: usable ? stored.htmlBody : null,
      replyTo: null,
      data: { form_id: actions.formId, channel: { name: channel?.name ?? '' } },
      // A welcome starts a relationship the recipient may end: it always carries the link.
      includeUnsubscribeLink: true,
      unsubscribeSecret: random.bytes(32),
      emailServerId: null,
      templateId: usable ? stored.id : null,
      status: 'queued',
    },
    now,
  );
  await r.formSubmissions.recordWelcome(actions.formId, subscriber.id, transactional.id);
  await r.jobs.send('transactionals.send', { transactionalId: transactional.id }, { wake: true });
}

import { canonicalEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { ValidationError } from '../errors';
import {
  Clock,
  PublicLinks,
  RandomSource,
  Repositories,
  Transactor,
  type OptInForm,
  type NewSubscriber,
  type OptInFormBlock,
  type Subscriber,
  type TopicStorage,
} from '../ports';
import { INVALID_EMAIL, issueConfirmation } from '../subscribers/create-subscriber';
import { recordSubscriberEvents, subscriberEvents } from '../subscribers/subscriber-events';
import { performFormActions } from './form-actions';

/**
 * The parts of an opt-in form a submission reads: any `OptInForm` is one, so the public route
 * passes the form it loaded.
 */
export type SubmittedForm = Pick<
  OptInForm,
  'id' | 'channelId' | 'automationSettings' | 'confirmationEmailTemplateId' | 'welcomeEmailTemplateId' | 'includeUnsubscribeLinkInConfirmation'
> & { formBlocks: ReadonlyArray<Pick<OptInFormBlock, 'blockType' | 'topicId' | 'customFieldKey'>> };

/** A valid submission, as the public route parsed it (docs/opt-in-forms.md, "Submission processing"). */
export interface OptInSubmission {
  form: SubmittedForm;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  /** The form's custom fields, merged into the subscriber's custom_data (top-level keys). */
  customData: Record<string, unknown>;
  /** The form's topic boxes by topic id: true ticked, false left unticked; a box absent here is not written. */
  topics: Record<string, boolean>;
  ipAddress: string | null;
}

export type OptInSubmissionResult = { status: 'subscribed' | 'confirmation_required'; message: string };

export const SUBSCRIBED_MESSAGE = 'Thank you for subscribing!';
export const CONFIRMATION_REQUIRED_MESSAGE = 'Please check your inbox and click the link to confirm your subscription.';

/** One confirmation email per address in this window, however often the form is sent (docs/opt-in-forms.md, "Submission processing"). */
export const FORM_CONFIRMATION_QUIET_MS = 10 * 60 * 1000;

/** Each submission adds to one of this many counter rows per form and day, summed when read. */
export const SUBMISSION_SHARDS = 8;

const SOURCE = 'opt_in_form';

const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const nonBlank = (value: string | null | undefined) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : null);
const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Processes a visitor's valid submission of an opt-in form (docs/opt-in-forms.md,
 * "Submission processing"), every write in one transaction: the subscriber upserted (source
 * `opt_in_form`), custom fields merged, topic boxes written for a new subscriber only, the
 * form's tags, sequences and welcome email applied at once or, under double opt-in for a new,
 * unconfirmed or unsubscribed address, held until the address is confirmed, and the submission
 * counted. Concurrent submissions of one address take turns on the subscriber's row.
 */
@injectable()
export class SubmitOptInForm {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(PublicLinks) private readonly links: PublicLinks,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  async execute(input: OptInSubmission): Promise<OptInSubmissionResult> {
    const email = canonicalEmail(input.email);
    if (email === null) throw ValidationError.forFields({ email: [INVALID_EMAIL] });
    const { form } = input;
    const automation = form.automationSettings;
    const now = this.clock.now();
    const shard = this.random.bytes(1)[0]! % SUBMISSION_SHARDS;
    const formTags = [...new Set(automation.tagList.map((t) => t.trim()).filter((t) => t !== ''))];
    const chosenTopics = this.chosenTopics(form, input.topics);
    const customData = this.formFields(form, input.customData);

    const doi = automation.doubleOptIn;
    const subscriber = (topicValues: { customData: Record<string, boolean>; tags: string[] }): NewSubscriber => ({
      channelId: form.channelId,
      email,
      requiresConfirmation: doi,
      firstName: nonBlank(input.firstName),
      lastName: nonBlank(input.lastName),
      ipAddress: input.ipAddress,
      source: SOURCE,
      // Under double opt-in the form's tags wait for the confirmation; topic tags are the visitor's own choice.
      tags: [...new Set([...(doi ? [] : formTags), ...topicValues.tags])],
      customData: { ...customData, ...topicValues.customData },
    });
    const created = (row: Subscriber) => subscriberEvents(row, ['subscriber.created'], now);
    const count = { formId: form.id, day: utcDay(now), shard };

    // A new address on a form with nothing to do after the insert: the subscriber, its event and
    // the count in one statement, one round trip (docs/opt-in-forms.md, "Submission processing").
    if (!doi && automation.sequenceIds.length === 0 && !automation.sendWelcomeEmail) {
      const topics = chosenTopics.size === 0 ? [] : await this.repositories.formSubmissions.topics(form.channelId, [...chosenTopics.keys()]);
      const inserted = await this.repositories.formSubmissions.insertSubscriberCounted(subscriber(valuesOf(topics, chosenTopics)), now, created, count);
      if (inserted !== null) return { status: 'subscribed', message: SUBSCRIBED_MESSAGE };
    }

    const status = await this.transactor.run(async (r) => {
      const topics = chosenTopics.size === 0 ? [] : await r.formSubmissions.topics(form.channelId, [...chosenTopics.keys()]);
      const inserted = await r.subscribers.insertIfAbsentWithEvents(subscriber(valuesOf(topics, chosenTopics)), now, created);
      const result =
        inserted !== null ? await this.afterCreate(r, form, inserted, formTags, now) : await this.existing(r, { ...input, customData }, email, formTags, now);
      await r.formSubmissions.countSubmission(count.formId, count.day, count.shard);
      return result;
    });
    return { status, message: status === 'subscribed' ? SUBSCRIBED_MESSAGE : CONFIRMATION_REQUIRED_MESSAGE };
  }

  /** The form's topic blocks the visitor answered, by topic id. */
  private chosenTopics(form: SubmittedForm, answers: Record<string, boolean>): Map<number, boolean> {
    const chosen = new Map<number, boolean>();
    for (const block of form.formBlocks) {
      if (block.blockType !== 'topic' || block.topicId === null) continue;
      const answer = answers[String(block.topicId)];
      if (typeof answer === 'boolean') chosen.set(block.topicId, answer);
    }
    return chosen;
  }

  /**
   * Only the keys the form asks for: a visitor posting other `custom_data` keys (a topic's key, a
   * plan, a flag) must not write them onto a subscriber whose address they know.
   */
  private formFields(form: SubmittedForm, answers: Record<string, unknown>): Record<string, unknown> {
    const fields: Record<string, unknown> = {};
    for (const block of form.formBlocks) {
      const key = block.customFieldKey;
      if (key !== null && Object.hasOwn(answers, key)) fields[key] = answers[key];
    }
    return fields;
  }

  /** A new subscriber: written with the form's tags unless double opt-in holds them. */
  private async afterCreate(r: Repositories, form: SubmittedForm, subscriber: Subscriber, formTags: string[], now: Date) {
    if (form.automationSettings.doubleOptIn) return this.holdForConfirmation(r, form, subscriber, formTags, now);
    await performFormActions(r, this.random, subscriber, actionsOf(form), now);
    return 'subscribed' as const;
  }

  /** An address already in the channel, locked for the rest of the transaction. */
  private async existing(r: Repositories, input: OptInSubmission, email: string, formTags: string[], now: Date) {
    const { form } = input;
    const found = await r.subscribers.findByEmail(form.channelId, email, { forUpdate: true });
    // The insert conflicted on a committed row, and subscribers are never deleted.
    if (found === null) throw new Error(`subscriber ${email} conflicted but was not found`);
    // A redacted subscriber's placeholder cannot sign up again (docs/subscribers.md).
    if (found.redactedAt !== null) throw ValidationError.forFields({ email: [INVALID_EMAIL] });

    // Topic boxes are not written for a known address: a form must not overwrite the choices
    // they made (perhaps on the preference page) with whatever a visitor ticked.
    const next: Subscriber = {
      ...found,
      firstName: nonBlank(input.firstName) ?? found.firstName,
      lastName: nonBlank(input.lastName) ?? found.lastName,
      ipAddress: found.ipAddress ?? input.ipAddress,
      customData: { ...found.customData, ...input.customData },
    };
    const inactive = !found.isActive;
    if (form.automationSettings.doubleOptIn && (found.confirmedAt === null || inactive)) {
      // An unsubscribed address comes back only through its mailbox: its old confirmation no
      // longer vouches for this request, so it must confirm again.
      if (inactive) next.confirmedAt = null;
      const saved = await this.saveIfChanged(r, found, next, ['subscriber.updated'], now);
      return this.holdForConfirmation(r, form, saved, formTags, now);
    }
    if (inactive) Object.assign(next, { isActive: true, unsubscribedAt: null });
    next.tags = [...new Set([...found.tags, ...formTags])];
    const saved = await this.saveIfChanged(r, found, next, inactive ? ['subscriber.updated', 'subscriber.subscribed'] : ['subscriber.updated'], now);
    await performFormActions(r, this.random, saved, actionsOf(form), now);
    return 'subscribed' as const;
  }

  private async saveIfChanged(
    r: Repositories,
    before: Subscriber,
    next: Subscriber,
    events: ReadonlyArray<'subscriber.updated' | 'subscriber.subscribed'>,
    now: Date,
  ): Promise<Subscriber> {
    const changed =
      before.firstName !== next.firstName ||
      before.lastName !== next.lastName ||
      before.ipAddress !== next.ipAddress ||
      before.isActive !== next.isActive ||
      before.confirmedAt !== next.confirmedAt ||
      !sameJson(before.tags, next.tags) ||
      !sameJson(before.customData, next.customData);
    if (!changed) return before;
    const saved = await r.subscribers.save(next, now);
    await recordSubscriberEvents(r, saved, events, now);
    return saved;
  }

  /**
   * Double opt-in: the form's tags, sequences and welcome wait in a pending row for the
   * confirmation (ConfirmSubscription applies them), and one confirmation email goes out unless
   * one was queued for the address in the last ten minutes or the address is suppressed.
   */
  private async holdForConfirmation(r: Repositories, form: SubmittedForm, subscriber: Subscriber, formTags: string[], now: Date) {
    const automation = form.automationSettings;
    await r.formSubmissions.holdPending(
      {
        formId: form.id,
        subscriberId: subscriber.id,
        tags: formTags,
        sequenceIds: [...new Set(automation.sequenceIds)],
        sendWelcomeEmail: automation.sendWelcomeEmail,
        welcomeEmailTemplateId: form.welcomeEmailTemplateId,
      },
      now,
    );
    const recent = await r.subscriberConfirmations.countQueuedSince(subscriber.id, new Date(now.getTime() - FORM_CONFIRMATION_QUIET_MS));
    if (recent > 0) return 'confirmation_required' as const;
    if ((await r.suppressions.find(subscriber.channelId, subscriber.email)) !== null) return 'confirmation_required' as const;
    await issueConfirmation(
      r,
      { random: this.random, links: this.links },
      subscriber,
      { replyTo: null, templateId: form.confirmationEmailTemplateId, includeUnsubscribeLink: form.includeUnsubscribeLinkInConfirmation },
      now,
    );
    return 'confirmation_required' as const;
  }
}

function actionsOf(form: SubmittedForm) {
  return {
    formId: form.id,
    sequenceIds: form.automationSettings.sequenceIds,
    sendWelcomeEmail: form.automationSettings.sendWelcomeEmail,
    welcomeEmailTemplateId: form.welcomeEmailTemplateId,
  };
}

/**
 * The stored values of the answered topic boxes (docs/topics.md): a custom_data topic's key set
 * true or false, a tag topic's tag added when ticked (untagged is unset: "no" has no tag).
 */
function valuesOf(topics: readonly TopicStorage[], chosen: ReadonlyMap<number, boolean>): { customData: Record<string, boolean>; tags: string[] } {
  const customData: Record<string, boolean> = {};
  const tags: string[] = [];
  for (const topic of topics) {
    const value = chosen.get(topic.id);
    if (value === undefined) continue;
    if (topic.storage === 'custom_data' && topic.customDataKey !== null) customData[topic.customDataKey] = value;
    else if (topic.storage === 'tag' && topic.tagName !== null && value) tags.push(topic.tagName);
  }
  return { customData, tags };
}

import type { OutboxEvent } from './entities/events';
import type { NewSubscriber, Subscriber } from './entities/subscriber';
/** What a form promised to do once a double opt-in subscriber confirms (docs/opt-in-forms.md, "Submission processing"). */
export interface PendingFormActions {
  formId: number;
  subscriberId: number;
  tags: string[];
  sequenceIds: number[];
  sendWelcomeEmail: boolean;
  welcomeEmailTemplateId: number | null;
}

/** Held actions as a confirmation takes them, with where their form sends the person next. */
export interface TakenFormActions extends PendingFormActions {
  /** The form's `confirmation_redirect_url` as it is now (docs/opt-in-forms.md, "After confirming"). */
  confirmationRedirectUrl: string | null;
}

/** How a topic's value is stored (docs/topics.md). */
export interface TopicStorage {
  id: number;
  storage: 'custom_data' | 'tag';
  customDataKey: string | null;
  tagName: string | null;
}

/**
 * The rows a form submission writes besides the subscriber: actions held for confirmation, the
 * once-per-form welcome, the daily counters. Reached through a unit of work, so they commit with
 * the subscriber's change.
 */
export interface FormSubmissionRepository {
  /** Upsert on (form, subscriber): a later submission of the same form replaces what it held. */
  holdPending(actions: PendingFormActions, now: Date): Promise<void>;
  /** Deletes and answers the subscriber's held actions, oldest first, with their forms' redirect URLs. */
  takePending(subscriberId: number): Promise<TakenFormActions[]>;
  /** Forgets the subscriber's held actions (they said they did not sign up). */
  dropPending(subscriberId: number): Promise<void>;
  /**
   * Claims the form's welcome email for the subscriber: true the first time only (one insert on
   * the primary key, so concurrent claims cannot both win).
   */
  claimWelcome(formId: number, subscriberId: number, now: Date): Promise<boolean>;
  /** Remembers which transactional carried the welcome. */
  recordWelcome(formId: number, subscriberId: number, transactionalId: number): Promise<void>;
  /** Adds one submission to the form's counter row for (day, shard); `day` is a UTC date, YYYY-MM-DD. */
  countSubmission(formId: number, day: string, shard: number): Promise<void>;
  /**
   * A new subscriber, its events and the submission's count (as countSubmission) in one
   * statement, committed on its own: one round trip for the commonest sign-up. Null, and
   * nothing written, when the address is in the channel already.
   */
  insertSubscriberCounted(
    subscriber: NewSubscriber,
    now: Date,
    events: (row: Subscriber) => OutboxEvent[],
    count: { formId: number; day: string; shard: number },
  ): Promise<Subscriber | null>;
  /** Those of `ids` that are topics of the channel, with their storage. */
  topics(channelId: number, ids: readonly number[]): Promise<TopicStorage[]>;
}

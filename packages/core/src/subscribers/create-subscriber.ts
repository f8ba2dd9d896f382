import { canonicalEmail, decideCreate, emailServerFor, formatConfirmationToken, hashConfirmationToken } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, PublicLinks, RandomSource, Repositories, Transactor, type NewSubscriber, type Subscriber } from '../ports';
import { recordSubscriberEvents, subscriberEvents } from './subscriber-events';

/** The fields a create or an update may set; absent means "leave as it is". */
export interface SubscriberFields {
  firstName?: string | null;
  lastName?: string | null;
  ipAddress?: string | null;
  source?: string;
  subscribedAt?: Date;
  tags?: string[];
  customData?: Record<string, unknown>;
  /**
   * docs/subscribers.md, "custom_data_mode": `replace` (the default) stores `customData` as sent;
   * `merge` sets the sent top-level keys, deletes those sent as null and keeps the others.
   */
  customDataMode?: 'replace' | 'merge';
}

export interface DoubleOptInOptions {
  replyTo: string | null;
  templateId: number | null;
  includeUnsubscribeLink: boolean;
}

export interface CreateSubscriberInput {
  email: string;
  fields: SubscriberFields;
  /** Null: a plain create. */
  doubleOptIn: DoubleOptInOptions | null;
  /** `false` creates (or keeps) the subscriber inactive, as an import of inactive ones needs. */
  isActive?: boolean;
  /** docs/subscribers.md, "Create with history": stored unsubscribed and suppressed; never in the future. */
  unsubscribedAt?: Date;
  /** Honoured for admin tokens only (the route drops it, with a warning, for channel tokens). */
  confirmedAt?: Date;
}

export const UNSUBSCRIBED_AT_FUTURE = 'unsubscribed_at must not be in the future';
export const UNSUBSCRIBED_AT_ACTIVE = 'unsubscribed_at cannot be combined with is_active: true';
export const UNSUBSCRIBED_AT_DOI = 'unsubscribed_at cannot be combined with double_opt_in';

/**
 * `created`: a new subscriber (201). `updated`: an existing one updated and reactivated (200).
 * `pending`: a double opt-in request was issued, for a new subscriber or an unconfirmed one
 * (201, the spec's double opt-in shape). `unchanged`: already confirmed, returned as is (200).
 */
export type CreateSubscriberResult =
  { kind: 'created' | 'updated' | 'unchanged'; subscriber: Subscriber } | { kind: 'pending'; subscriber: Subscriber; confirmationUrl: string };

export const INVALID_EMAIL = 'is invalid';
export const SMTP_NOT_CONFIGURED = 'SMTP settings are not configured, please check your settings';

/** Applies the given fields onto a subscriber, leaving absent ones alone. */
export function applyFields(subscriber: Subscriber, fields: SubscriberFields): Subscriber {
  const next = { ...subscriber };
  if (fields.firstName !== undefined) next.firstName = fields.firstName;
  if (fields.lastName !== undefined) next.lastName = fields.lastName;
  if (fields.ipAddress !== undefined) next.ipAddress = fields.ipAddress;
  if (fields.source !== undefined) next.source = fields.source;
  if (fields.subscribedAt !== undefined) next.subscribedAt = fields.subscribedAt;
  if (fields.tags !== undefined) next.tags = [...new Set(fields.tags)];
  if (fields.customData !== undefined)
    next.customData = fields.customDataMode === 'merge' ? mergeCustomData(next.customData, fields.customData) : fields.customData;
  return next;
}

/** `merge` mode: sent top-level keys replace (nested values whole), null deletes, the rest stay. */
export function mergeCustomData(current: Record<string, unknown>, sent: Record<string, unknown>): Record<string, unknown> {
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(sent)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** The history a create may carry (unsubscribed_at, an admin's confirmed_at) applied to the row. */
function applyHistory(subscriber: Subscriber, input: CreateSubscriberInput): Subscriber {
  let next = subscriber;
  if (input.unsubscribedAt !== undefined) next = { ...next, isActive: false, unsubscribedAt: input.unsubscribedAt };
  if (input.confirmedAt !== undefined) next = { ...next, confirmedAt: input.confirmedAt };
  return next;
}

/** At most this many confirmation emails per address per channel in any hour (docs/security.md). */
export const CONFIRMATION_EMAILS_PER_HOUR = 3;
const HOUR_MS = 60 * 60 * 1000;

/**
 * Creates a double opt-in request: a new token is minted (only its hash is kept) and the email is
 * queued, all in the caller's transaction, which holds the subscriber's row (new or locked), so
 * concurrent requests for one address, from any api process, count one after the other. Under
 * the hourly cap older open links go stale; over it nothing is queued and older links stay open,
 * so the last email's link still works, while the caller answers exactly as before.
 */
export async function issueConfirmation(
  repositories: Repositories,
  deps: { random: RandomSource; links: PublicLinks },
  subscriber: Subscriber,
  options: DoubleOptInOptions,
  now: Date,
): Promise<string> {
  const since = new Date(now.getTime() - HOUR_MS);
  const emailQueued = (await repositories.subscriberConfirmations.countQueuedSince(subscriber.id, since)) < CONFIRMATION_EMAILS_PER_HOUR;
  if (emailQueued) await repositories.subscriberConfirmations.supersedeOpen(subscriber.id, now);
  const token = formatConfirmationToken(deps.random.bytes(32));
  const confirmation = await repositories.subscriberConfirmations.create(
    {
      channelId: subscriber.channelId,
      subscriberId: subscriber.id,
      tokenHash: hashConfirmationToken(token),
      templateId: options.templateId,
      replyTo: options.replyTo,
      includeUnsubscribeLink: options.includeUnsubscribeLink,
      emailQueued,
    },
    now,
  );
  if (emailQueued) await repositories.jobs.send('subscribers.confirmation', { confirmationId: confirmation.id });
  return deps.links.confirmation(token);
}

@injectable()
export class CreateSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(PublicLinks) private readonly links: PublicLinks,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  async execute(principal: Principal, input: CreateSubscriberInput): Promise<CreateSubscriberResult> {
    const email = canonicalEmail(input.email);
    if (email === null) throw ValidationError.forFields({ email: [INVALID_EMAIL] });
    const doi = input.doubleOptIn;
    const now = this.clock.now();
    const withHistory = input.unsubscribedAt !== undefined || input.confirmedAt !== undefined;
    if (input.unsubscribedAt !== undefined) {
      if (input.unsubscribedAt.getTime() > now.getTime()) throw new ValidationError(UNSUBSCRIBED_AT_FUTURE);
      if (input.isActive === true) throw new ValidationError(UNSUBSCRIBED_AT_ACTIVE);
      if (doi !== null) throw new ValidationError(UNSUBSCRIBED_AT_DOI);
    }
    const deps = { random: this.random, links: this.links };
    const f = input.fields;
    const fresh: NewSubscriber = {
      channelId: principal.channelId,
      email,
      requiresConfirmation: doi !== null,
      firstName: f.firstName ?? null,
      lastName: f.lastName ?? null,
      ipAddress: f.ipAddress ?? null,
      source: f.source,
      subscribedAt: f.subscribedAt,
      tags: f.tags === undefined ? undefined : [...new Set(f.tags)],
      customData: f.customData,
      isActive: input.isActive,
    };

    // A plain create of a new address, the common case, is one statement: the row and its
    // event together (docs/write-path.md, "Subscriber create"). An existing address takes the
    // transaction below, whose insert then finds it.
    if (doi === null && !withHistory) {
      const created = await this.repositories.subscribers.insertIfAbsentWithEvents(fresh, now, (row) => subscriberEvents(row, ['subscriber.created'], now));
      if (created !== null) return { kind: 'created', subscriber: created };
    }

    return this.transactor.run(async (repositories) => {
      // Double opt-in without a way to send the email would leave the subscriber pending for
      // ever; the spec's message for a channel without an email server says why.
      if (doi !== null && emailServerFor(await repositories.emailServers.listForChannel(principal.channelId)) === undefined) {
        throw new ValidationError(SMTP_NOT_CONFIGURED);
      }
      if (doi?.templateId != null) {
        const template = await repositories.confirmationTemplates.findById(principal.channelId, doi.templateId);
        if (template === null) throw ValidationError.forFields({ confirmation_template_id: ['does not exist'] });
      }
      // One statement decides between "new" and "exists" under the unique key, so parallel
      // creates of one address make one subscriber; the loser then locks the winner's row.
      let inserted = await repositories.subscribers.insertIfAbsent(fresh, now);
      if (inserted !== null) {
        if (withHistory) inserted = await this.recordHistory(repositories, applyHistory(inserted, input), input, now);
        await recordSubscriberEvents(repositories, inserted, ['subscriber.created'], now);
        if (doi === null) return { kind: 'created', subscriber: inserted };
        const confirmationUrl = await issueConfirmation(repositories, deps, inserted, doi, now);
        return { kind: 'pending', subscriber: inserted, confirmationUrl };
      }

      const existing = await repositories.subscribers.findByEmail(principal.channelId, email, { forUpdate: true });
      // The row that made the insert conflict is committed and cannot be deleted (no route
      // deletes subscribers), so it is there; the guard keeps the types honest.
      if (existing === null) throw new Error(`subscriber ${email} conflicted but was not found`);
      // A placeholder address of a redacted subscriber cannot be subscribed again (irreversible).
      if (existing.redactedAt !== null) throw ValidationError.forFields({ email: [INVALID_EMAIL] });

      const decision = decideCreate(existing, doi !== null);
      switch (decision.kind) {
        case 'return_unchanged':
          return { kind: 'unchanged', subscriber: existing };
        case 'reissue_confirmation': {
          const confirmationUrl = await issueConfirmation(repositories, deps, existing, doi!, now);
          return { kind: 'pending', subscriber: existing, confirmationUrl };
        }
        case 'update_and_reactivate': {
          if (input.unsubscribedAt !== undefined) {
            // An existing subscriber is updated and stored unsubscribed: never reactivated.
            const saved = await this.recordHistory(repositories, applyHistory(applyFields(existing, f), input), input, now);
            const types = existing.unsubscribedAt === null ? (['subscriber.updated', 'subscriber.unsubscribed'] as const) : (['subscriber.updated'] as const);
            await recordSubscriberEvents(repositories, saved, types, now);
            return { kind: 'updated', subscriber: saved };
          }
          // An explicit is_active: false updates the fields without reactivating.
          const reactivate = input.isActive !== false;
          const changed = reactivate ? { ...applyFields(existing, f), isActive: true, unsubscribedAt: null } : { ...applyFields(existing, f), isActive: false };
          const saved = withHistory
            ? await this.recordHistory(repositories, applyHistory(changed, input), input, now)
            : await repositories.subscribers.save(changed, now);
          const types = decision.resubscribed && reactivate ? (['subscriber.updated', 'subscriber.subscribed'] as const) : (['subscriber.updated'] as const);
          await recordSubscriberEvents(repositories, saved, types, now);
          return { kind: 'updated', subscriber: saved };
        }
        default:
          throw new Error(`unexpected create decision ${decision.kind}`);
      }
    });
  }

  /**
   * Saves the row with its history; an unsubscribed one also goes on the channel's suppression
   * list (reason `manual`), in the same transaction, so an imported opt-out can never be sent to.
   */
  private async recordHistory(repositories: Repositories, subscriber: Subscriber, input: CreateSubscriberInput, now: Date): Promise<Subscriber> {
    const saved = await repositories.subscribers.save(subscriber, now);
    if (input.unsubscribedAt !== undefined) await repositories.suppressions.add(saved.channelId, saved.email, 'manual', now);
    return saved;
  }
}

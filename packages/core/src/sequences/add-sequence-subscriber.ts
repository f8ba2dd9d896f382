import { canonicalEmail, decideEnrol, SEQUENCE_ALREADY_COMPLETED } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, Transactor, type Enrolment, type Repositories, type Subscriber } from '../ports';
import { recordSubscriberEvents } from '../subscribers/subscriber-events';
import { enrolmentEvent, sequenceOrNotFound } from './sequence-rules';

export const SUBSCRIBER_NOT_ACTIVE = 'Subscriber is not active';

export interface AddSequenceSubscriberInput {
  sequenceId: number;
  email: string;
  firstName?: string | null;
  lastName?: string | null;
  tags?: string[];
  customData?: Record<string, unknown>;
  /** Start an ended enrolment again instead of refusing it (docs/sequences.md). */
  restart?: boolean;
}

/** `created` (201): a new enrolment or a restarted one; `already_enrolled` (200): under way already. */
export type AddSequenceSubscriberResult = { kind: 'created' | 'already_enrolled'; enrolment: Enrolment };

/**
 * Enrols one subscriber, creating an unknown address (source `api_subscription`). The enrolment
 * starts at the entry point and falls due now, so the runtime picks it up at once; into a
 * sequence that is switched off it starts paused. Each enrolment emits sequence.subscriber_added.
 */
@injectable()
export class AddSequenceSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: AddSequenceSubscriberInput): Promise<AddSequenceSubscriberResult> {
    const now = this.clock.now();
    return this.transactor.run(async (r) => {
      const sequence = await sequenceOrNotFound(r, principal.channelId, input.sequenceId);
      const email = canonicalEmail(input.email);
      if (email === null) throw ValidationError.forFields({ email: ['is invalid'] });
      const { subscriber, created } = await subscriberFor(r, principal.channelId, email, input, now);
      if (!subscriber.isActive || subscriber.redactedAt !== null) throw new ValidationError(SUBSCRIBER_NOT_ACTIVE);

      const existing = await r.sequences.findEnrolment(sequence.id, subscriber.id, { forUpdate: true });
      // A new subscriber whose tags start this sequence was enrolled (with its event) by the
      // tag trigger in this transaction: that enrolment is this request's.
      if (created && existing !== null) return { kind: 'created', enrolment: existing };
      const status = sequence.active ? 'active' : 'paused';
      const decision = decideEnrol(existing?.status ?? null, input.restart === true);
      if (decision === 'already_enrolled') return { kind: 'already_enrolled', enrolment: existing! };
      if (decision === 'refuse') throw new ValidationError(SEQUENCE_ALREADY_COMPLETED);
      const enrolment =
        decision === 'restart' ? await r.sequences.restart(existing!.id, status, now) : await r.sequences.enrol(sequence, subscriber.id, status, now);
      await r.outbox.record(enrolmentEvent('sequence.subscriber_added', enrolment, now));
      return { kind: 'created', enrolment };
    });
  }
}

async function subscriberFor(
  r: Repositories,
  channelId: number,
  email: string,
  input: AddSequenceSubscriberInput,
  now: Date,
): Promise<{ subscriber: Subscriber; created: boolean }> {
  const found = await r.subscribers.findByEmail(channelId, email, { forUpdate: true });
  if (found !== null) return { subscriber: found, created: false };
  const inserted = await r.subscribers.insertIfAbsent(
    {
      channelId,
      email,
      requiresConfirmation: false,
      firstName: input.firstName ?? null,
      lastName: input.lastName ?? null,
      tags: input.tags === undefined ? undefined : [...new Set(input.tags)],
      customData: input.customData,
    },
    now,
  );
  if (inserted === null) {
    // Created meanwhile by another request: enrol that one.
    const raced = await r.subscribers.findByEmail(channelId, email, { forUpdate: true });
    return { subscriber: raced!, created: false };
  }
  await recordSubscriberEvents(r, inserted, ['subscriber.created'], now);
  return { subscriber: inserted, created: true };
}

import { deactivate, redactionPatch } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';

export const REDACT_FAILED_ALREADY = 'Failed to redact subscriber: subscriber is already redacted';

/**
 * Spec "Redact": email (to the contract's placeholder), names, IP and custom data go; tags,
 * statistics, recipient history and the record itself stay. The subscriber is also switched off:
 * the placeholder can never receive mail, so sending to it could only bounce.
 */
@injectable()
export class RedactSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  execute(principal: Principal, input: { email: string }): Promise<Subscriber> {
    return changeSubscriberByEmail(
      { transactor: this.transactor, clock: this.clock },
      principal,
      input.email,
      (s, now) => ({ ...deactivate(s), ...redactionPatch(s.id), redactedAt: now }),
      ['subscriber.deleted'],
      REDACT_FAILED_ALREADY,
    );
  }
}

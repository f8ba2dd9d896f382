import { canonicalEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { ValidationError } from '../errors';
import { Clock, Repositories, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';
import { applyFields, INVALID_EMAIL, type SubscriberFields } from './create-subscriber';

export interface UpdateSubscriberInput {
  /** The address that identifies the subscriber (docs/api-decisions.md: top-level email, else subscriber[email]). */
  email: string;
  /** A new address, when the body names the target at the top level and another one inside. */
  newEmail?: string;
  /** Spec: tags and custom_data replace the existing ones when given. */
  fields: SubscriberFields;
}

@injectable()
export class UpdateSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  execute(principal: Principal, input: UpdateSubscriberInput): Promise<Subscriber> {
    const newEmail = input.newEmail === undefined ? undefined : canonicalEmail(input.newEmail);
    if (newEmail === null) throw ValidationError.forFields({ email: [INVALID_EMAIL] });
    return changeSubscriberByEmail(
      { transactor: this.transactor, clock: this.clock, repositories: this.repositories },
      principal,
      input.email,
      (s) => ({ ...applyFields(s, input.fields), email: newEmail ?? s.email }),
      ['subscriber.updated'],
    );
  }
}

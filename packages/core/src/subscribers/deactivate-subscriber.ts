import { deactivate } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';

/** Spec: POST deactivate, is_active false; unsubscribed_at is not changed. */
@injectable()
export class DeactivateSubscriber {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  execute(principal: Principal, input: { email: string }): Promise<Subscriber> {
    return changeSubscriberByEmail(
      { transactor: this.transactor, clock: this.clock, repositories: this.repositories },
      principal,
      input.email,
      (s) => deactivate(s),
      ['subscriber.updated'],
    );
  }
}

import { unsubscribe } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';

/** Spec: POST unsubscribe, an explicit opt-out: is_active false, unsubscribed_at now. */
@injectable()
export class UnsubscribeSubscriber {
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
      (s, now) => unsubscribe(s, now),
      ['subscriber.unsubscribed'],
    );
  }
}

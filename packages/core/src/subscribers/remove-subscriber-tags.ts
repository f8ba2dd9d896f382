import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';

/** Spec: remove tags takes the listed tags away; tags the subscriber lacks are ignored. */
@injectable()
export class RemoveSubscriberTags {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  execute(principal: Principal, input: { email: string; tags: string[] }): Promise<Subscriber> {
    const removed = new Set(input.tags);
    return changeSubscriberByEmail(
      { transactor: this.transactor, clock: this.clock, repositories: this.repositories },
      principal,
      input.email,
      (s) => ({ ...s, tags: s.tags.filter((t) => !removed.has(t)) }),
      ['subscriber.updated'],
    );
  }
}

import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Clock, Repositories, Transactor, type Subscriber } from '../ports';
import { changeSubscriberByEmail } from './change-subscriber';

/** Spec: add tags merges them into the existing ones (each tag once, existing order first). */
@injectable()
export class AddSubscriberTags {
  constructor(
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Clock) private readonly clock: Clock,
    @inject(Repositories) private readonly repositories: Repositories,
  ) {}

  execute(principal: Principal, input: { email: string; tags: string[] }): Promise<Subscriber> {
    return changeSubscriberByEmail(
      { transactor: this.transactor, clock: this.clock, repositories: this.repositories },
      principal,
      input.email,
      (s) => ({ ...s, tags: [...new Set([...s.tags, ...input.tags])] }),
      ['subscriber.updated'],
    );
  }
}

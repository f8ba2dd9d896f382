import { normalizeEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Subscriber } from '../ports';
import { SUBSCRIBER_NOT_FOUND } from './subscriber-events';

/** docs/subscribers.md: exact, case-insensitive address match (addresses are stored normalised). */
@injectable()
export class FindSubscriber {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { email: string }): Promise<Subscriber> {
    const subscriber = await this.repositories.subscribers.findByEmail(principal.channelId, normalizeEmail(input.email));
    if (subscriber === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
    return subscriber;
  }
}

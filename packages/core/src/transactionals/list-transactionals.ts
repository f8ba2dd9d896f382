import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories, type Page, type TransactionalEvent, type TransactionalFilter, type TransactionalSummary } from '../ports';
import { TRANSACTIONAL_NOT_FOUND } from './get-transactional';

/** The caller's channel's transactional log, newest first (docs/transactionals.md, "The log"). */
@injectable()
export class ListTransactionals {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  execute(caller: Principal, input: { filter: TransactionalFilter; page: Page }): Promise<{ items: TransactionalSummary[]; total: number }> {
    return this.repositories.transactionals.list(caller.channelId, input.filter, input.page);
  }
}

/** One transactional's recorded events; another channel's transactional is not found. */
@injectable()
export class ListTransactionalEvents {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(caller: Principal, input: { id: number }): Promise<TransactionalEvent[]> {
    const found = await this.repositories.transactionals.findById(caller.channelId, input.id);
    if (found === null) throw new NotFoundError(TRANSACTIONAL_NOT_FOUND);
    return this.repositories.transactionals.events(caller.channelId, input.id);
  }
}

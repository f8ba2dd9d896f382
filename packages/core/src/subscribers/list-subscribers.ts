import { SUBSCRIBERS_PAGE_SIZE } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { Repositories, type Subscriber, type SubscriberFilter } from '../ports';

export interface ListSubscribersResult {
  items: Subscriber[];
  total: number;
  page: number;
}

/** Spec: List, filtered in the database, in pages of 250 (page numbers from 1). */
@injectable()
export class ListSubscribers {
  constructor(@inject(Repositories) private readonly repositories: Repositories) {}

  async execute(principal: Principal, input: { filter: SubscriberFilter; page: number }): Promise<ListSubscribersResult> {
    const { items, total } = await this.repositories.subscribers.list(principal.channelId, input.filter, {
      limit: SUBSCRIBERS_PAGE_SIZE,
      offset: (input.page - 1) * SUBSCRIBERS_PAGE_SIZE,
    });
    return { items, total, page: input.page };
  }
}

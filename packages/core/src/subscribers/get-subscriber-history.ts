import { normalizeEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import type { Principal } from '../auth/authenticate';
import { NotFoundError } from '../errors';
import { Repositories } from '../ports';
import { SubscriberHistoryReader, type HistoryEntry } from '../ports/subscriber-history';
import { SUBSCRIBER_NOT_FOUND } from './subscriber-events';

/** docs/subscribers.md, "History": 100 emails a page. */
export const HISTORY_PAGE_SIZE = 100;

/**
 * A subscriber's history in the caller's channel: the address is found as find.json finds it
 * (exact, case-insensitive; a redacted subscriber is no longer found), else 404.
 */
@injectable()
export class GetSubscriberHistory {
  constructor(
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(SubscriberHistoryReader) private readonly reader: SubscriberHistoryReader,
  ) {}

  async execute(principal: Principal, input: { email: string; page: number }): Promise<{ email: string; items: HistoryEntry[]; total: number; page: number }> {
    const subscriber = await this.repositories.subscribers.findByEmail(principal.channelId, normalizeEmail(input.email));
    if (subscriber === null) throw new NotFoundError(SUBSCRIBER_NOT_FOUND);
    const { items, total } = await this.reader.page(principal.channelId, subscriber.id, {
      limit: HISTORY_PAGE_SIZE,
      offset: (input.page - 1) * HISTORY_PAGE_SIZE,
    });
    return { email: subscriber.email, items, total, page: input.page };
  }
}

import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, Repositories, Transactor } from '../ports';

/** Deletes a channel's subscribers a bounded batch at a time, each batch its own transaction. */
export interface SubscriberPurger {
  /**
   * Deletes at most `limit` of the channel's subscribers (and, through the foreign keys, what
   * hangs off them) in one statement, committed on return; answers how many went.
   */
  deleteBatch(channelId: number, limit: number): Promise<number>;
}
export const SubscriberPurger = Symbol.for('mailcast.SubscriberPurger');

export const PURGE_BATCH_DEFAULT = 1000;
export const PURGE_BATCH_MAX = 10_000;
/** The error in `subscribers.purge_failed` is cut to this many characters. */
const ERROR_MAX = 500;

/** The purge stopped part-way: `count` subscribers were deleted (and stay deleted) before `cause`. */
export class PurgeFailedError extends Error {
  constructor(
    readonly count: number,
    readonly reason: unknown,
  ) {
    super(`Purge failed after deleting ${count} subscribers: ${messageOf(reason)}`);
    this.name = 'PurgeFailedError';
  }
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, ERROR_MAX);

/**
 * The admin CLI's `subscribers purge` (docs/subscribers.md, "Purge"): every subscriber of one
 * channel goes, in batches so that a million rows neither hold locks for minutes nor sit in
 * memory; one `subscribers.purged` event tells the channel's endpoints, never a
 * `subscriber.deleted` per row, or `subscribers.purge_failed` with what was deleted so far.
 */
@injectable()
export class PurgeSubscribers {
  constructor(
    @inject(SubscriberPurger) private readonly purger: SubscriberPurger,
    @inject(Transactor) private readonly transactor: Transactor,
    @inject(Repositories) private readonly repositories: Repositories,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { channelId: number; batchSize?: number; onProgress?: (deleted: number) => void }): Promise<{ count: number }> {
    const batchSize = input.batchSize ?? PURGE_BATCH_DEFAULT;
    if (!Number.isSafeInteger(batchSize) || batchSize < 1 || batchSize > PURGE_BATCH_MAX) {
      throw new ValidationError(`batch size must be an integer from 1 to ${PURGE_BATCH_MAX}`);
    }
    if ((await this.repositories.channels.findById(input.channelId)) === null) throw new NotFoundError('Channel not found');
    let count = 0;
    try {
      // Until a batch comes back short: a subscriber added meanwhile may go too (the list is being emptied).
      for (;;) {
        const deleted = await this.purger.deleteBatch(input.channelId, batchSize);
        count += deleted;
        input.onProgress?.(count);
        if (deleted < batchSize) break;
      }
    } catch (error) {
      await this.record(input.channelId, 'subscribers.purge_failed', { broadcast_channel_id: input.channelId, count, error: messageOf(error) }).catch(
        () => undefined,
      );
      throw new PurgeFailedError(count, error);
    }
    await this.record(input.channelId, 'subscribers.purged', { broadcast_channel_id: input.channelId, count });
    return { count };
  }

  private record(channelId: number, type: 'subscribers.purged' | 'subscribers.purge_failed', data: Record<string, unknown>): Promise<unknown> {
    return this.transactor.run((r) => r.outbox.record({ channelId, type, data, createdAt: this.clock.now() }));
  }
}

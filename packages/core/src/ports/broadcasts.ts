import type { BroadcastStatus } from '@mailcast/domain';
import type { Broadcast, BroadcastChanges, BroadcastExpectation, NewBroadcast } from './entities/broadcast';
import type { Page } from './entities/page';

export interface BroadcastRepository {
  create(broadcast: NewBroadcast, now: Date): Promise<Broadcast>;
  /** Scoped to the channel: another channel's broadcast is null, as if it did not exist. */
  findById(channelId: number, id: number): Promise<Broadcast | null>;
  /** Most recently created first (spec: List). */
  list(channelId: number, page: Page): Promise<{ items: Broadcast[]; total: number }>;
  /** Like findById, and holds the row until the transaction ends, so checks and write agree. */
  lock(channelId: number, id: number): Promise<Broadcast | null>;
  /** For job handlers, which carry only an id. */
  findByIdInAnyChannel(id: number): Promise<Broadcast | null>;
  /** Writes only if the row matches `expected`; bumps version. Null when it did not match. */
  update(id: number, expected: BroadcastExpectation, changes: BroadcastChanges, now: Date): Promise<Broadcast | null>;
  /** Deletes only in one of `statuses`; false when nothing was deleted. */
  delete(channelId: number, id: number, statuses: readonly BroadcastStatus[]): Promise<boolean>;
  /**
   * Moves up to `limit` future_scheduled broadcasts due by `now` to scheduled (version bumped),
   * skipping rows another transaction holds, so several dispatchers move each one exactly once.
   */
  startDue(now: Date, limit: number): Promise<Broadcast[]>;
  /**
   * future_scheduled broadcasts sent in each subscriber's time zone whose scheduled_send_at is
   * after `now` and by `before`: those whose window may already have begun (docs/broadcasts-and-sending.md).
   */
  timezoneCandidates(now: Date, before: Date, limit: number): Promise<Broadcast[]>;
  /** The ids among `segmentIds` that are not segments of the channel. */
  unknownSegmentIds(channelId: number, segmentIds: readonly number[]): Promise<number[]>;
  /** Whether `topicId` is a topic of the channel (docs/topics.md, Audiences). */
  hasTopic(channelId: number, topicId: number): Promise<boolean>;
  /**
   * Before a failed broadcast is sent again: recipients whose email failed go back to pending
   * (keeping their Message-ID); those sent, bounced or skipped stay as they are, so nobody
   * receives it twice. The processed count is recomputed to match.
   */
  prepareRetry(id: number): Promise<void>;
}

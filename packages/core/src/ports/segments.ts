import type { BroadcastStatus, SegmentDefinition } from '@mailcast/domain';
import type { NewSegment, Segment, SegmentChanges } from './entities/segment';
import type { Page } from './entities/page';
import type { Subscriber } from './entities/subscriber';

/**
 * Segments and their members. Membership is evaluated by the database from the rules (never by
 * loading subscribers into the process); `now` anchors the rules' relative windows.
 */
export interface SegmentRepository {
  create(segment: NewSegment, now: Date): Promise<Segment>;
  /** Scoped to the channel: another channel's segment is null. */
  findById(channelId: number, id: number): Promise<Segment | null>;
  /** Those of `ids` that are segments of the channel. */
  findMany(channelId: number, ids: readonly number[]): Promise<Segment[]>;
  /** Most recently created first. */
  list(channelId: number, page: Page): Promise<{ items: Segment[]; total: number }>;
  update(channelId: number, id: number, changes: SegmentChanges, now: Date): Promise<Segment | null>;
  /** Deletes in one statement unless a broadcast in one of `blockingStatuses` targets it or a sequence triggers on or excludes it. */
  delete(channelId: number, id: number, blockingStatuses: readonly BroadcastStatus[]): Promise<'deleted' | 'not_found' | 'targeted' | 'in_sequence'>;
  /**
   * Evaluations are bounded (docs/segments.md, "Bounds"): a few per channel at a time, each under
   * a statement time-out (a ValidationError past it), and stopped in PostgreSQL when `signal`
   * aborts (the client went away).
   */
  countMembers(channelId: number, definition: SegmentDefinition, now: Date, signal?: AbortSignal): Promise<number>;
  /** Members in subscriber id order. */
  members(channelId: number, definition: SegmentDefinition, now: Date, page: Page, signal?: AbortSignal): Promise<Subscriber[]>;
}
export const SegmentRepository = Symbol.for('mailcast.SegmentRepository');

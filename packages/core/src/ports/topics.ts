import type { Page } from './entities/page';
import type { Topic, TopicChanges, TopicCounts, TopicSettings, TopicUsage } from './entities/topic';

/**
 * Topics, scoped by channel (another channel's topic is null). Duplicate names (case-insensitive),
 * custom_data keys and tags of one channel are ValidationErrors naming the field, from the unique
 * indexes (never check-then-insert).
 */
export interface TopicRepository {
  /** By position, then id. */
  list(channelId: number, page: Page): Promise<{ items: Topic[]; total: number }>;
  /** Every topic of the channel, by position, then id. */
  all(channelId: number): Promise<Topic[]>;
  findById(channelId: number, id: number, options?: { forUpdate?: boolean }): Promise<Topic | null>;
  /** `position` null: after the channel's last topic. */
  create(channelId: number, settings: Omit<TopicSettings, 'position'> & { position: number | null }, now: Date): Promise<Topic>;
  update(channelId: number, id: number, changes: TopicChanges, now: Date): Promise<Topic>;
  /** Computed with the SQL topic_value and receives_topic. */
  counts(topic: Topic): Promise<TopicCounts>;
  usage(channelId: number, id: number): Promise<TopicUsage>;
  /**
   * Removes the topic; broadcasts that will send no more (sent, partial_failure, aborted) forget
   * it. Anything else still naming it (written meanwhile) is a ValidationError.
   */
  delete(channelId: number, id: number): Promise<void>;
}

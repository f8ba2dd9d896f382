import type { EmailEventRecord, OutboxEvent, RecordedEvent } from './entities/events';

/**
 * The transactional outbox. Only reachable through a unit of work, so an event is always
 * written in the transaction of the change that caused it (docs/webhooks.md).
 */
export interface EventOutbox {
  record(event: OutboxEvent): Promise<RecordedEvent>;
}

/**
 * Records recipient email events for the statistics. The recorder also keeps whatever
 * aggregates the statistics read (so they never scan events), in the same transaction.
 */
export interface EmailEvents {
  /** `firstForRecipient`: no earlier event of this kind (and link, for clicks) for the recipient. */
  record(event: EmailEventRecord): Promise<{ id: number; firstForRecipient: boolean }>;
  /**
   * Many events in one statement, for the sending pipeline's group commits. Whatever `record`
   * maintains besides the rows (aggregates), this maintains too.
   */
  recordMany(events: readonly EmailEventRecord[]): Promise<void>;
  /**
   * Flags earlier clicks of the recipient as a scanner's, taking them out of every human
   * figure they were counted in (docs/engagement.md, "Flagged back").
   */
  flagScannerClicks(broadcastId: number, recipientId: number, eventIds: readonly number[]): Promise<void>;
}

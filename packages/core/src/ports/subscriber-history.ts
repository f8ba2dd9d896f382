/** What sent an email of a subscriber's history (docs/subscribers.md, "History"). */
export type HistoryKind = 'broadcast' | 'sequence' | 'transactional';

/** One email's status, the same words for every kind. */
export type HistoryStatus = 'queued' | 'sent' | 'bounced' | 'failed' | 'skipped';

/** One email sent (or queued) to a subscriber. */
export interface HistoryEntry {
  kind: HistoryKind;
  /** The broadcast's id, the sequence step's (null once the step is deleted), or the transactional's. */
  id: number | null;
  /** The sequence of a sequence email; null for the other kinds. */
  sequenceId: number | null;
  subject: string | null;
  status: HistoryStatus;
  sentAt: Date | null;
  openedAt: Date | null;
  clickedAt: Date | null;
  /**
   * Whose the recorded opens and clicks were (docs/subscribers.md, "History"): a person's
   * (`machine` false) or a machine's (`machine` true). Both can be true of one email; opens
   * recorded before classification existed are neither.
   */
  engagedBy: { humanOpened: boolean; machineOpened: boolean; humanClicked: boolean; machineClicked: boolean };
  bounced: boolean;
  bounceReason: string | null;
  messageId: string | null;
}

/** Reads a subscriber's history, newest first. */
export interface SubscriberHistoryReader {
  page(channelId: number, subscriberId: number, page: { limit: number; offset: number }): Promise<{ items: HistoryEntry[]; total: number }>;
}
export const SubscriberHistoryReader = Symbol.for('mailcast.SubscriberHistoryReader');

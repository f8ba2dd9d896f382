import type { TransactionalStatus } from '@mailcast/domain';

export interface Transactional {
  id: number;
  channelId: number;
  subscriberId: number;
  to: string;
  subject: string;
  preheader: string | null;
  body: string;
  htmlBody: string | null;
  replyTo: string | null;
  data: Record<string, unknown>;
  includeUnsubscribeLink: boolean;
  /** With includeUnsubscribeLink: the random secret its unsubscribe token is signed under, else null. */
  unsubscribeSecret: Uint8Array | null;
  emailServerId: number | null;
  templateId: number | null;
  status: TransactionalStatus;
  messageId: string | null;
  error: string | null;
  sentAt: Date | null;
  createdAt: Date;
}

export type NewTransactional = Omit<Transactional, 'id' | 'messageId' | 'error' | 'sentAt' | 'createdAt'>;

/** A line of the log: what the list shows, without the content (bodies may be 500,000 characters). */
export type TransactionalSummary = Pick<Transactional, 'id' | 'to' | 'subject' | 'status' | 'messageId' | 'error' | 'sentAt' | 'createdAt'>;

/** The log's filters: every one optional, all of them together (docs/transactionals.md, "The log"). */
export interface TransactionalFilter {
  status?: TransactionalStatus;
  /** Part of the recipient's address, any case. */
  emailContains?: string;
  createdAfter?: Date;
  createdBefore?: Date;
}

/** One recorded `email.*` event of a transactional, with the data its webhook carries. */
export interface TransactionalEvent {
  id: number;
  type: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

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

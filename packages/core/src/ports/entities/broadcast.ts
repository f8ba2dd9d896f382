import type { BroadcastStatus, PauseReason, SubjectTest } from '@mailcast/domain';

export interface EmailHeader {
  key: string;
  value: string;
}

export interface Broadcast {
  id: number;
  channelId: number;
  name: string | null;
  subject: string;
  preheader: string | null;
  body: string | null;
  htmlBody: string | null;
  includeUnsubscribeLink: boolean;
  replyTo: string | null;
  status: BroadcastStatus;
  trackOpens: boolean;
  trackClicks: boolean;
  useAnyEmailServer: boolean;
  emailHeaders: EmailHeader[];
  tags: string[];
  segmentIds: number[];
  /** Only subscribers who receive this topic of the channel (docs/topics.md, Audiences); null: no topic. */
  topicId: number | null;
  /** Members of these segments are left out, at queueing and again at each hand-off to SMTP. */
  excludedSegmentIds: number[];
  /** The template the broadcast was written from (docs/templates.md); null when none. */
  templateId: number | null;
  emailServerIds: number[];
  totalRecipients: number;
  broadcastRecipientsCount: number;
  scheduledSendAt: Date | null;
  scheduledTimezone: string | null;
  beginSendAt: Date | null;
  sentAt: Date | null;
  /** The stage a paused broadcast was paused in, so resume returns there; null unless paused. */
  pausedFrom: BroadcastStatus | null;
  /** Why the reputation guard paused it (docs/reputation-guard.md); null after a person's pause and after resume. */
  pauseReason?: PauseReason | null;
  /** Published in the channel's public archive once sent (docs/archive.md). */
  archive: boolean;
  /** Each recipient gets scheduled_send_at's wall-clock time in their own zone (docs/broadcasts-and-sending.md). */
  sendInSubscriberTimezone: boolean;
  /** The subject test (docs/subject-tests.md); null: none. */
  abTest?: SubjectTest | null;
  /** The winning subject's index, and when it was decided; null until then. */
  abWinner?: number | null;
  abDecidedAt?: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewBroadcast = Omit<
  Broadcast,
  | 'id'
  | 'status'
  | 'totalRecipients'
  | 'broadcastRecipientsCount'
  | 'beginSendAt'
  | 'sentAt'
  | 'pausedFrom'
  | 'version'
  | 'createdAt'
  | 'updatedAt'
  | 'templateId'
  | 'topicId'
  | 'excludedSegmentIds'
  | 'archive'
  | 'sendInSubscriberTimezone'
  | 'abWinner'
  | 'abDecidedAt'
> & { templateId?: number | null; topicId?: number | null; excludedSegmentIds?: number[]; archive?: boolean; sendInSubscriberTimezone?: boolean };

/** What an edit or a status change may write; every write bumps `version`. */
export type BroadcastChanges = Partial<Omit<NewBroadcast, 'channelId'> & Pick<Broadcast, 'status' | 'pausedFrom' | 'pauseReason' | 'sentAt'>>;

/**
 * The state a conditional write expects. The write happens only if the row still matches, so
 * two concurrent transitions cannot both succeed and a stale job cannot act.
 */
export interface BroadcastExpectation {
  statuses: readonly BroadcastStatus[];
  version: number;
  /** Only when scheduled_send_at is at or before this instant (a due scheduled broadcast). */
  dueBy?: Date;
}

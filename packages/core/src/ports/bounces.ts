import type { BounceKind } from '@mailcast/domain';

/** One asynchronous bounce or complaint as recorded (docs/bounces.md). */
export interface BounceNotification {
  channelId: number;
  recipientId: number;
  email: string;
  kind: BounceKind;
  /** Where it came from: `ses`, `postmark`, `mailgun`, `sendgrid` or `dsn`. */
  source: string;
  reason: string;
  occurredAt: Date;
}

/** Asynchronous bounces and complaints, and the replay guard of the receivers. */
export interface BounceRepository {
  /** The broadcast recipient whose email carried this Message-ID (`<…>`), if any. */
  recipientIdByMessageId(messageId: string): Promise<number | null>;
  /** Records it unless this recipient already has one of this kind: false for a repeat. */
  claim(notification: BounceNotification): Promise<boolean>;
  /** Soft bounces recorded for the address in the channel at or after `since`. */
  softBouncesSince(channelId: number, email: string, since: Date): Promise<number>;
  /** A delivered recipient's email bounced after all: status `bounced`, with the reason. */
  markBounced(recipientId: number, at: Date, reason: string): Promise<void>;
  markComplained(recipientId: number, at: Date): Promise<void>;
  /**
   * Remembers `key` from `source` (a provider's one-time token, a message id): true the first
   * time, false for a replay. Forgets what is older than `forgetBefore`.
   */
  firstSeen(source: string, key: string, at: Date, forgetBefore: Date): Promise<boolean>;
}

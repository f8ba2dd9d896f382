import type { BounceReport } from '@mailcast/core';

/** What a receiver makes of an authentic request: what to record, and the key that makes it single-use. */
export interface VerifiedNotification {
  /** null: the provider signs nothing unique; repeats are absorbed by recording once per recipient. */
  replayKey: string | null;
  reports: BounceReport[];
}

/** What a provider's webhook says about one email, in Mailcast's terms. */
export interface ProviderEvent {
  /** The recipient marked it as spam. */
  complaint: boolean;
  /** Delivery failed (a provider event that is neither is not recorded). */
  bounce: boolean;
  /** The provider calls the failure temporary: a soft bounce rather than a hard one. */
  temporary: boolean;
  messageId: string | null;
  email: string | null;
  reason: string;
}

/** The one report a provider event makes (a complaint, a soft or a hard bounce), or none. */
export function providerReport(source: string, event: ProviderEvent): BounceReport[] {
  const kind = event.complaint ? 'complaint' : event.bounce ? (event.temporary ? 'soft_bounce' : 'hard_bounce') : null;
  if (kind === null) return [];
  return [{ source, kind, messageId: event.messageId, email: event.email, reason: event.reason }];
}

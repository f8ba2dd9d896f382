import { trackingTokenRecipient, verifyTrackingToken } from '@mailcast/domain';
import type { EmailEventKind, EmailEventRecord, Repositories, TrackedRecipient } from '../ports';

/**
 * Repeated opens of one recipient, or clicks of one link, within this window are recorded and
 * emitted once (docs/security.md "Public routes"): a mail client reloading, or someone replaying
 * a pixel URL, writes no rows and posts no webhooks. Unique counts do not change.
 */
export const ENGAGEMENT_WINDOW_MS = 60_000;

/** The recipient a token names, if the token is well-formed and its MAC verifies. */
export async function tracked(r: Repositories, token: string, options?: { forUpdate?: boolean }): Promise<TrackedRecipient | null> {
  const id = trackingTokenRecipient(token);
  if (id === null) return null;
  const t = await r.recipients.findTracked(id, options);
  if (t === null || t.secret === null || !verifyTrackingToken(t.secret, token)) return null;
  return t;
}

/** What an email.* event says about the recipient a token names. */
export function facts(t: TrackedRecipient) {
  return {
    recipientId: t.id,
    broadcastId: t.broadcastId,
    email: t.subscriber.email,
    messageId: t.messageId,
    delivered: t.deliveredAt !== null,
    openedAt: t.openedAt,
    clickedAt: t.clickedAt,
  };
}

/**
 * What the edge tells of a tracking request for its classification (docs/engagement.md): the
 * method, the agent, and the maintained bot list's verdict on it (a library the core does not
 * depend on). Absent, a request is a plain GET without an agent.
 */
export interface TrackingRequest {
  method: string;
  userAgent: string | null;
  isKnownBot: boolean;
}

export const UNDESCRIBED_REQUEST: TrackingRequest = { method: 'GET', userAgent: null, isKnownBot: false };

/** The email event of one tracked recipient: who, in which broadcast, what and when. */
export function recipientEvent(t: TrackedRecipient, kind: EmailEventKind, at: Date): EmailEventRecord {
  return { channelId: t.channelId, broadcastId: t.broadcastId, recipientId: t.id, subscriberId: t.subscriber.id, kind, occurredAt: at };
}

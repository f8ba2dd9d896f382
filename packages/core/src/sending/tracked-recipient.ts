import { trackingTokenRecipient, verifyTrackingToken } from '@mailcast/domain';
import type { EmailEventKind, EmailEventRecord, Repositories, TrackedRecipient } from '../ports';

/** The recipient a token names, if the token is well-formed and its MAC verifies. */
export async function tracked(r: Repositories, token: string): Promise<TrackedRecipient | null> {
  const id = trackingTokenRecipient(token);
  if (id === null) return null;
  const t = await r.recipients.findTracked(id);
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

/** The email event of one tracked recipient: who, in which broadcast, what and when. */
export function recipientEvent(t: TrackedRecipient, kind: EmailEventKind, at: Date): EmailEventRecord {
  return { channelId: t.channelId, broadcastId: t.broadcastId, recipientId: t.id, subscriberId: t.subscriber.id, kind, occurredAt: at };
}

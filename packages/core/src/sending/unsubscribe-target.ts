import { sequenceTokenIds, transactionalTokenId, verifySequenceUnsubscribeToken, verifyTransactionalUnsubscribeToken } from '@mailcast/domain';
import type { Repositories, SubscriberSnapshot, TrackedRecipient } from '../ports';
import { tracked } from './tracked-recipient';

/**
 * Whom an unsubscribe token names: a broadcast recipient's token (`<recipient id>-<MAC>`) or a
 * transactional's (`t<transactional id>-<MAC>`, docs/transactionals.md). Both are verified
 * against their own secret; an unknown, altered or malformed token names no one.
 */
export interface UnsubscribeTarget {
  channelId: number;
  subscriber: SubscriberSnapshot;
  /** The broadcast recipient, for a broadcast's link (its statistics count the unsubscribe). */
  recipient: TrackedRecipient | null;
  /** The sequence email's step, for a sequence email's link (its statistics count the unsubscribe). */
  sequenceStep?: { sequenceId: number; enrolmentId: number; stepId: number };
}

export async function unsubscribeTarget(r: Repositories, token: string): Promise<UnsubscribeTarget | null> {
  const transactionalId = transactionalTokenId(token);
  if (transactionalId !== null) {
    const t = await r.transactionals.findUnsubscribeTarget(transactionalId);
    if (t === null || t.secret === null || !verifyTransactionalUnsubscribeToken(t.secret, token)) return null;
    return { channelId: t.channelId, subscriber: t.subscriber, recipient: null };
  }
  const sequenceIds = sequenceTokenIds(token);
  if (sequenceIds !== null) {
    const t = await r.sequences.findUnsubscribeTarget(sequenceIds.enrolmentId);
    if (t === null || t.secret === null || !verifySequenceUnsubscribeToken(t.secret, token)) return null;
    return { channelId: t.channelId, subscriber: t.subscriber, recipient: null, sequenceStep: { sequenceId: t.sequenceId, ...sequenceIds } };
  }
  const recipient = await tracked(r, token);
  return recipient === null ? null : { channelId: recipient.channelId, subscriber: recipient.subscriber, recipient };
}

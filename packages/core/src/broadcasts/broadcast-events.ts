import { broadcastEventType, percentageComplete, type BroadcastEventData } from '@mailcast/domain';
import type { Broadcast, Repositories } from '../ports';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** The spec's broadcast event data ("Broadcast events"), as the outbox stores it. */
export function broadcastEventData(b: Broadcast): BroadcastEventData {
  return {
    broadcast_id: b.id,
    name: b.name,
    subject: b.subject,
    status: b.status,
    total_recipients: b.totalRecipients,
    broadcast_recipients_count: b.broadcastRecipientsCount,
    percentage_complete: percentageComplete(b.broadcastRecipientsCount, b.totalRecipients),
    sent_at: iso(b.sentAt),
    scheduled_send_at: iso(b.scheduledSendAt),
    created_at: b.createdAt.toISOString(),
    updated_at: b.updatedAt.toISOString(),
    broadcast_channel_id: b.channelId,
    segment_ids: b.segmentIds,
    tags: b.tags,
  };
}

/**
 * Records `broadcast.<status>` for a broadcast that has just changed status (docs/broadcasts-and-sending.md event
 * table), in the caller's transaction. future_scheduled, which has no event of its own, emits
 * broadcast.scheduled: schedule_broadcast does (docs/broadcasts-and-sending.md). draft emits nothing.
 */
export async function recordBroadcastStatus(repositories: Repositories, b: Broadcast, now: Date): Promise<void> {
  const type = b.status === 'future_scheduled' ? 'broadcast.scheduled' : broadcastEventType(b.status);
  if (type === null) return;
  await repositories.outbox.record({ channelId: b.channelId, type, data: broadcastEventData(b), createdAt: now });
}

/** Under the row lock the conditional write cannot miss; if it ever does, nothing commits. */
export function writtenBroadcast(b: Broadcast | null): Broadcast {
  if (b === null) throw new Error('broadcast changed during its own transaction');
  return b;
}

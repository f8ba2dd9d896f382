import type { HistoryEntry } from '@mailcast/core';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/**
 * One email of a subscriber's history (docs/subscribers.md, "History"). `opened` and `clicked`
 * say whether any open or click was recorded; `opened_by`/`clicked_by` whether a person's, a
 * machine's, or both (docs/engagement.md).
 */
export function presentHistoryEntry(e: HistoryEntry): Record<string, unknown> {
  return {
    kind: e.kind,
    id: e.id,
    sequence_id: e.sequenceId,
    subject: e.subject,
    status: e.status,
    sent_at: iso(e.sentAt),
    opened: e.openedAt !== null,
    opened_at: iso(e.openedAt),
    clicked: e.clickedAt !== null,
    clicked_at: iso(e.clickedAt),
    opened_by: { human: e.engagedBy.humanOpened, machine: e.engagedBy.machineOpened },
    clicked_by: { human: e.engagedBy.humanClicked, machine: e.engagedBy.machineClicked },
    bounced: e.bounced,
    bounce_reason: e.bounceReason,
    message_id: e.messageId,
  };
}

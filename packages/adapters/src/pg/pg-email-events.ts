import type { EmailEventRecord, EmailEvents } from '@mailcast/core';
import type { Knex } from 'knex';

export class PgEmailEvents implements EmailEvents {
  constructor(private readonly db: Knex) {}

  async record(event: EmailEventRecord): Promise<{ id: number; firstForRecipient: boolean }> {
    const linkId = event.linkId ?? null;
    // One statement: the first-occurrence test and the insert see the same snapshot, and the
    // (broadcast_id, type, recipient_id) index answers the test.
    const { rows } = await this.db.raw<{ rows: { id: number; first: boolean }[] }>(
      `WITH earlier AS (
         SELECT 1 FROM email_events
          WHERE broadcast_id = :broadcastId AND type = :kind AND recipient_id = :recipientId
            AND link_id IS NOT DISTINCT FROM :linkId
          LIMIT 1
       )
       INSERT INTO email_events (channel_id, broadcast_id, recipient_id, subscriber_id, link_id, type, occurred_at, data)
       VALUES (:channelId, :broadcastId, :recipientId, :subscriberId, :linkId, :kind, :occurredAt, :data)
       RETURNING id, NOT EXISTS (SELECT 1 FROM earlier) AS first`,
      {
        channelId: event.channelId,
        broadcastId: event.broadcastId,
        recipientId: event.recipientId,
        subscriberId: event.subscriberId,
        linkId,
        kind: event.kind,
        occurredAt: event.occurredAt,
        data: JSON.stringify(event.data ?? {}),
      },
    );
    const row = rows[0]!;
    return { id: row.id, firstForRecipient: row.first };
  }

  async recordMany(events: readonly EmailEventRecord[]): Promise<void> {
    if (events.length === 0) return;
    await this.db('email_events').insert(
      events.map((event) => ({
        channel_id: event.channelId,
        broadcast_id: event.broadcastId,
        recipient_id: event.recipientId,
        subscriber_id: event.subscriberId,
        link_id: event.linkId ?? null,
        type: event.kind,
        occurred_at: event.occurredAt,
        data: JSON.stringify(event.data ?? {}),
      })),
    );
  }
}

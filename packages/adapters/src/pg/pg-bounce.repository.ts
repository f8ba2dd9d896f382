import type { BounceNotification, BounceRepository } from '@mailcast/core';
import { messageIdRecipient } from '@mailcast/domain';
import type { Knex } from 'knex';

/** Asynchronous bounces and complaints (migration 2026112601000001, docs/bounces.md). */
export class PgBounceRepository implements BounceRepository {
  constructor(private readonly db: Knex) {}

  /** Through the recipients' (broadcast, subscriber) key the Message-ID carries: no index of its own. */
  async recipientIdByMessageId(messageId: string): Promise<number | null> {
    const ids = messageIdRecipient(messageId);
    if (ids === null) return null;
    const row = await this.db('broadcast_recipients')
      .where({ broadcast_id: ids.broadcastId, subscriber_id: ids.subscriberId, message_id: messageId })
      .first<{ id: string } | undefined>('id');
    return row ? Number(row.id) : null;
  }

  async claim(n: BounceNotification): Promise<boolean> {
    const { rows } = await this.db.raw<{ rows: unknown[] }>(
      `INSERT INTO bounce_notifications (channel_id, recipient_id, email, kind, source, reason, occurred_at)
       VALUES (:channelId, :recipientId, :email, :kind, :source, :reason, :occurredAt)
       ON CONFLICT (recipient_id, kind) DO NOTHING RETURNING id`,
      { ...n, email: n.email.toLowerCase() },
    );
    return rows.length > 0;
  }

  async softBouncesSince(channelId: number, email: string, since: Date): Promise<number> {
    const row = await this.db('bounce_notifications')
      .where({ channel_id: channelId, email: email.toLowerCase(), kind: 'soft_bounce' })
      .where('occurred_at', '>=', since)
      .count<{ count: string }[]>('* as count');
    return Number(row[0]?.count ?? 0);
  }

  async markBounced(recipientId: number, at: Date, reason: string): Promise<void> {
    // Only an email that was accepted: one still in the pipeline is the pipeline's to settle.
    await this.db('broadcast_recipients').where({ id: recipientId, status: 'sent' }).update({ status: 'bounced', failed_at: at, error: reason });
  }

  async markComplained(recipientId: number, at: Date): Promise<void> {
    await this.db('broadcast_recipients').where({ id: recipientId }).whereNull('complained_at').update({ complained_at: at });
  }

  async firstSeen(source: string, key: string, at: Date, forgetBefore: Date): Promise<boolean> {
    await this.db('inbound_replays').where({ source }).where('seen_at', '<', forgetBefore).delete();
    const { rows } = await this.db.raw<{ rows: unknown[] }>(
      `INSERT INTO inbound_replays (source, key, seen_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING key`,
      [source, key, at],
    );
    return rows.length > 0;
  }
}

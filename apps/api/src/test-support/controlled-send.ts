import type { EmailEventKind } from '@mailcast/core';
import type { BroadcastStatus } from '@mailcast/domain';
import type { ApiHarness } from './harness';

/**
 * A broadcast "sent" under a script: recipients with their final statuses, tracked links, and
 * every recipient email event recorded through the EmailEvents port in the order the sending
 * pipeline and the tracking routes record them. Until the pipeline lands the broadcast's own
 * columns are set as the pipeline sets them; an end-to-end variant can replace this builder
 * (same script, real SMTP and tracking hits) and keep the assertions.
 */
export interface SendScript {
  status: BroadcastStatus;
  beginSendAt: string;
  sentAt: string;
  recipients: ReadonlyArray<'sent' | 'failed' | 'bounced' | 'skipped' | 'pending'>;
  links: readonly string[];
  events: ReadonlyArray<{ recipient: number; kind: EmailEventKind; at: string; link?: number }>;
}

export interface RecordedSend {
  broadcastId: number;
  recipientIds: number[];
  linkIds: number[];
}

export async function recordControlledSend(api: ApiHarness, channelId: number, script: SendScript): Promise<RecordedSend> {
  const db = api.database.db;
  const broadcast = await api.fixtures.aBroadcast(channelId, { name: 'Statistics', subject: 'Numbers' }, new Date('2026-02-28T09:00:00Z'));
  const tag = `${broadcast.id}`;
  const subscriberIds = (
    await db('subscribers')
      .insert(script.recipients.map((_, i) => ({ channel_id: channelId, email: `r${i}.${tag}@example.com` })))
      .returning('id')
  ).map((r: { id: number }) => r.id);
  const recipientIds = (
    await db('broadcast_recipients')
      .insert(
        script.recipients.map((status, i) => ({
          broadcast_id: broadcast.id,
          subscriber_id: subscriberIds[i],
          status,
          message_id: `<r${i}.${tag}@mailcast.test>`,
        })),
      )
      .returning('id')
  ).map((r: { id: number }) => r.id);
  const linkIds =
    script.links.length === 0
      ? []
      : (
          await db('broadcast_links')
            .insert(script.links.map((url, i) => ({ broadcast_id: broadcast.id, identifier: `l${i + 1}`, url })))
            .returning('id')
        ).map((r: { id: number }) => r.id);
  await db('broadcasts')
    .where({ id: broadcast.id })
    .update({
      status: script.status,
      total_recipients: script.recipients.length,
      broadcast_recipients_count: script.recipients.length,
      begin_send_at: new Date(script.beginSendAt),
      sent_at: new Date(script.sentAt),
    });
  for (const e of script.events) {
    await api.fixtures.repositories.emailEvents.record({
      channelId,
      broadcastId: broadcast.id,
      recipientId: recipientIds[e.recipient]!,
      subscriberId: subscriberIds[e.recipient]!,
      kind: e.kind,
      linkId: e.link === undefined ? null : linkIds[e.link]!,
      occurredAt: new Date(e.at),
    });
  }
  return { broadcastId: broadcast.id, recipientIds, linkIds };
}

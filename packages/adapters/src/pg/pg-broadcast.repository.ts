import type { Broadcast, BroadcastRepository, EmailHeader, NewBroadcast, Page } from '@mailcast/core';
import type { BroadcastStatus } from '@mailcast/domain';
import type { Knex } from 'knex';

export interface BroadcastRow {
  id: number;
  channel_id: number;
  name: string | null;
  subject: string;
  preheader: string | null;
  body: string | null;
  html_body: string | null;
  include_unsubscribe_link: boolean;
  reply_to: string | null;
  status: string;
  track_opens: boolean;
  track_clicks: boolean;
  use_any_email_server: boolean;
  email_headers: EmailHeader[];
  tags: string[];
  segment_ids: number[];
  email_server_ids: number[];
  total_recipients: number;
  broadcast_recipients_count: number;
  scheduled_send_at: Date | null;
  scheduled_timezone: string | null;
  begin_send_at: Date | null;
  sent_at: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const toBroadcast = (row: BroadcastRow): Broadcast => ({
  id: row.id,
  channelId: row.channel_id,
  name: row.name,
  subject: row.subject,
  preheader: row.preheader,
  body: row.body,
  htmlBody: row.html_body,
  includeUnsubscribeLink: row.include_unsubscribe_link,
  replyTo: row.reply_to,
  status: row.status as BroadcastStatus,
  trackOpens: row.track_opens,
  trackClicks: row.track_clicks,
  useAnyEmailServer: row.use_any_email_server,
  emailHeaders: row.email_headers,
  tags: row.tags,
  // bigint[] arrives as strings: pg parses array elements without the int8 override.
  segmentIds: row.segment_ids.map(Number),
  emailServerIds: row.email_server_ids.map(Number),
  totalRecipients: row.total_recipients,
  broadcastRecipientsCount: row.broadcast_recipients_count,
  scheduledSendAt: row.scheduled_send_at,
  scheduledTimezone: row.scheduled_timezone,
  beginSendAt: row.begin_send_at,
  sentAt: row.sent_at,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export class PgBroadcastRepository implements BroadcastRepository {
  constructor(private readonly db: Knex) {}

  async create(broadcast: NewBroadcast, now: Date): Promise<Broadcast> {
    const [row] = await this.db<BroadcastRow>('broadcasts')
      .insert({
        channel_id: broadcast.channelId,
        name: broadcast.name,
        subject: broadcast.subject,
        preheader: broadcast.preheader,
        body: broadcast.body,
        html_body: broadcast.htmlBody,
        include_unsubscribe_link: broadcast.includeUnsubscribeLink,
        reply_to: broadcast.replyTo,
        track_opens: broadcast.trackOpens,
        track_clicks: broadcast.trackClicks,
        use_any_email_server: broadcast.useAnyEmailServer,
        email_headers: JSON.stringify(broadcast.emailHeaders) as unknown as EmailHeader[],
        tags: broadcast.tags,
        segment_ids: broadcast.segmentIds,
        email_server_ids: broadcast.emailServerIds,
        scheduled_send_at: broadcast.scheduledSendAt,
        scheduled_timezone: broadcast.scheduledTimezone,
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    return toBroadcast(row as BroadcastRow);
  }

  async findById(channelId: number, id: number): Promise<Broadcast | null> {
    const row = await this.db<BroadcastRow>('broadcasts').where({ channel_id: channelId, id }).first();
    return row ? toBroadcast(row) : null;
  }

  async list(channelId: number, page: Page): Promise<{ items: Broadcast[]; total: number }> {
    const scoped = this.db<BroadcastRow>('broadcasts').where({ channel_id: channelId });
    const [rows, count] = await Promise.all([
      scoped.clone().orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(page.limit).offset(page.offset),
      scoped.clone().count<{ count: number }[]>({ count: '*' }).first(),
    ]);
    return { items: rows.map(toBroadcast), total: Number(count?.count ?? 0) };
  }
}

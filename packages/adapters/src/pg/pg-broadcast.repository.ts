import type { Broadcast, BroadcastChanges, BroadcastExpectation, BroadcastRepository, EmailHeader, NewBroadcast, Page } from '@mailcast/core';
import type { BroadcastStatus, PauseReason, SubjectTest } from '@mailcast/domain';
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
  topic_id: number | string | null;
  excluded_segment_ids: Array<number | string>;
  template_id: number | null;
  email_server_ids: number[];
  total_recipients: number;
  broadcast_recipients_count: number;
  scheduled_send_at: Date | null;
  scheduled_timezone: string | null;
  begin_send_at: Date | null;
  sent_at: Date | null;
  paused_from: string | null;
  pause_reason?: string | null;
  archive: boolean;
  send_in_subscriber_timezone: boolean;
  ab_test?: SubjectTest | null;
  ab_winner?: number | null;
  ab_decided_at?: Date | null;
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
  topicId: row.topic_id === null ? null : Number(row.topic_id),
  excludedSegmentIds: row.excluded_segment_ids.map(Number),
  emailServerIds: row.email_server_ids.map(Number),
  templateId: row.template_id === null ? null : Number(row.template_id),
  totalRecipients: row.total_recipients,
  broadcastRecipientsCount: row.broadcast_recipients_count,
  scheduledSendAt: row.scheduled_send_at,
  scheduledTimezone: row.scheduled_timezone,
  beginSendAt: row.begin_send_at,
  sentAt: row.sent_at,
  pausedFrom: row.paused_from as BroadcastStatus | null,
  pauseReason: (row.pause_reason ?? null) as PauseReason | null,
  archive: row.archive,
  sendInSubscriberTimezone: row.send_in_subscriber_timezone ?? false,
  abTest: row.ab_test ?? null,
  abWinner: row.ab_winner ?? null,
  abDecidedAt: row.ab_decided_at ?? null,
  version: row.version,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** Column of each writable field (BroadcastChanges); jsonb needs its text form. */
function toRow(changes: BroadcastChanges): Record<string, unknown> {
  const columns: Record<keyof BroadcastChanges, string> = {
    name: 'name',
    subject: 'subject',
    preheader: 'preheader',
    body: 'body',
    htmlBody: 'html_body',
    includeUnsubscribeLink: 'include_unsubscribe_link',
    replyTo: 'reply_to',
    trackOpens: 'track_opens',
    trackClicks: 'track_clicks',
    useAnyEmailServer: 'use_any_email_server',
    emailHeaders: 'email_headers',
    tags: 'tags',
    segmentIds: 'segment_ids',
    topicId: 'topic_id',
    excludedSegmentIds: 'excluded_segment_ids',
    templateId: 'template_id',
    emailServerIds: 'email_server_ids',
    scheduledSendAt: 'scheduled_send_at',
    scheduledTimezone: 'scheduled_timezone',
    status: 'status',
    pausedFrom: 'paused_from',
    pauseReason: 'pause_reason',
    sentAt: 'sent_at',
    archive: 'archive',
    sendInSubscriberTimezone: 'send_in_subscriber_timezone',
    abTest: 'ab_test',
  };
  const row: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes) as Array<[keyof BroadcastChanges, unknown]>) {
    if (value === undefined) continue;
    row[columns[key]] = key === 'emailHeaders' || (key === 'abTest' && value !== null) ? JSON.stringify(value) : value;
  }
  return row;
}

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
        topic_id: broadcast.topicId ?? null,
        excluded_segment_ids: broadcast.excludedSegmentIds ?? [],
        template_id: broadcast.templateId ?? null,
        email_server_ids: broadcast.emailServerIds,
        scheduled_send_at: broadcast.scheduledSendAt,
        scheduled_timezone: broadcast.scheduledTimezone,
        archive: broadcast.archive ?? false,
        send_in_subscriber_timezone: broadcast.sendInSubscriberTimezone ?? false,
        ab_test: broadcast.abTest ? (JSON.stringify(broadcast.abTest) as unknown as SubjectTest) : null,
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
      scoped
        .clone()
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      scoped.clone().count<{ count: number }[]>({ count: '*' }).first(),
    ]);
    return { items: rows.map(toBroadcast), total: Number(count?.count ?? 0) };
  }

  async lock(channelId: number, id: number): Promise<Broadcast | null> {
    const row = await this.db<BroadcastRow>('broadcasts').where({ channel_id: channelId, id }).forUpdate().first();
    return row ? toBroadcast(row) : null;
  }

  async findByIdInAnyChannel(id: number): Promise<Broadcast | null> {
    const row = await this.db<BroadcastRow>('broadcasts').where({ id }).first();
    return row ? toBroadcast(row) : null;
  }

  async update(id: number, expected: BroadcastExpectation, changes: BroadcastChanges, now: Date): Promise<Broadcast | null> {
    const query = this.db<BroadcastRow>('broadcasts')
      .where({ id, version: expected.version })
      .whereRaw('status = ANY(?)', [[...expected.statuses]]);
    if (expected.dueBy) query.where('scheduled_send_at', '<=', expected.dueBy);
    const [row] = await query.update({ ...toRow(changes), version: this.db.raw('version + 1'), updated_at: now } as never).returning('*');
    return row ? toBroadcast(row as BroadcastRow) : null;
  }

  async delete(channelId: number, id: number, statuses: readonly string[]): Promise<boolean> {
    const deleted = await this.db('broadcasts')
      .where({ channel_id: channelId, id })
      .whereRaw('status = ANY(?)', [[...statuses]])
      .delete();
    return deleted > 0;
  }

  async startDue(now: Date, limit: number): Promise<Broadcast[]> {
    // SKIP LOCKED: a row another dispatcher (or an api call) holds is left to it, so each due
    // broadcast moves once; the status condition is checked again by the UPDATE itself.
    const { rows } = await this.db.raw<{ rows: BroadcastRow[] }>(
      `UPDATE broadcasts SET status = 'scheduled', version = version + 1, updated_at = ?
       WHERE id IN (
         SELECT id FROM broadcasts
         WHERE status = 'future_scheduled' AND scheduled_send_at <= ?
         ORDER BY scheduled_send_at, id
         LIMIT ?
         FOR UPDATE SKIP LOCKED)
       AND status = 'future_scheduled'
       RETURNING *`,
      [now, now, limit],
    );
    return rows.map(toBroadcast);
  }

  async timezoneCandidates(now: Date, before: Date, limit: number): Promise<Broadcast[]> {
    // The broadcasts_due index bounds the range; the flag filters the few rows in it.
    const rows = await this.db<BroadcastRow>('broadcasts')
      .where({ status: 'future_scheduled', send_in_subscriber_timezone: true })
      .where('scheduled_send_at', '>', now)
      .where('scheduled_send_at', '<=', before)
      .orderBy([{ column: 'scheduled_send_at' }, { column: 'id' }])
      .limit(limit)
      .select('*');
    return (rows as BroadcastRow[]).map(toBroadcast);
  }

  async unknownSegmentIds(channelId: number, segmentIds: readonly number[]): Promise<number[]> {
    if (segmentIds.length === 0) return [];
    const found = await this.db('segments')
      .where({ channel_id: channelId })
      .whereIn('id', [...segmentIds])
      .pluck<Array<number | string>>('id');
    const known = new Set(found.map(Number));
    return [...new Set(segmentIds)].filter((id) => !known.has(id));
  }

  async hasTopic(channelId: number, topicId: number): Promise<boolean> {
    const found = await this.db('topics').where({ channel_id: channelId, id: topicId }).first('id');
    return found !== undefined;
  }

  async prepareRetry(id: number): Promise<void> {
    await this.db('broadcast_recipients').where({ broadcast_id: id, status: 'failed' }).update({
      status: 'pending',
      attempts: 0,
      claimed_by: null,
      lease_expires_at: null,
      next_attempt_at: null,
      failed_at: null,
      error: null,
    });
    await this.db.raw(
      `UPDATE broadcasts SET sent_at = NULL, broadcast_recipients_count = (
         SELECT count(*) FROM broadcast_recipients r
         WHERE r.broadcast_id = broadcasts.id AND r.status NOT IN ('pending', 'claimed'))
       WHERE id = ?`,
      [id],
    );
  }
}

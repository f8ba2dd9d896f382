import type {
  IdempotencyClaim,
  IdempotencyStore,
  NewTransactional,
  Page,
  SubscriberSnapshot,
  Transactional,
  TransactionalEvent,
  TransactionalFilter,
  TransactionalRepository,
  TransactionalSummary,
} from '@mailcast/core';
import type { TransactionalStatus } from '@mailcast/domain';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { SUBSCRIBER_COLUMNS, toSubscriber, type SubscriberRow } from './recipient-sql';
import { likeLiteral } from './subscriber-list';

/** The unsubscribe link's secret is sealed at rest like a broadcast's (docs/secrets.md). */
const SECRET = 'transactionals.unsubscribe_secret';

/** A transactional has a handful of events (two per attempt, six attempts); the bound keeps one answer small whatever happens. */
const EVENTS_SHOWN = 200;

interface TransactionalRow {
  id: number;
  channel_id: number;
  subscriber_id: number;
  to_email: string;
  subject: string;
  preheader: string | null;
  body: string;
  html_body: string | null;
  reply_to: string | null;
  data: Record<string, unknown>;
  include_unsubscribe_link: boolean;
  unsubscribe_secret: string | null;
  email_server_id: number | null;
  template_id: number | null;
  status: TransactionalStatus;
  message_id: string | null;
  error: string | null;
  sent_at: Date | null;
  created_at: Date;
}

const toTransactional = (row: TransactionalRow, secrets: SecretBox): Transactional => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  subscriberId: Number(row.subscriber_id),
  to: row.to_email,
  subject: row.subject,
  preheader: row.preheader,
  body: row.body,
  htmlBody: row.html_body,
  replyTo: row.reply_to,
  data: row.data,
  includeUnsubscribeLink: row.include_unsubscribe_link,
  unsubscribeSecret: row.unsubscribe_secret === null ? null : secrets.open(SECRET, row.unsubscribe_secret),
  emailServerId: row.email_server_id === null ? null : Number(row.email_server_id),
  templateId: row.template_id === null ? null : Number(row.template_id),
  status: row.status,
  messageId: row.message_id,
  error: row.error,
  sentAt: row.sent_at,
  createdAt: row.created_at,
});

export class PgTransactionalRepository implements TransactionalRepository {
  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
  ) {}

  async create(t: NewTransactional, now: Date): Promise<Transactional> {
    const [row] = await this.db('transactionals')
      .insert({
        channel_id: t.channelId,
        subscriber_id: t.subscriberId,
        to_email: t.to,
        subject: t.subject,
        preheader: t.preheader,
        body: t.body,
        html_body: t.htmlBody,
        reply_to: t.replyTo,
        data: JSON.stringify(t.data),
        include_unsubscribe_link: t.includeUnsubscribeLink,
        unsubscribe_secret: t.unsubscribeSecret === null ? null : this.secrets.seal(SECRET, t.unsubscribeSecret),
        email_server_id: t.emailServerId,
        template_id: t.templateId,
        status: t.status,
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    return toTransactional(row as TransactionalRow, this.secrets);
  }

  async findById(channelId: number, id: number): Promise<Transactional | null> {
    const row = (await this.db('transactionals').where({ channel_id: channelId, id }).first()) as TransactionalRow | undefined;
    return row ? toTransactional(row, this.secrets) : null;
  }

  async list(channelId: number, filter: TransactionalFilter, page: Page): Promise<{ items: TransactionalSummary[]; total: number }> {
    // Each filter has an index (migration 20261203400000): status with the channel's order, the
    // recipient through trigrams of lower(to_email); the dates narrow the (channel_id, created_at) range.
    const base = () => {
      const q = this.db('transactionals').where({ channel_id: channelId });
      if (filter.status !== undefined) q.where({ status: filter.status });
      if (filter.emailContains !== undefined) q.whereRaw('lower(to_email) LIKE ?', [`%${likeLiteral(filter.emailContains.toLowerCase())}%`]);
      if (filter.createdAfter !== undefined) q.where('created_at', '>=', filter.createdAfter);
      if (filter.createdBefore !== undefined) q.where('created_at', '<=', filter.createdBefore);
      return q;
    };
    const [rows, count] = await Promise.all([
      base()
        .select('id', 'to_email', 'subject', 'status', 'message_id', 'error', 'sent_at', 'created_at')
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      base().count<{ count: string }[]>({ count: '*' }),
    ]);
    const items = (rows as TransactionalRow[]).map((row) => ({
      id: Number(row.id),
      to: row.to_email,
      subject: row.subject,
      status: row.status,
      messageId: row.message_id,
      error: row.error,
      sentAt: row.sent_at,
      createdAt: row.created_at,
    }));
    return { items, total: Number(count[0]?.count ?? 0) };
  }

  async events(channelId: number, id: number): Promise<TransactionalEvent[]> {
    // The outbox holds the email.* events with the transactional's id in their data (docs/transactionals.md).
    const rows = (await this.db('events')
      .select('id', 'type', 'data', 'created_at')
      .where({ channel_id: channelId })
      .whereRaw("(data->>'transactional_id') = ?", [String(id)])
      .orderBy('id', 'asc')
      .limit(EVENTS_SHOWN)) as Array<{ id: number | string; type: string; data: Record<string, unknown>; created_at: Date }>;
    return rows.map((r) => ({ id: Number(r.id), type: r.type, data: r.data, createdAt: r.created_at }));
  }

  async claimForSending(id: number, attempt: number, messageId: string, now: Date): Promise<Transactional | null> {
    const [row] = await this.db('transactionals')
      .where({ id, status: 'queued', attempts: attempt - 1 })
      .update({ attempts: attempt, message_id: this.db.raw('coalesce(message_id, ?)', [messageId]), updated_at: now })
      .returning('*');
    return row ? toTransactional(row as TransactionalRow, this.secrets) : null;
  }

  async releaseAwaiting(subscriberId: number, now: Date): Promise<number[]> {
    const rows = (await this.db('transactionals')
      .where({ subscriber_id: subscriberId, status: 'awaiting_confirmation' })
      .update({ status: 'queued', updated_at: now })
      .returning('id')) as Array<{ id: number | string }>;
    return rows.map((r) => Number(r.id));
  }

  async findUnsubscribeTarget(id: number): Promise<{ channelId: number; subscriber: SubscriberSnapshot; secret: Uint8Array | null } | null> {
    const { rows } = await this.db.raw<{ rows: Array<SubscriberRow & { channel_id: number; unsubscribe_secret: string | null }> }>(
      `SELECT t.channel_id, t.unsubscribe_secret, ${SUBSCRIBER_COLUMNS}
         FROM transactionals t
         JOIN subscribers s ON s.id = t.subscriber_id AND s.channel_id = t.channel_id
        WHERE t.id = ?`,
      [id],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      channelId: Number(row.channel_id),
      subscriber: toSubscriber(row),
      secret: row.unsubscribe_secret === null ? null : this.secrets.open(SECRET, row.unsubscribe_secret),
    };
  }

  async settle(id: number, change: { status: TransactionalStatus; messageId?: string; error?: string | null; sentAt?: Date }, now: Date): Promise<void> {
    await this.db('transactionals')
      .where({ id })
      .update({
        status: change.status,
        ...(change.messageId !== undefined ? { message_id: change.messageId } : {}),
        ...(change.error !== undefined ? { error: change.error } : {}),
        ...(change.sentAt !== undefined ? { sent_at: change.sentAt } : {}),
        updated_at: now,
      });
  }
}

/**
 * Idempotency keys (docs/transactionals.md). The claim is an INSERT … ON CONFLICT outside any
 * transaction: concurrent retries meet on the primary key, exactly one inserts, and the others
 * read what it wrote once it is committed (a separate statement, so with a fresh snapshot).
 */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Knex) {}

  async claim(tokenId: number, key: string, fingerprint: string, now: Date, expiredBefore: Date): Promise<IdempotencyClaim> {
    const { rows } = await this.db.raw<{ rows: unknown[] }>(
      `INSERT INTO idempotency_keys (token_id, key, fingerprint, created_at) VALUES (:tokenId, :key, :fingerprint, :now)
       ON CONFLICT (token_id, key) DO UPDATE
          SET fingerprint = EXCLUDED.fingerprint, created_at = EXCLUDED.created_at, response_status = NULL, response_body = NULL
        WHERE idempotency_keys.created_at < :expiredBefore
       RETURNING 1`,
      { tokenId, key, fingerprint, now, expiredBefore },
    );
    if (rows.length > 0) return { kind: 'first' };
    const row = (await this.db('idempotency_keys').where({ token_id: tokenId, key }).first()) as
      { fingerprint: string; response_status: number | null; response_body: Record<string, unknown> | null } | undefined;
    // Released between the two statements: the caller may simply try again.
    if (row === undefined) return { kind: 'in_progress' };
    if (row.fingerprint !== fingerprint) return { kind: 'other_body' };
    if (row.response_status === null || row.response_body === null) return { kind: 'in_progress' };
    return { kind: 'replay', status: row.response_status, body: row.response_body };
  }

  async complete(tokenId: number, key: string, status: number, body: Record<string, unknown>): Promise<void> {
    await this.db('idempotency_keys')
      .where({ token_id: tokenId, key })
      .update({ response_status: status, response_body: JSON.stringify(body) });
  }

  async release(tokenId: number, key: string): Promise<void> {
    await this.db('idempotency_keys').where({ token_id: tokenId, key }).whereNull('response_status').delete();
  }
}

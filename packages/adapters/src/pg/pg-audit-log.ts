import type { AuditActorType, AuditEntry, AuditLog, AuditLogFilter, NewAuditEntry, Page } from '@mailcast/core';
import type { Knex } from 'knex';

interface AuditRow {
  id: string | number;
  occurred_at: Date;
  actor_type: AuditActorType;
  user_id: string | number | null;
  token_id: string | number | null;
  actor_label: string | null;
  channel_id: string | number | null;
  method: string;
  path: string;
  status: number | null;
  ip: string | null;
  action: string;
  resource_type: string | null;
  resource_id: string | null;
}

const orNull = (value: string | number | null) => (value === null ? null : Number(value));

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: Number(row.id),
    occurredAt: row.occurred_at,
    actorType: row.actor_type,
    userId: orNull(row.user_id),
    tokenId: orNull(row.token_id),
    actorLabel: row.actor_label,
    channelId: orNull(row.channel_id),
    method: row.method,
    path: row.path,
    status: row.status,
    ip: row.ip,
    action: row.action,
    resourceType: row.resource_type,
    resourceId: row.resource_id,
  };
}

/**
 * The audit log (docs/teams.md, "Audit log"). A batch is one INSERT … SELECT over a JSON array:
 * the actor's label is looked up in the same statement (the user's email; the token's label, or
 * its shown prefix for a token without one),
 * and a user or token deleted meanwhile leaves its id null rather than failing the batch.
 */
export class PgAuditLog implements AuditLog {
  constructor(private readonly db: Knex) {}

  async append(entries: readonly NewAuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const rows = entries.map((e) => ({
      occurred_at: e.occurredAt.toISOString(),
      actor_type: e.actorType,
      user_id: e.userId,
      token_id: e.tokenId,
      actor_label: e.actorLabel,
      channel_id: e.channelId,
      method: e.method,
      path: e.path,
      status: e.status,
      ip: e.ip,
      action: e.action,
      resource_type: e.resourceType,
      resource_id: e.resourceId,
    }));
    await this.db.raw(
      `INSERT INTO audit_log (occurred_at, actor_type, user_id, token_id, actor_label, channel_id, method, path, status, ip, action, resource_type, resource_id)
       SELECT e.occurred_at, e.actor_type, u.id, t.id, COALESCE(e.actor_label, u.email, t.label, t.token_prefix), e.channel_id,
              e.method, e.path, e.status, e.ip, e.action, e.resource_type, e.resource_id
         FROM jsonb_to_recordset(CAST(? AS jsonb)) AS e(
                occurred_at timestamptz, actor_type text, user_id bigint, token_id bigint, actor_label text, channel_id bigint,
                method text, path text, status integer, ip text, action text, resource_type text, resource_id text)
         LEFT JOIN users u ON u.id = e.user_id
         LEFT JOIN api_tokens t ON t.id = e.token_id`,
      [JSON.stringify(rows)],
    );
  }

  async list(filter: AuditLogFilter, page: Page): Promise<{ items: AuditEntry[]; total: number }> {
    const query = this.db('audit_log').modify((q) => {
      if (filter.channelId !== undefined) q.where('channel_id', filter.channelId);
      if (filter.userId !== undefined) q.where('user_id', filter.userId);
      if (filter.tokenId !== undefined) q.where('token_id', filter.tokenId);
      if (filter.action !== undefined) q.where('action', filter.action);
      if (filter.since !== undefined) q.where('occurred_at', '>=', filter.since);
      if (filter.until !== undefined) q.where('occurred_at', '<=', filter.until);
    });
    const [rows, counted] = await Promise.all([
      query
        .clone()
        .select('*')
        .orderBy([
          { column: 'occurred_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .limit(page.limit)
        .offset(page.offset),
      query.clone().count<Array<{ n: string }>>({ n: '*' }),
    ]);
    return { items: (rows as AuditRow[]).map(toEntry), total: Number(counted[0]?.n ?? 0) };
  }
}

import type { ExportReader, ExportRecord, ExportScope } from '@mailcast/core';
import { EXPORT_WEBHOOK_SECRET, REDACTED, redactedTokenValue, type ExportCollection } from '@mailcast/domain';
import type { Knex } from 'knex';

/**
 * One collection of the export as SQL (docs/export.md, "Collections"): the rows of the channel
 * (`from` + `where`, `?` bound to the values of `bindings`), each row's JSON as `record`, in id
 * order. Secret columns are dropped from the row and replaced by their redacted form in SQL, so a
 * sealed value never leaves the database, let alone gets opened.
 */
interface Source {
  record: string;
  /** Values bound by `record`'s `?`s (before the where clause's). */
  recordBindings?: Knex.Value[];
  from: string;
  where: string;
  bindings: (scope: ExportScope) => Knex.Value[];
  orderBy: string;
  /** The history column: with a `since`, only rows at or after it (the history collections only). */
  history?: string;
  /** Extra columns beside `record`, turned into fields by `finish`. */
  extra?: string;
  finish?: (record: ExportRecord, row: Record<string, unknown>) => ExportRecord;
  /** For a grouped collection (tags): the count of its rows. */
  countSql?: string;
}

const channel = (scope: ExportScope) => [scope.channelId];

/** The redacted form of a nullable secret column: `[REDACTED]` when set, null when not. */
const redacted = (column: string) => `CASE WHEN ${column} IS NULL THEN NULL ELSE CAST(? AS text) END`;

const SOURCES: Record<Exclude<ExportCollection, 'file_assets'>, Source> = {
  channels: { record: 'to_jsonb(c)', from: 'channels c', where: 'c.id = ?', bindings: channel, orderBy: 'c.id' },
  subscribers: { record: 'to_jsonb(s)', from: 'subscribers s', where: 's.channel_id = ?', bindings: channel, orderBy: 's.id' },
  templates: { record: 'to_jsonb(t)', from: 'templates t', where: 't.channel_id = ?', bindings: channel, orderBy: 't.id' },
  segments: { record: 'to_jsonb(s)', from: 'segments s', where: 's.channel_id = ?', bindings: channel, orderBy: 's.id' },
  sequences: {
    // The steps of a sequence, in tree order within it (parent first, then position).
    record: `(to_jsonb(s) - 'unsubscribe_secret') || jsonb_build_object('steps', (
      SELECT coalesce(jsonb_agg(to_jsonb(st) ORDER BY st.position, st.id), '[]'::jsonb) FROM sequence_steps st WHERE st.sequence_id = s.id))`,
    from: 'sequences s',
    where: 's.channel_id = ?',
    bindings: channel,
    orderBy: 's.id',
  },
  email_servers: {
    record: `(to_jsonb(e) - ARRAY['password', 'dkim_private_key'])
      || jsonb_build_object('password', ${redacted('e.password')}, 'dkim_private_key', ${redacted('e.dkim_private_key')})`,
    recordBindings: [REDACTED, REDACTED],
    from: 'email_servers e',
    where: 'e.channel_id = ?',
    bindings: channel,
    orderBy: 'e.id',
  },
  opt_in_forms: {
    // Variants are forms of their own (parent_form_id); each form carries its blocks.
    record: `to_jsonb(f) || jsonb_build_object('blocks', (
      SELECT coalesce(jsonb_agg(to_jsonb(bl) ORDER BY bl.placement, bl.position, bl.id), '[]'::jsonb) FROM opt_in_form_blocks bl WHERE bl.form_id = f.id))`,
    from: 'opt_in_forms f',
    where: 'f.channel_id = ?',
    bindings: channel,
    orderBy: 'f.id',
  },
  broadcasts: {
    record: `to_jsonb(b) - 'tracking_secret'`,
    from: 'broadcasts b',
    where: 'b.channel_id = ?',
    bindings: channel,
    orderBy: 'b.id',
    history: 'coalesce(b.begin_send_at, b.created_at)',
  },
  outbound_receipts: {
    // The per-recipient send records of the channel's broadcasts, without the sender's lease.
    record: `to_jsonb(r) - ARRAY['claimed_by', 'lease_expires_at']`,
    from: 'broadcast_recipients r JOIN broadcasts b ON b.id = r.broadcast_id',
    where: 'b.channel_id = ?',
    bindings: channel,
    orderBy: 'r.id',
    history: 'coalesce(b.begin_send_at, b.created_at)',
  },
  webhook_endpoints: {
    record: `(to_jsonb(w) - 'secret') || jsonb_build_object('secret', CAST(? AS text))`,
    recordBindings: [EXPORT_WEBHOOK_SECRET],
    from: 'webhook_endpoints w',
    where: 'w.channel_id = ? AND w.deleted_at IS NULL',
    bindings: channel,
    orderBy: 'w.id',
  },
  tokens: {
    // Never the hash: the label, kind, permissions and the value as whoami redacts it.
    record: `jsonb_build_object('id', t.id, 'label', t.label, 'type', t.type, 'permissions', to_jsonb(t.permissions),
      'created_at', t.created_at, 'revoked_at', t.revoked_at, 'last_used_at', t.last_used_at)`,
    extra: 't.token_prefix, t.token_suffix',
    finish: (record, row) => ({ ...record, redacted_value: redactedTokenValue(row.token_prefix as string, (row.token_suffix as string | null) ?? null) }),
    from: 'api_tokens t',
    where: 't.channel_id = ?',
    bindings: channel,
    orderBy: 't.id',
  },
  suppressions: { record: 'to_jsonb(s)', from: 'suppressions s', where: 's.channel_id IS NULL', bindings: () => [], orderBy: 's.id' },
  unsubscribed_emails: { record: 'to_jsonb(s)', from: 'suppressions s', where: 's.channel_id = ?', bindings: channel, orderBy: 's.id' },
  tags: {
    // Tags have no id: by name, each with the number of the channel's subscribers carrying it.
    record: `jsonb_build_object('name', tag, 'subscribers_count', count(*))`,
    from: 'subscribers s CROSS JOIN LATERAL unnest(s.tags) AS tag',
    where: 's.channel_id = ? GROUP BY tag',
    bindings: channel,
    orderBy: 'tag',
    countSql: 'SELECT count(DISTINCT tag) AS n FROM subscribers s CROSS JOIN LATERAL unnest(s.tags) AS tag WHERE s.channel_id = ?',
  },
  users: {
    // Those with permissions in the channel, and sudo users (who reach every channel). Never a
    // password hash, TOTP secret, recovery code, session, lockout or sign-in record.
    record: `jsonb_build_object('id', u.id, 'email', u.email, 'first_name', u.first_name, 'last_name', u.last_name,
      'active', u.active, 'sudo', u.sudo, 'permissions', p.permissions, 'created_at', u.created_at, 'updated_at', u.updated_at)`,
    from: 'users u LEFT JOIN user_channel_permissions p ON p.user_id = u.id AND p.channel_id = ?',
    where: '(p.user_id IS NOT NULL OR u.sudo)',
    bindings: channel,
    orderBy: 'u.id',
  },
  link_redirects: {
    record: 'to_jsonb(l)',
    from: 'broadcast_links l JOIN broadcasts b ON b.id = l.broadcast_id',
    where: 'b.channel_id = ?',
    bindings: channel,
    orderBy: 'l.id',
  },
  link_clicks: {
    record: 'to_jsonb(e)',
    from: 'email_events e',
    where: `e.channel_id = ? AND e.type = 'clicked'`,
    bindings: channel,
    orderBy: 'e.id',
    history: 'e.occurred_at',
  },
  subscriber_histories: {
    record: 'to_jsonb(e)',
    from: 'email_events e',
    where: 'e.channel_id = ? AND e.subscriber_id IS NOT NULL',
    bindings: channel,
    orderBy: 'e.id',
    history: 'e.occurred_at',
  },
};

/** The export's reads (docs/export.md): one bounded query per call, ordered by id, secrets redacted in SQL. */
export class PgExportReader implements ExportReader {
  constructor(private readonly db: Knex) {}

  async page(collection: ExportCollection, scope: ExportScope, page: { limit: number; offset: number }): Promise<ExportRecord[]> {
    if (collection === 'file_assets') return [];
    const source = SOURCES[collection];
    const { where, bindings } = this.filter(source, scope);
    const extra = source.extra ? `, ${source.extra}` : '';
    const { rows } = (await this.db.raw(
      `SELECT ${source.record} AS record${extra} FROM ${source.from} WHERE ${where} ORDER BY ${source.orderBy} LIMIT ? OFFSET ?`,
      [...(source.recordBindings ?? []), ...bindings, page.limit, page.offset],
    )) as { rows: Array<Record<string, unknown> & { record: ExportRecord }> };
    return rows.map((row) => (source.finish ? source.finish(row.record, row) : row.record));
  }

  async count(collection: ExportCollection, scope: ExportScope): Promise<number> {
    if (collection === 'file_assets') return 0;
    const source = SOURCES[collection];
    const { where, bindings } = this.filter(source, scope);
    const sql = source.countSql ?? `SELECT count(*) AS n FROM ${source.from} WHERE ${where}`;
    const { rows } = (await this.db.raw(sql, bindings)) as { rows: Array<{ n: string | number }> };
    return Number(rows[0]?.n ?? 0);
  }

  private filter(source: Source, scope: ExportScope): { where: string; bindings: Knex.Value[] } {
    const bindings = source.bindings(scope);
    if (source.history === undefined || scope.since === null) return { where: source.where, bindings };
    return { where: `${source.where} AND ${source.history} >= ?`, bindings: [...bindings, scope.since] };
  }
}

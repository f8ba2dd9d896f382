import type { EmailServer, EmailServerChanges, EmailServerRepository, NewEmailServer } from '@mailcast/core';
import type { SmtpTls } from '@mailcast/domain';
import type { Knex } from 'knex';
import { openNullable, type SecretBox } from '../secrets/secret-box';

interface EmailServerRow {
  id: number;
  channel_id: number;
  name: string | null;
  host: string;
  port: number;
  tls: SmtpTls;
  username: string | null;
  password: string | null;
  from_email: string | null;
  from_name: string | null;
  active: boolean;
  max_per_second: number | null;
  max_per_minute: number | null;
  max_per_hour: number | null;
  max_per_day: number | null;
  dkim_domain: string | null;
  dkim_selector: string | null;
  dkim_private_key: string | null;
  bounce_domain: string | null;
  deactivated_reason?: string | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS: Record<keyof EmailServerChanges, keyof EmailServerRow> = {
  name: 'name',
  host: 'host',
  port: 'port',
  tls: 'tls',
  username: 'username',
  password: 'password',
  fromEmail: 'from_email',
  fromName: 'from_name',
  active: 'active',
  maxPerSecond: 'max_per_second',
  maxPerMinute: 'max_per_minute',
  maxPerHour: 'max_per_hour',
  maxPerDay: 'max_per_day',
  dkimDomain: 'dkim_domain',
  dkimSelector: 'dkim_selector',
  dkimPrivateKey: 'dkim_private_key',
  bounceDomain: 'bounce_domain',
  deactivatedReason: 'deactivated_reason',
};

/** The password and the DKIM private key are sealed at rest (docs/secrets.md). */
export class PgEmailServerRepository implements EmailServerRepository {
  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
  ) {}

  private toEmailServer(row: EmailServerRow): EmailServer {
    return {
      id: Number(row.id),
      channelId: Number(row.channel_id),
      name: row.name,
      host: row.host,
      port: row.port,
      tls: row.tls,
      username: row.username,
      password: openNullable(this.secrets, 'email_servers.password', row.password),
      fromEmail: row.from_email,
      fromName: row.from_name,
      active: row.active,
      maxPerSecond: row.max_per_second,
      maxPerMinute: row.max_per_minute,
      maxPerHour: row.max_per_hour,
      maxPerDay: row.max_per_day,
      dkimDomain: row.dkim_domain,
      dkimSelector: row.dkim_selector,
      dkimPrivateKey: openNullable(this.secrets, 'email_servers.dkim_private_key', row.dkim_private_key),
      bounceDomain: row.bounce_domain,
      deactivatedReason: row.deactivated_reason ?? null,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  private toRow(changes: EmailServerChanges): Partial<EmailServerRow> {
    const row: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(changes) as [keyof EmailServerChanges, unknown][]) {
      if (value === undefined) continue;
      if (field === 'password' || field === 'dkimPrivateKey') {
        const purpose = field === 'password' ? 'email_servers.password' : 'email_servers.dkim_private_key';
        row[COLUMNS[field]] = value === null ? null : this.secrets.seal(purpose, value as string);
      } else {
        row[COLUMNS[field]] = value;
      }
    }
    return row as Partial<EmailServerRow>;
  }

  async create(server: NewEmailServer): Promise<EmailServer> {
    const { channelId, ...fields } = server;
    const [row] = await this.db<EmailServerRow>('email_servers')
      .insert({ channel_id: channelId, ...this.toRow(fields) })
      .returning('*');
    return this.toEmailServer(row as EmailServerRow);
  }

  async listForChannel(channelId: number): Promise<EmailServer[]> {
    const rows = await this.db<EmailServerRow>('email_servers').where({ channel_id: channelId }).orderBy('id');
    return rows.map((row) => this.toEmailServer(row as EmailServerRow));
  }

  async findById(channelId: number, id: number): Promise<EmailServer | null> {
    const row = await this.db<EmailServerRow>('email_servers').where({ channel_id: channelId, id }).first();
    return row ? this.toEmailServer(row as EmailServerRow) : null;
  }

  async update(channelId: number, id: number, changes: EmailServerChanges): Promise<EmailServer | null> {
    const [row] = await this.db<EmailServerRow>('email_servers')
      .where({ channel_id: channelId, id })
      .update({ ...this.toRow(withReason(changes)), ...this.guardReset(changes), updated_at: new Date() })
      .returning('*');
    return row ? this.toEmailServer(row as EmailServerRow) : null;
  }

  /**
   * A server a person switches on again is judged by the reputation guard on what comes after
   * (docs/reputation-guard.md): the hour it happens in and that hour's counts so far. Only when it
   * was off: `active: true` on an active server changes nothing.
   */
  private guardReset(changes: EmailServerChanges): Record<string, Knex.Raw> {
    if (changes.active !== true) return {};
    return {
      guard_reset: this.db.raw(`CASE WHEN email_servers.active THEN email_servers.guard_reset ELSE (
        SELECT jsonb_build_object('hour', h.hour, 'sent', COALESCE(SUM(r.sent), 0),
                                  'hard_bounces', COALESCE(SUM(r.hard_bounces), 0), 'complaints', COALESCE(SUM(r.complaints), 0))
          FROM (SELECT date_bin(INTERVAL '1 hour', now(), TIMESTAMPTZ 'epoch') AS hour) h
          LEFT JOIN email_server_reputation r ON r.email_server_id = email_servers.id AND r.hour = h.hour
         GROUP BY h.hour) END`),
    };
  }

  async namedByPendingBroadcast(channelId: number, id: number): Promise<boolean> {
    const row = await this.db('broadcasts')
      .where({ channel_id: channelId })
      .whereIn('status', ['future_scheduled', 'scheduled', 'queueing', 'sending', 'paused'])
      .whereRaw('? = ANY(email_server_ids)', [id])
      .first('id');
    return row !== undefined;
  }

  async delete(channelId: number, id: number): Promise<boolean> {
    return (await this.db('email_servers').where({ channel_id: channelId, id }).delete()) > 0;
  }
}

/** Switching a server on clears why the guard switched it off (docs/reputation-guard.md). */
function withReason(changes: EmailServerChanges): EmailServerChanges {
  return changes.active === true && changes.deactivatedReason === undefined ? { ...changes, deactivatedReason: null } : changes;
}

import type { ChannelSettingsChanges, ReputationStore, Standing, StoredChannelSettings } from '@mailcast/core';
import type { PauseReason, ReputationCounts, ReputationGuardSettings } from '@mailcast/domain';
import type { Knex } from 'knex';
import { AGGREGATE_SHARDS } from './pg-email-events';

interface SettingsRow {
  reputation_guard: Partial<ReputationGuardSettings>;
  from_email: string | null;
  from_name: string | null;
}

const toSettings = (row: SettingsRow): StoredChannelSettings => ({
  reputationGuard: row.reputation_guard,
  senderEmail: row.from_email,
  senderName: row.from_name,
});

const counts = (row: { sent: string | number | null; hard_bounces: string | number | null; complaints: string | number | null }) => ({
  sent: Number(row.sent ?? 0),
  hard_bounces: Number(row.hard_bounces ?? 0),
  complaints: Number(row.complaints ?? 0),
});

/**
 * The reputation guard's counters and the channel settings (docs/reputation-guard.md). Every read
 * sums a handful of counter rows by primary key; nothing recounts recipients.
 */
export class PgReputationStore implements ReputationStore {
  constructor(private readonly db: Knex) {}

  async findSettings(channelId: number): Promise<StoredChannelSettings | null> {
    const row = await this.db('channels').where({ id: channelId }).first('reputation_guard', 'from_email', 'from_name');
    return row ? toSettings(row as SettingsRow) : null;
  }

  async updateSettings(channelId: number, changes: ChannelSettingsChanges): Promise<StoredChannelSettings | null> {
    const set: Record<string, unknown> = {};
    // `||` merges in the statement: two writes of different keys at once both stay.
    if (changes.reputationGuard !== undefined)
      set.reputation_guard = this.db.raw(`reputation_guard || CAST(? AS jsonb)`, [JSON.stringify(changes.reputationGuard)]);
    if (changes.senderEmail !== undefined) set.from_email = changes.senderEmail;
    if (changes.senderName !== undefined) set.from_name = changes.senderName;
    if (Object.keys(set).length === 0) return this.findSettings(channelId);
    const [row] = await this.db('channels').where({ id: channelId }).update(set).returning(['reputation_guard', 'from_email', 'from_name']);
    return row ? toSettings(row as SettingsRow) : null;
  }

  async broadcastStanding(broadcastId: number): Promise<(Standing & { status: string; baseline: ReputationCounts | null }) | null> {
    // Sends: the statistics' processed counter (unique recipients handed to a server that answered).
    const { rows } = await this.db.raw<{
      rows: Array<{
        channel_id: number;
        status: string;
        reputation_guard: Partial<ReputationGuardSettings>;
        guard_baseline: ReputationCounts | null;
        sent: string;
        hard_bounces: string;
        complaints: string;
      }>;
    }>(
      `SELECT b.channel_id, b.status, c.reputation_guard, b.guard_baseline,
              (SELECT COALESCE(SUM(s.recipients), 0) FROM broadcast_statistics s
                WHERE s.broadcast_id = b.id AND s.counter = 'processed') AS sent,
              (SELECT COALESCE(SUM(r.hard_bounces), 0) FROM broadcast_reputation r WHERE r.broadcast_id = b.id) AS hard_bounces,
              (SELECT COALESCE(SUM(r.complaints), 0) FROM broadcast_reputation r WHERE r.broadcast_id = b.id) AS complaints
         FROM broadcasts b JOIN channels c ON c.id = b.channel_id
        WHERE b.id = :broadcastId`,
      { broadcastId },
    );
    const row = rows[0];
    if (!row) return null;
    const baseline = row.guard_baseline ? counts(row.guard_baseline) : null;
    return { channelId: Number(row.channel_id), status: row.status, settings: row.reputation_guard, counts: counts(row), baseline };
  }

  async setBaseline(broadcastId: number, baseline: ReputationCounts): Promise<void> {
    await this.db('broadcasts')
      .where({ id: broadcastId })
      .update({ guard_baseline: JSON.stringify(baseline) });
  }

  async serverStanding(serverId: number, since: Date): Promise<(Standing & { active: boolean }) | null> {
    // Hourly rows: the window starts at the hour `since` falls in (up to an hour more than 24 h).
    const { rows } = await this.db.raw<{
      rows: Array<{
        channel_id: number;
        active: boolean;
        reputation_guard: Partial<ReputationGuardSettings>;
        sent: string;
        hard_bounces: string;
        complaints: string;
      }>;
    }>(
      // A server switched on again is judged from then on: hours before the one it was switched
      // on in are left out, and that hour's counts at the time are taken off (guard_reset).
      `SELECT e.channel_id, e.active, c.reputation_guard,
              w.sent - CASE WHEN f.reset THEN COALESCE(CAST(e.guard_reset->>'sent' AS bigint), 0) ELSE 0 END AS sent,
              w.hard_bounces - CASE WHEN f.reset THEN COALESCE(CAST(e.guard_reset->>'hard_bounces' AS bigint), 0) ELSE 0 END AS hard_bounces,
              w.complaints - CASE WHEN f.reset THEN COALESCE(CAST(e.guard_reset->>'complaints' AS bigint), 0) ELSE 0 END AS complaints
         FROM email_servers e JOIN channels c ON c.id = e.channel_id
         CROSS JOIN LATERAL (
           SELECT date_bin(INTERVAL '1 hour', CAST(:since AS timestamptz), TIMESTAMPTZ 'epoch') AS window_start,
                  CAST(e.guard_reset->>'hour' AS timestamptz) AS reset_hour
         ) h
         CROSS JOIN LATERAL (SELECT COALESCE(h.reset_hour >= h.window_start, false) AS reset) f
         CROSS JOIN LATERAL (
           SELECT COALESCE(SUM(r.sent), 0) AS sent, COALESCE(SUM(r.hard_bounces), 0) AS hard_bounces, COALESCE(SUM(r.complaints), 0) AS complaints
             FROM email_server_reputation r
            WHERE r.email_server_id = e.id AND r.hour >= CASE WHEN f.reset THEN h.reset_hour ELSE h.window_start END
         ) w
        WHERE e.id = :serverId`,
      { serverId, since },
    );
    const row = rows[0];
    return row ? { channelId: Number(row.channel_id), active: row.active, settings: row.reputation_guard, counts: counts(row) } : null;
  }

  async deactivateServer(serverId: number, reason: PauseReason, at: Date): Promise<boolean> {
    const changed = await this.db('email_servers').where({ id: serverId, active: true }).update({ active: false, deactivated_reason: reason, updated_at: at });
    return changed > 0;
  }

  async countNotification(recipientId: number, kind: 'hard_bounce' | 'complaint', at: Date): Promise<{ broadcastId: number; serverId: number | null } | null> {
    const column = kind === 'hard_bounce' ? 'hard_bounces' : 'complaints';
    const { rows } = await this.db.raw<{ rows: Array<{ broadcast_id: number; email_server_id: number | null }> }>(
      `WITH r AS (SELECT id, broadcast_id, email_server_id FROM broadcast_recipients WHERE id = :recipientId),
       b AS (
         INSERT INTO broadcast_reputation AS x (broadcast_id, shard, ${column})
         SELECT broadcast_id, CAST(id % :shards AS smallint), 1 FROM r
         ON CONFLICT (broadcast_id, shard) DO UPDATE SET ${column} = x.${column} + 1
       ),
       s AS (
         INSERT INTO email_server_reputation AS y (email_server_id, hour, shard, ${column})
         SELECT email_server_id, date_bin(INTERVAL '1 hour', CAST(:at AS timestamptz), TIMESTAMPTZ 'epoch'), CAST(id % :shards AS smallint), 1
           FROM r WHERE email_server_id IS NOT NULL
         ON CONFLICT (email_server_id, hour, shard) DO UPDATE SET ${column} = y.${column} + 1
       )
       SELECT broadcast_id, email_server_id FROM r`,
      { recipientId, shards: AGGREGATE_SHARDS, at },
    );
    const row = rows[0];
    return row ? { broadcastId: Number(row.broadcast_id), serverId: row.email_server_id === null ? null : Number(row.email_server_id) } : null;
  }
}

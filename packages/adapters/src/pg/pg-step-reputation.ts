import type { StepReputationStore, StepStanding } from '@mailcast/core';
import type { PauseReason, ReputationCounts, ReputationGuardSettings } from '@mailcast/domain';
import type { Knex } from 'knex';

interface StandingRow {
  channel_id: string;
  sequence_id: string;
  paused: boolean;
  guard_baseline: ReputationCounts | null;
  reputation_guard: Partial<ReputationGuardSettings>;
  sent: string;
  hard_bounces: string;
}

/**
 * The reputation guard's figures for sequence email steps (docs/reputation-guard.md, "Sequence
 * email steps"): the step's own counters in sequence_step_statistics, `processed` (emails a
 * server answered for) and `bounced` (hard bounces), a few rows by primary key, never a recount.
 * Complaints about sequence emails are not matched to their step yet, so they count as none.
 */
export class PgStepReputationStore implements StepReputationStore {
  constructor(
    private readonly db: Knex,
    /** Told after a commit that recorded an outbox event (wakes the relays). */
    private readonly eventRecorded?: () => void,
  ) {}

  async stepStanding(stepId: number): Promise<StepStanding | null> {
    const { rows } = await this.db.raw<{ rows: StandingRow[] }>(
      `SELECT q.channel_id, q.id AS sequence_id, st.paused_at IS NOT NULL AS paused, st.guard_baseline, c.reputation_guard,
              (SELECT coalesce(sum(recipients), 0) FROM sequence_step_statistics WHERE step_id = st.id AND counter = 'processed') AS sent,
              (SELECT coalesce(sum(recipients), 0) FROM sequence_step_statistics WHERE step_id = st.id AND counter = 'bounced') AS hard_bounces
         FROM sequence_steps st JOIN sequences q ON q.id = st.sequence_id JOIN channels c ON c.id = q.channel_id
        WHERE st.id = ?`,
      [stepId],
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      channelId: Number(row.channel_id),
      sequenceId: Number(row.sequence_id),
      paused: row.paused,
      baseline: row.guard_baseline,
      settings: row.reputation_guard,
      counts: { sent: Number(row.sent), hard_bounces: Number(row.hard_bounces), complaints: 0 },
    };
  }

  async pauseStep(stepId: number, reason: PauseReason, counts: ReputationCounts, data: Record<string, unknown>, at: Date): Promise<boolean> {
    // One statement: of two dispatchers crossing together one pauses (the row's update is
    // conditional), and the event commits with the pause.
    const { rows } = await this.db.raw<{ rows: Array<{ id: string }> }>(
      `WITH paused AS (
         UPDATE sequence_steps SET paused_at = :at, pause_reason = :reason, guard_baseline = CAST(:counts AS jsonb)
          WHERE id = :stepId AND paused_at IS NULL
         RETURNING id, sequence_id
       )
       INSERT INTO events (channel_id, type, data, created_at)
       SELECT q.channel_id, 'broadcast.paused', CAST(:data AS jsonb), :at FROM paused p JOIN sequences q ON q.id = p.sequence_id
       RETURNING id`,
      { stepId, reason, counts: JSON.stringify(counts), data: JSON.stringify(data), at },
    );
    if (rows.length === 0) return false;
    this.eventRecorded?.();
    return true;
  }
}

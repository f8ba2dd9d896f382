import type { DueEnrolment, SequenceRuntimeStore, StepResult } from '@mailcast/core';
import type { StepAction, StepSettings } from '@mailcast/domain';
import type { Knex } from 'knex';
import { ENROLMENT_EVENT_DATA } from './sequence-enrolments';

/**
 * Steps the runtime does not run yet: an enrolment that reaches one waits there, due, and is
 * not claimed (docs/sequences.md, "Runtime").
 */
const NOT_RUN_YET: readonly StepAction[] = ['send_email', 'make_http_request'];

interface DueRow {
  id: number;
  sequence_id: number;
  channel_id: number;
  subscriber_id: number;
  email: string;
  step_id: number | null;
  action: StepAction | null;
  settings: StepSettings | null;
  target_sequence_id: number | null;
}

/** The step runtime's statements (SequenceRuntimeStore): leases on subscriber_sequences rows. */
export class PgSequenceRuntime implements SequenceRuntimeStore {
  constructor(
    private readonly db: Knex,
    private readonly eventRecorded?: () => void,
  ) {}

  async claimDue(request: {
    worker: string;
    afterId: number;
    limit: number;
    leaseMs: number;
    now: Date;
  }): Promise<{ items: DueEnrolment[]; lastId: number | null }> {
    const { rows } = await this.db.raw<{ rows: DueRow[] }>(
      `WITH due AS (
         SELECT e.id FROM subscriber_sequences e
           LEFT JOIN sequence_steps st ON st.id = e.current_step_id
          WHERE e.id > :afterId
            AND ((e.status = 'active' AND e.next_trigger_at <= :now) OR (e.status = 'busy' AND e.lease_until < now()))
            AND (st.action IS NULL OR st.action <> ALL (:notRun::text[]))
          ORDER BY e.id LIMIT :limit
          FOR UPDATE OF e SKIP LOCKED),
       claimed AS (
         UPDATE subscriber_sequences e
            SET status = 'busy', claimed_by = :worker, lease_until = now() + :leaseMs * interval '1 millisecond'
           FROM due WHERE e.id = due.id
         RETURNING e.id, e.sequence_id, e.channel_id, e.subscriber_id, e.current_step_id)
       SELECT c.id, c.sequence_id, c.channel_id, c.subscriber_id, s.email, st.id AS step_id, st.action, st.settings,
              st.target_sequence_id
         FROM claimed c JOIN subscribers s ON s.id = c.subscriber_id
         LEFT JOIN sequence_steps st ON st.id = c.current_step_id
        ORDER BY c.id`,
      { ...request, notRun: NOT_RUN_YET },
    );
    const items = rows.map((r): DueEnrolment => ({
      id: Number(r.id),
      sequenceId: Number(r.sequence_id),
      channelId: Number(r.channel_id),
      subscriber: { id: Number(r.subscriber_id), email: r.email },
      step:
        r.step_id === null
          ? null
          : {
              id: Number(r.step_id),
              action: r.action!,
              settings: r.settings ?? {},
              targetSequenceId: r.target_sequence_id === null ? null : Number(r.target_sequence_id),
            },
    }));
    return { items, lastId: items.at(-1)?.id ?? null };
  }

  async extendLeases(worker: string, leaseMs: number): Promise<void> {
    await this.db.raw(`UPDATE subscriber_sequences SET lease_until = now() + ? * interval '1 millisecond' WHERE claimed_by = ? AND status = 'busy'`, [
      leaseMs,
      worker,
    ]);
  }

  async release(worker: string): Promise<void> {
    await this.db.raw(`UPDATE subscriber_sequences SET status = 'active', claimed_by = NULL, lease_until = NULL WHERE claimed_by = ? AND status = 'busy'`, [
      worker,
    ]);
  }

  async markRun(enrolmentId: number, stepId: number, now: Date): Promise<boolean> {
    const { rows } = await this.db.raw<{ rows: unknown[] }>(
      `INSERT INTO sequence_step_runs (enrolment_id, step_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING RETURNING 1`,
      [enrolmentId, stepId, now],
    );
    return rows.length === 1;
  }

  async advance(enrolmentId: number, worker: string, result: StepResult, now: Date): Promise<boolean> {
    const ends = result.next === null;
    const { rows } = await this.db.raw<{ rows: Array<{ status: string }> }>(
      `UPDATE subscriber_sequences e
          SET status = CASE WHEN :ends THEN 'completed' WHEN q.active THEN 'active' ELSE 'paused' END,
              current_step_id = CASE WHEN :ends THEN e.current_step_id ELSE :nextStep::bigint END,
              next_trigger_at = CASE WHEN :ends THEN NULL ELSE :nextAt::timestamptz END,
              completed_at = CASE WHEN :ends THEN :now::timestamptz ELSE e.completed_at END,
              claimed_by = NULL, lease_until = NULL, updated_at = :now
         FROM sequences q
        WHERE e.id = :id AND e.claimed_by = :worker AND e.status = 'busy' AND q.id = e.sequence_id
       RETURNING e.status`,
      { id: enrolmentId, worker, ends, nextStep: result.next?.stepId ?? null, nextAt: result.next?.at ?? null, now },
    );
    const status = rows[0]?.status;
    if (status === undefined) return false;
    const event =
      result.movedTo !== undefined
        ? 'sequence.subscriber_moved'
        : ends
          ? 'sequence.subscriber_completed'
          : status === 'paused'
            ? 'sequence.subscriber_paused'
            : null;
    if (event !== null) {
      await this.db.raw(
        `INSERT INTO events (channel_id, type, data, created_at)
         SELECT e.channel_id, :event, ${ENROLMENT_EVENT_DATA} || :extra::jsonb, :now
           FROM subscriber_sequences e JOIN subscribers s ON s.id = e.subscriber_id WHERE e.id = :id`,
        { event, id: enrolmentId, now, extra: JSON.stringify(result.movedTo === undefined ? {} : { target_sequence_id: result.movedTo }) },
      );
      this.eventRecorded?.();
    }
    return true;
  }

  async emailFacts(enrolmentId: number): Promise<Array<{ opened: boolean; clicked: boolean }>> {
    const { rows } = await this.db.raw<{ rows: Array<{ opened: boolean; clicked: boolean }> }>(
      `SELECT bool_or(ev.type = 'opened') AS opened, bool_or(ev.type = 'clicked') AS clicked
         FROM subscriber_sequences e
         JOIN email_events ev ON ev.sequence_id = e.sequence_id AND ev.subscriber_id = e.subscriber_id AND ev.occurred_at >= e.started_at
        WHERE e.id = ?
        GROUP BY ev.sequence_step_id ORDER BY min(ev.occurred_at)`,
      [enrolmentId],
    );
    return rows;
  }
}

import type { Enrolment, Page } from '@mailcast/core';
import type { EnrolmentStatus } from '@mailcast/domain';
import type { Knex } from 'knex';

interface EnrolmentRow {
  id: number;
  sequence_id: number;
  channel_id: number;
  status: EnrolmentStatus;
  started_at: Date;
  completed_at: Date | null;
  next_trigger_at: Date | null;
  current_step_id: number | null;
  error: string | null;
  subscriber_id: number;
  email: string;
  created_at: Date;
}

const toEnrolment = (row: EnrolmentRow): Enrolment => ({
  id: Number(row.id),
  sequenceId: Number(row.sequence_id),
  channelId: Number(row.channel_id),
  status: row.status,
  startedAt: row.started_at,
  completedAt: row.completed_at,
  nextTriggerAt: row.next_trigger_at,
  currentStepId: row.current_step_id === null ? null : Number(row.current_step_id),
  error: row.error,
  subscriber: { id: Number(row.subscriber_id), email: row.email },
  createdAt: row.created_at,
});

const SELECT = `SELECT e.id, e.sequence_id, e.channel_id, e.status, e.started_at, e.completed_at, e.next_trigger_at,
       e.current_step_id, e.error, e.subscriber_id, s.email, e.created_at
  FROM subscriber_sequences e JOIN subscribers s ON s.id = e.subscriber_id`;

/** The JSON of a `sequence.subscriber_*` event from an enrolment row `e` and its subscriber `s`. */
export const ENROLMENT_EVENT_DATA = `jsonb_build_object('sequence_id', e.sequence_id, 'subscriber_sequence_id', e.id, 'status', e.status,
  'step_id', e.current_step_id, 'subscriber', jsonb_build_object('id', s.id, 'email', s.email))`;

/** Enrolment reads and writes of PgSequenceRepository. */
export class PgEnrolments {
  constructor(
    private readonly db: Knex,
    private readonly eventRecorded?: () => void,
  ) {}

  private async one(where: string, bindings: Record<string, unknown>, suffix = ''): Promise<Enrolment | null> {
    const { rows } = await this.db.raw<{ rows: EnrolmentRow[] }>(`${SELECT} WHERE ${where}${suffix}`, bindings);
    return rows[0] ? toEnrolment(rows[0]) : null;
  }

  async byId(id: number): Promise<Enrolment> {
    return (await this.one('e.id = :id', { id }))!;
  }

  find(sequenceId: number, subscriberId: number, forUpdate: boolean): Promise<Enrolment | null> {
    return this.one('e.sequence_id = :sequenceId AND e.subscriber_id = :subscriberId', { sequenceId, subscriberId }, forUpdate ? ' FOR UPDATE OF e' : '');
  }

  async insert(sequenceId: number, channelId: number, subscriberId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    const [row] = await this.db('subscriber_sequences')
      .insert({
        sequence_id: sequenceId,
        subscriber_id: subscriberId,
        channel_id: channelId,
        status,
        started_at: now,
        next_trigger_at: now,
        current_step_id: this.db('sequence_steps').where({ sequence_id: sequenceId, action: 'entry_point' }).select('id'),
        created_at: now,
        updated_at: now,
      })
      .returning('id');
    return this.byId((row as { id: number }).id);
  }

  async restart(id: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    await this.db('sequence_step_runs').where({ enrolment_id: id }).delete();
    await this.db.raw(
      `UPDATE subscriber_sequences e
          SET status = :status, started_at = :now, completed_at = NULL, next_trigger_at = :now, error = NULL, attempts = 0,
              claimed_by = NULL, lease_until = NULL, updated_at = :now,
              current_step_id = (SELECT id FROM sequence_steps WHERE sequence_id = e.sequence_id AND action = 'entry_point')
        WHERE e.id = :id`,
      { id, status, now },
    );
    return this.byId(id);
  }

  async setStatus(id: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    await this.db('subscriber_sequences').where({ id }).update({ status, next_trigger_at: null, claimed_by: null, lease_until: null, updated_at: now });
    return this.byId(id);
  }

  async list(sequenceId: number, status: EnrolmentStatus | null, page: Page): Promise<{ items: Enrolment[]; total: number }> {
    const filter = status === null ? '' : ' AND e.status = :status';
    const bindings = { sequenceId, status, limit: page.limit, offset: page.offset };
    const { rows } = await this.db.raw<{ rows: EnrolmentRow[] }>(
      `${SELECT} WHERE e.sequence_id = :sequenceId${filter} ORDER BY e.created_at DESC, e.id DESC LIMIT :limit OFFSET :offset`,
      bindings,
    );
    const { rows: counted } = await this.db.raw<{ rows: Array<{ count: number }> }>(
      `SELECT count(*)::int AS count FROM subscriber_sequences e WHERE e.sequence_id = :sequenceId${filter}`,
      bindings,
    );
    return { items: rows.map(toEnrolment), total: counted[0]!.count };
  }

  async continueAt(stepIds: readonly number[], replacement: number | null, now: Date): Promise<number> {
    if (stepIds.length === 0) return 0;
    const moved = await this.db('subscriber_sequences')
      .whereIn('current_step_id', [...stepIds])
      .whereIn('status', ['active', 'paused', 'busy'])
      .update({ current_step_id: replacement, next_trigger_at: now, updated_at: now });
    return moved;
  }

  /** One statement: the status change and one event per enrolment, however many there are. */
  async transitionAll(sequenceId: number, from: EnrolmentStatus, to: EnrolmentStatus, event: string, now: Date): Promise<number> {
    const { rows } = await this.db.raw<{ rows: Array<{ count: number }> }>(
      `WITH changed AS (
         UPDATE subscriber_sequences SET status = :to, updated_at = :now
          WHERE sequence_id = :sequenceId AND status = :from
         RETURNING *
       ), recorded AS (
         INSERT INTO events (channel_id, type, data, created_at)
         SELECT e.channel_id, :event, ${ENROLMENT_EVENT_DATA}, :now
           FROM changed e JOIN subscribers s ON s.id = e.subscriber_id ORDER BY e.id
         RETURNING 1
       )
       SELECT count(*)::int AS count FROM recorded`,
      { sequenceId, from, to, event, now },
    );
    const count = rows[0]!.count;
    if (count > 0) this.eventRecorded?.();
    return count;
  }

  /**
   * A person resumes a send_email step (docs/reputation-guard.md, "Sequence email steps"): the
   * pause is cleared and the enrolments parked at the step go on, due time kept, unless the
   * sequence itself is switched off (its own resume wakes them then).
   */
  async resumeAtStep(stepId: number, now: Date): Promise<void> {
    const { rows } = await this.db.raw<{ rows: Array<{ count: number }> }>(
      `WITH step AS (
         UPDATE sequence_steps SET paused_at = NULL, pause_reason = NULL WHERE id = :stepId RETURNING sequence_id
       ), changed AS (
         UPDATE subscriber_sequences e SET status = 'active', updated_at = :now
           FROM step, sequences q
          WHERE q.id = step.sequence_id AND q.active AND e.sequence_id = q.id AND e.current_step_id = :stepId AND e.status = 'paused'
         RETURNING e.*
       ), recorded AS (
         INSERT INTO events (channel_id, type, data, created_at)
         SELECT e.channel_id, 'sequence.subscriber_resumed', ${ENROLMENT_EVENT_DATA}, :now
           FROM changed e JOIN subscribers s ON s.id = e.subscriber_id ORDER BY e.id
         RETURNING 1
       )
       SELECT count(*)::int AS count FROM recorded`,
      { stepId, now },
    );
    if (rows[0]!.count > 0) this.eventRecorded?.();
  }
}

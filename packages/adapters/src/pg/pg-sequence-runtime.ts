import type { DueEnrolment, Sequence, SequenceRuntime, StepRecord } from '@mailcast/core';
import type { EngagementFacts, RuntimeStep, SegmentDefinition } from '@mailcast/domain';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { LEASE_UNTIL, SENDABLE, SUBSCRIBER_COLUMNS, SUPPRESSED, toSubscriber, type SubscriberRow } from './recipient-sql';
import { audiencePredicate, type SqlFragment } from './segment-sql';
import { RECEIVES_TOPIC } from './audience-sql';
import { toSequence, toStep, type SequenceRow, type StepRow } from './pg-sequence.repository';
import { commitStepRecords } from './sequence-step-records';
import { PgSequenceTracking } from './sequence-tracking';

const SECRET = 'sequences.unsubscribe_secret';

/** The segment sync's range of subscriber ids per transaction (docs/sequences.md, "init_segment_id"). */
const SYNC_SPAN = 100_000;
/** Ranges rolled back by another path's enrolment of a member, before the sync gives up this round. */
const SYNC_CONFLICT_RETRIES = 5;

// Whether the enrolment's subscriber receives its sequence's topic (true without one): the
// topic row through the sequence's primary key, judged by receives_topic (docs/sequences.md,
// "Topic and exclusions").
const RECEIVES_SEQUENCE_TOPIC = `NOT EXISTS (SELECT 1 FROM sequences q JOIN topics t ON t.id = q.topic_id
                                            WHERE q.id = e.sequence_id AND NOT ${RECEIVES_TOPIC})`;

interface ClaimedRow extends SubscriberRow {
  id: number;
  sequence_id: number;
  channel_id: number;
  current_step_id: number | null;
  next_trigger_at: Date | null;
  attempts: number;
  started_at: Date;
  sendable: boolean;
  suppressed: boolean;
  receives_topic: boolean;
  ran: boolean;
  step_paused: boolean;
}

/**
 * The sequence runtime's statements (docs/sequences.md, "Runtime"). Due work is found by time
 * on the partial index of active enrolments, and lapsed leases on the partial index of busy ones;
 * leases are set and judged in database time, due times in the application's.
 */
export class PgSequenceRuntime implements SequenceRuntime {
  constructor(
    private readonly db: Knex,
    private readonly secrets: SecretBox,
    /** Told after a commit that recorded outbox events (wakes the relays). */
    private readonly eventRecorded?: () => void,
  ) {}

  async claim(worker: string, now: Date, leaseMs: number, limit: number): Promise<DueEnrolment[]> {
    // The due rows come from mailcast_due_enrolments (migration 20261205000000_sequence_runtime_plans): in due order
    // from the partial index of active enrolments, whatever the statistics say. The step's run
    // and pause are read per claimed row through LIMIT 1 lateral probes of their
    // keys: as correlated EXISTS, the planner may instead hash all of sequence_step_runs once per
    // claim (it did, on statistics that had not caught up with a burst), which made every claim
    // read every run so far: quadratic in the enrolments due together.
    const { rows } = await this.db.raw<{ rows: ClaimedRow[] }>(
      `WITH due AS (SELECT * FROM mailcast_due_enrolments(:now, :limit)), lapsed AS (
         SELECT id, subscriber_id, current_step_id FROM subscriber_sequences WHERE lease_until <= now() AND status = 'busy'
          LIMIT :limit FOR UPDATE SKIP LOCKED
       ), picked AS (SELECT * FROM due UNION SELECT * FROM lapsed)
       UPDATE subscriber_sequences e
          SET status = 'busy', claimed_by = :worker, lease_until = ${LEASE_UNTIL}
         FROM picked p
              JOIN subscribers s ON s.id = p.subscriber_id
              LEFT JOIN LATERAL (SELECT true AS ran FROM sequence_step_runs r
                                  WHERE r.enrolment_id = p.id AND r.step_id = p.current_step_id LIMIT 1) run ON true
              -- docs/reputation-guard.md, "Sequence email steps": read with every claim, so a
              -- pause stops every dispatcher at its next claim.
              LEFT JOIN LATERAL (SELECT true AS paused FROM sequence_steps st
                                  WHERE st.id = p.current_step_id AND st.paused_at IS NOT NULL LIMIT 1) pause ON true
        WHERE e.id = p.id
       RETURNING e.id, e.sequence_id, e.channel_id, e.current_step_id, e.next_trigger_at, e.attempts, e.started_at,
                 ${SUBSCRIBER_COLUMNS}, (${SENDABLE}) AS sendable, ${SUPPRESSED} AS suppressed,
                 ${RECEIVES_SEQUENCE_TOPIC} AS receives_topic,
                 run.ran IS NOT NULL AS ran, pause.paused IS NOT NULL AS step_paused`,
      { now, limit, worker, leaseMs },
    );
    return rows
      .map((r) => ({
        id: Number(r.id),
        sequenceId: Number(r.sequence_id),
        channelId: Number(r.channel_id),
        currentStepId: r.current_step_id === null ? null : Number(r.current_step_id),
        nextTriggerAt: r.next_trigger_at,
        attempts: r.attempts,
        startedAt: r.started_at,
        sendable: r.sendable,
        suppressed: r.suppressed,
        receivesTopic: r.receives_topic,
        currentStepRan: r.ran,
        stepPaused: r.step_paused,
        subscriber: toSubscriber({ ...r, subscriber_id: Number(r.subscriber_id) }),
      }))
      .sort((a, b) => a.id - b.id);
  }

  async extendLeases(worker: string, leaseMs: number): Promise<void> {
    // Through the index of leased rows (only busy rows have a lease), as release's.
    await this.db.raw(
      `UPDATE subscriber_sequences SET lease_until = ${LEASE_UNTIL} WHERE lease_until IS NOT NULL AND claimed_by = :worker AND status = 'busy'`,
      {
        worker,
        leaseMs,
      },
    );
  }

  async release(worker: string): Promise<void> {
    await this.db.raw(
      `UPDATE subscriber_sequences SET status = 'active', claimed_by = NULL, lease_until = NULL WHERE lease_until IS NOT NULL AND claimed_by = ? AND status = 'busy'`,
      [worker],
    );
  }

  async sequence(id: number): Promise<{ sequence: Sequence; steps: RuntimeStep[] } | null> {
    const row = (await this.db('sequences').where({ id }).first('*')) as SequenceRow | undefined;
    if (row === undefined) return null;
    const steps = ((await this.db('sequence_steps').where({ sequence_id: id }).orderBy(['position', 'id']).select('*')) as StepRow[]).map(toStep);
    return {
      sequence: toSequence(row),
      steps: steps.map((s) => ({ id: s.id, action: s.action, parentId: s.parentId, branch: s.branch, settings: s.settings })),
    };
  }

  async engagement(enrolmentId: number): Promise<EngagementFacts> {
    const { rows } = await this.db.raw<{ rows: Array<Record<string, number | boolean | null>> }>(
      `WITH mine AS (
         SELECT v.sequence_step_id, v.type, v.occurred_at FROM subscriber_sequences e
           JOIN email_events v ON v.sequence_id = e.sequence_id AND v.subscriber_id = e.subscriber_id AND v.occurred_at >= e.started_at
          WHERE e.id = ?
       ), previous AS (SELECT sequence_step_id FROM mine WHERE type = 'processed' ORDER BY occurred_at DESC LIMIT 1)
       SELECT count(*) FILTER (WHERE type = 'processed')::int AS emails,
              coalesce(bool_or(type = 'opened'), false) AS any_opened, coalesce(bool_or(type = 'clicked'), false) AS any_clicked,
              coalesce(bool_or(type = 'opened' AND sequence_step_id = (SELECT sequence_step_id FROM previous)), false) AS previous_opened,
              coalesce(bool_or(type = 'clicked' AND sequence_step_id = (SELECT sequence_step_id FROM previous)), false) AS previous_clicked
         FROM mine`,
      [enrolmentId],
    );
    const r = rows[0]!;
    return {
      emails: Number(r.emails),
      anyOpened: r.any_opened === true,
      anyClicked: r.any_clicked === true,
      previousOpened: r.previous_opened === true,
      previousClicked: r.previous_clicked === true,
    };
  }

  async inSegments(channelId: number, subscriberId: number, definitions: readonly SegmentDefinition[], now: Date): Promise<boolean> {
    const audience = audiencePredicate(definitions, channelId, now);
    const { rows } = await this.db.raw<{ rows: unknown[] }>(`SELECT 1 FROM subscribers s WHERE s.id = ? AND s.channel_id = ? AND (${audience.sql})`, [
      subscriberId,
      channelId,
      ...audience.bindings,
    ]);
    return rows.length > 0;
  }

  async unsubscribeSecret(sequenceId: number, candidate: Uint8Array): Promise<Uint8Array> {
    // Read first: the write (once per sequence) would otherwise lock the row at every turn.
    const kept = (await this.db('sequences').where({ id: sequenceId }).first('unsubscribe_secret')) as { unsubscribe_secret: string | null } | undefined;
    if (kept?.unsubscribe_secret) return this.secrets.open(SECRET, kept.unsubscribe_secret);
    const { rows } = await this.db.raw<{ rows: Array<{ secret: string }> }>(
      'UPDATE sequences SET unsubscribe_secret = COALESCE(unsubscribe_secret, ?) WHERE id = ? RETURNING unsubscribe_secret AS secret',
      [this.secrets.seal(SECRET, candidate), sequenceId],
    );
    if (!rows[0]) throw new Error(`sequence ${sequenceId} does not exist`);
    return this.secrets.open(SECRET, rows[0].secret);
  }

  saveStepLinks(links: ReadonlyArray<{ stepId: number; identifier: string; url: string }>): Promise<void> {
    return new PgSequenceTracking(this.db).saveStepLinks(links);
  }

  /** A group in one statement, or a transaction when its steps have effects (docs/sequences.md, "Runtime"). */
  async record(worker: string, records: readonly StepRecord[]): Promise<number> {
    const ordered = [...records].sort((x, y) => x.enrolment.id - y.enrolment.id);
    const committed = await commitStepRecords(this.db, worker, ordered);
    if (committed > 0) this.eventRecorded?.();
    return committed;
  }

  async segmentTriggered(): Promise<Sequence[]> {
    const rows = (await this.db('sequences').where({ active: true }).whereNotNull('init_segment_id').orderBy('id').select('*')) as SequenceRow[];
    return rows.map(toSequence);
  }

  async enrolSegment(sequence: Sequence, definition: SegmentDefinition, now: Date): Promise<number> {
    const audience = audiencePredicate([definition], sequence.channelId, now);
    const { rows: bounds } = await this.db.raw<{ rows: Array<{ first: string | null; last: string | null }> }>(
      'SELECT min(id) AS first, max(id) AS last FROM subscribers WHERE channel_id = ?',
      [sequence.channelId],
    );
    if (bounds[0]!.first === null) return 0;
    const last = Number(bounds[0]!.last);
    let enrolled = 0;
    let conflicts = 0;
    for (let after = Number(bounds[0]!.first) - 1; after < last;) {
      const upto = Math.min(after + SYNC_SPAN, last);
      let batch: { count: number } | null;
      try {
        batch = await this.enrolRange(sequence, audience, after, upto, now);
      } catch (error) {
        // Another path enrolled one of this range's members since its snapshot: the range is
        // rolled back whole and read again, without that member (docs/sequences.md, "init_segment_id").
        if ((error as { code?: string }).code !== '23505' || ++conflicts > SYNC_CONFLICT_RETRIES) throw error;
        continue;
      }
      // Inactive now, or another dispatcher syncs it: that one goes on.
      if (batch === null) return enrolled;
      if (batch.count > 0) this.eventRecorded?.();
      enrolled += batch.count;
      after = upto;
    }
    return enrolled;
  }

  /**
   * One range of the segment sync, in a transaction of its own: the members whose subscriber id
   * is in (after, upto] and who are not enrolled yet get their enrolment ids up front, so the
   * enrolments and their sequence.subscriber_added outbox events are both written from the
   * range's own rows, with no ON CONFLICT (a unique violation rolls the range back: the caller
   * reads it again) and no join back to the members for the events. No nested loop: the
   * anti-join against the sequence's enrolments must not rescan the table per member (into a
   * table its statistics call empty, each rescan read every page written so far: quadratic).
   * Null when the sequence is inactive or another dispatcher holds its sync.
   */
  private async enrolRange(sequence: Sequence, audience: SqlFragment, after: number, upto: number, now: Date): Promise<{ count: number } | null> {
    return this.db.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_nestloop = off');
      const { rows } = await trx.raw<{ rows: Array<{ synced: boolean; count: number }> }>(
        `WITH entry AS MATERIALIZED (
         SELECT q.id AS sequence_id, q.channel_id, t.id AS step_id FROM sequences q
           JOIN sequence_steps t ON t.sequence_id = q.id AND t.action = 'entry_point'
          WHERE q.id = :sequenceId AND q.active AND pg_try_advisory_xact_lock(hashtext('mailcast.sequence_segment_sync'), (q.id % 2147483647)::int)
       ), members AS MATERIALIZED (
         SELECT nextval('subscriber_sequences_id_seq') AS enrolment_id, s.id, s.email FROM subscribers s
          WHERE s.channel_id = :channelId AND s.id > :after AND s.id <= :upto AND EXISTS (SELECT 1 FROM entry)
            AND ${SENDABLE} AND (:audience)
            AND NOT EXISTS (SELECT 1 FROM subscriber_sequences x
                             WHERE x.sequence_id = :sequenceId AND x.subscriber_id = s.id AND x.subscriber_id > :after AND x.subscriber_id <= :upto)
       ), joined AS (
         INSERT INTO subscriber_sequences (id, sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
         SELECT m.enrolment_id, entry.sequence_id, m.id, entry.channel_id, 'active', :now, :now, entry.step_id, :now, :now
           FROM entry, members m
       ), recorded AS (
         INSERT INTO events (channel_id, type, data, created_at)
         SELECT entry.channel_id, 'sequence.subscriber_added',
                jsonb_build_object('sequence_id', entry.sequence_id, 'subscriber_sequence_id', m.enrolment_id, 'status', 'active',
                  'step_id', entry.step_id, 'subscriber', jsonb_build_object('id', m.id, 'email', m.email)), :now
           FROM entry, members m
       )
       SELECT EXISTS (SELECT 1 FROM entry) AS synced, (SELECT count(*)::int FROM members) AS count`,
        { sequenceId: sequence.id, channelId: sequence.channelId, after, upto, now, audience: trx.raw(audience.sql, audience.bindings) },
      );
      return rows[0]!.synced ? { count: rows[0]!.count } : null;
    });
  }
}

import type { StepEffect, StepRecord } from '@mailcast/core';
import type { Knex } from 'knex';
import { AGGREGATE_SHARDS } from './pg-email-events';
import { ENROLMENT_EVENT_DATA } from './sequence-enrolments';

interface MovedRow {
  id: number;
  sequence_id: number;
  channel_id: number;
  status: string;
  current_step_id: number | null;
  subscriber_id: number;
  email: string;
}

interface BouncedRow {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  subscribed_at: Date;
  unsubscribed_at: Date | null;
  is_active: boolean;
  custom_data: Record<string, unknown>;
  source: string;
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/**
 * Commits one step's record in `trx` (docs/sequences.md, "Runtime"). The enrolment moves first,
 * and only while it is still busy under `worker`'s claim: a record whose claim was lost (its
 * lease lapsed, another dispatcher took it, the subscriber left) changes nothing else. Then the
 * step's run, the email's events and counters, the effects and the sequence.* events. Answers
 * whether it committed anything.
 */
export async function commitStepRecord(trx: Knex.Transaction, worker: string, r: StepRecord): Promise<boolean> {
  const e = r.enrolment;
  const next = r.next;
  const ended = next.status !== 'active';
  const { rows } = await trx.raw<{ rows: MovedRow[] }>(
    `UPDATE subscriber_sequences e
        SET status = CASE WHEN CAST(:status AS text) = 'active' AND (CAST(:park AS boolean) OR NOT q.active) THEN 'paused' ELSE CAST(:status AS text) END,
            current_step_id = COALESCE(CAST(:stepId AS bigint), e.current_step_id),
            next_trigger_at = CAST(:dueAt AS timestamptz), attempts = :attempts, error = CAST(:error AS text),
            completed_at = CASE WHEN CAST(:ended AS boolean) THEN CAST(:at AS timestamptz) END,
            claimed_by = NULL, lease_until = NULL, updated_at = :at
       FROM sequences q, subscribers s
      WHERE e.id = :id AND e.status = 'busy' AND e.claimed_by = :worker AND q.id = e.sequence_id AND s.id = e.subscriber_id
      RETURNING e.id, e.sequence_id, e.channel_id, e.status, e.current_step_id, s.id AS subscriber_id, s.email`,
    {
      id: e.id,
      worker,
      status: next.status,
      park: r.park === true,
      stepId: next.status === 'active' ? next.stepId : r.ranStepId,
      dueAt: next.status === 'active' ? next.dueAt : null,
      attempts: next.status === 'active' ? next.attempts : 0,
      error: next.status === 'error' ? next.error : null,
      ended,
      at: r.at,
    },
  );
  const moved = rows[0];
  if (moved === undefined) return false;
  if (r.ranStepId !== null) {
    await trx.raw('INSERT INTO sequence_step_runs (enrolment_id, step_id, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [e.id, r.ranStepId, r.at]);
  }
  const event = (type: string, extra: Record<string, unknown> = {}) =>
    trx('events').insert({
      channel_id: moved.channel_id,
      type,
      data: JSON.stringify({
        sequence_id: Number(moved.sequence_id),
        subscriber_sequence_id: Number(moved.id),
        status: moved.status,
        step_id: moved.current_step_id === null ? null : Number(moved.current_step_id),
        subscriber: { id: Number(moved.subscriber_id), email: moved.email },
        ...extra,
      }),
      created_at: r.at,
    });
  if (r.email !== undefined) await recordEmail(trx, r);
  for (const effect of r.effects) await applyEffect(trx, r, effect);
  if (moved.status === 'paused') await event('sequence.subscriber_paused');
  else if (r.movedTo !== undefined) await event('sequence.subscriber_moved', { target_sequence_id: r.movedTo });
  else if (moved.status === 'completed') await event('sequence.subscriber_completed');
  else if (moved.status === 'error') await event('sequence.subscriber_error', { error: next.status === 'error' ? next.error : null });
  return true;
}

/** The email's rows in email_events, the step's counters (sharded as the broadcasts'), and email.* events. */
async function recordEmail(trx: Knex.Transaction, r: StepRecord): Promise<void> {
  const m = r.email!;
  const e = r.enrolment;
  const kinds = [...(m.handed ? ['processed'] : []), m.kind];
  const counters = kinds.filter((k) => k !== 'failed');
  const data = (k: string) =>
    k === 'processed' ? {} : k === 'delivered' ? { response: m.reason } : k === 'bounced' ? { code: m.code, reason: m.reason } : { reason: m.reason };
  await trx('email_events').insert(
    kinds.map((k) => ({
      channel_id: e.channelId,
      subscriber_id: e.subscriber.id,
      type: k,
      occurred_at: r.at,
      data: JSON.stringify(data(k)),
      sequence_id: e.sequenceId,
      sequence_step_id: m.stepId,
    })),
  );
  if (counters.length > 0) {
    await trx.raw(
      `INSERT INTO sequence_step_statistics AS t (step_id, counter, shard, recipients, events)
       SELECT ?, c, ?, 1, 1 FROM unnest(?::text[]) AS c
       ON CONFLICT (step_id, counter, shard) DO UPDATE SET recipients = t.recipients + 1, events = t.events + 1`,
      [m.stepId, e.id % AGGREGATE_SHARDS, counters],
    );
  }
  const base = {
    receipt_id: e.id,
    email: e.subscriber.email,
    identifier: m.messageId,
    receipted_type: 'SequenceStep',
    receipted_id: m.stepId,
    delivered: m.kind === 'delivered',
    opened: false,
    clicked: false,
    bounced: m.kind === 'bounced',
    complaint: false,
    unsubscribed: false,
    opened_at: null,
    clicked_at: null,
    bounced_reason: m.kind === 'bounced' ? m.reason : null,
    complaint_reason: null,
    sequence_id: e.sequenceId,
    sequence_step_id: m.stepId,
  };
  const types = [...(m.handed ? ['email.sent'] : []), m.kind === 'delivered' ? 'email.delivered' : m.kind === 'bounced' ? 'email.bounced' : 'email.failed'];
  await trx('events').insert(
    types.map((type) => ({ channel_id: e.channelId, type, data: JSON.stringify({ ...base, delivered: type === 'email.delivered' }), created_at: r.at })),
  );
}

/**
 * A step's effect on the subscriber or another sequence. Subscriber changes are UPDATEs of the
 * subscribers row, so its trigger applies init_tag and the leaving rules as for any other writer.
 */
async function applyEffect(trx: Knex.Transaction, r: StepRecord, effect: StepEffect): Promise<void> {
  const e = r.enrolment;
  switch (effect.kind) {
    case 'add_tags':
      await trx.raw(
        `UPDATE subscribers SET tags = tags || ARRAY(SELECT t FROM unnest(?::text[]) AS t WHERE t <> ALL (tags)), updated_at = ?
          WHERE id = ? AND NOT (tags @> ?::text[])`,
        [effect.tags, r.at, e.subscriber.id, effect.tags],
      );
      return;
    case 'remove_tags':
      await trx.raw(
        `UPDATE subscribers SET tags = ARRAY(SELECT t FROM unnest(tags) AS t WHERE t <> ALL (?::text[])), updated_at = ?
          WHERE id = ? AND tags && ?::text[]`,
        [effect.tags, r.at, e.subscriber.id, effect.tags],
      );
      return;
    case 'deactivate':
      await trx.raw('UPDATE subscribers SET is_active = false, updated_at = ? WHERE id = ? AND is_active', [r.at, e.subscriber.id]);
      return;
    case 'bounce': {
      // As a broadcast's hard bounce (docs/suppressions.md): the channel's list, then deactivation.
      await trx.raw(
        `INSERT INTO suppressions (channel_id, email, reason, created_at) VALUES (?, ?, 'bounce', ?) ON CONFLICT ON CONSTRAINT suppressions_unique DO NOTHING`,
        [e.channelId, e.subscriber.email, r.at],
      );
      const { rows } = await trx.raw<{ rows: BouncedRow[] }>(
        'UPDATE subscribers SET is_active = false, updated_at = ? WHERE id = ? AND is_active RETURNING *',
        [r.at, e.subscriber.id],
      );
      const s = rows[0];
      if (s !== undefined) {
        const data = {
          subscriber_id: Number(s.id),
          email: s.email,
          first_name: s.first_name,
          last_name: s.last_name,
          subscribed_at: iso(s.subscribed_at),
          unsubscribed_at: iso(s.unsubscribed_at),
          is_active: s.is_active,
          custom_data: s.custom_data,
          source: s.source,
        };
        await trx('events').insert({ channel_id: e.channelId, type: 'subscriber.bounced', data: JSON.stringify(data), created_at: r.at });
      }
      return;
    }
    case 'move':
      await startTarget(trx, r, effect.targetSequenceId);
      return;
  }
}

/** Enrols the subscriber in the target (again, after an end); nothing when under way there. */
async function startTarget(trx: Knex.Transaction, r: StepRecord, targetId: number): Promise<void> {
  const e = r.enrolment;
  const { rows } = await trx.raw<{ rows: Array<{ id: number }> }>(
    `WITH target AS (
       SELECT q.id, q.channel_id, CASE WHEN q.active THEN 'active' ELSE 'paused' END AS status, entry.id AS entry_id
         FROM sequences q JOIN sequence_steps entry ON entry.sequence_id = q.id AND entry.action = 'entry_point'
        WHERE q.id = :targetId AND q.channel_id = :channelId
     ), cleared AS (
       DELETE FROM sequence_step_runs WHERE enrolment_id IN (
         SELECT x.id FROM subscriber_sequences x WHERE x.sequence_id = :targetId AND x.subscriber_id = :subscriberId
            AND x.status IN ('completed', 'removed', 'error'))
     )
     INSERT INTO subscriber_sequences AS x (sequence_id, subscriber_id, channel_id, status, started_at, next_trigger_at, current_step_id, created_at, updated_at)
     SELECT t.id, :subscriberId, t.channel_id, t.status, :at, :at, t.entry_id, :at, :at FROM target t
     ON CONFLICT (sequence_id, subscriber_id) DO UPDATE
        SET status = excluded.status, started_at = excluded.started_at, completed_at = NULL, next_trigger_at = excluded.next_trigger_at,
            current_step_id = excluded.current_step_id, error = NULL, attempts = 0, claimed_by = NULL, lease_until = NULL, updated_at = excluded.updated_at
      WHERE x.status IN ('completed', 'removed', 'error')
     RETURNING x.id`,
    { targetId, channelId: e.channelId, subscriberId: e.subscriber.id, at: r.at },
  );
  if (rows.length === 0) return;
  await trx.raw(
    `INSERT INTO events (channel_id, type, data, created_at)
     SELECT e.channel_id, 'sequence.subscriber_added', ${ENROLMENT_EVENT_DATA}, ?
       FROM subscriber_sequences e JOIN subscribers s ON s.id = e.subscriber_id WHERE e.id = ?`,
    [r.at, rows[0]!.id],
  );
}

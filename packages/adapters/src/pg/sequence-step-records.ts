import { sequenceEmailEventData, type SequenceEmailOutcome, type StepEffect, type StepRecord } from '@mailcast/core';
import type { Knex } from 'knex';
import { prepared } from './database';
import { AGGREGATE_SHARDS } from './pg-email-events';
import { ENROLMENT_EVENT_DATA } from './sequence-enrolments';

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
 * A group's whole record in one statement (docs/sequences.md, "Runtime"): the enrolments move,
 * each only while still busy under the worker's claim; for those that moved, the step runs, the
 * emails' events and sharded counters, and the outbox events, the emails' (email.*) first and
 * then the enrolments' (sequence.*), each in the group's order. Prepared over arrays, as a
 * broadcast's outcomes are: its plan is made once per connection. The moving rows are reached
 * by primary key from the input: "status = 'busy'" is asked as IS TRUE, which no index answers
 * (after a burst, the statistics call busy rows rare, and an index scan for them read every
 * dead entry the burst left); the input is materialized, so a plan that loops over it reads it
 * once.
 */
const RECORD_STATEMENT = `
WITH input AS MATERIALIZED (
  SELECT * FROM unnest(CAST(:ids AS bigint[]), CAST(:statuses AS text[]), CAST(:parks AS boolean[]), CAST(:holds AS boolean[]),
                       CAST(:stepIds AS bigint[]), CAST(:dueAts AS timestamptz[]), CAST(:attempts AS integer[]), CAST(:errors AS text[]),
                       CAST(:ranStepIds AS bigint[]), CAST(:ats AS timestamptz[]), CAST(:movedTo AS bigint[]))
         WITH ORDINALITY AS r(id, status, park, hold, step_id, due_at, attempts, error, ran_step_id, at, moved_to, n)
), moved AS (
  UPDATE subscriber_sequences e
     -- Parked while the sequence is off, or held at its email step while that is still paused: a
     -- step resumed since the claim leaves it active, so the resume cannot miss it
     -- (docs/reputation-guard.md, "Sequence email steps").
     SET status = CASE WHEN i.status = 'active' AND (i.park OR NOT q.active OR (i.hold AND EXISTS (
                    SELECT 1 FROM sequence_steps st WHERE st.id = i.step_id AND st.paused_at IS NOT NULL))) THEN 'paused' ELSE i.status END,
         -- The step only if it still exists: a next step deleted since the runtime read the tree
         -- (docs/sequences.md, "The step tree") leaves the enrolment at the step that ran, due at
         -- once, and its next claim advances again on the tree as it is now.
         current_step_id = COALESCE(nx.id, e.current_step_id),
         next_trigger_at = CASE WHEN i.status = 'active' AND nx.id IS NULL THEN i.at ELSE i.due_at END,
         attempts = i.attempts, error = i.error,
         completed_at = CASE WHEN i.status <> 'active' THEN i.at END,
         claimed_by = NULL, lease_until = NULL, updated_at = i.at
    FROM input i LEFT JOIN sequence_steps nx ON nx.id = i.step_id, sequences q, subscribers s
   WHERE e.id = i.id AND (e.status = 'busy') IS TRUE AND e.claimed_by = :worker
     AND q.id = e.sequence_id AND s.id = e.subscriber_id
  RETURNING e.id, e.sequence_id, e.channel_id, e.status, e.current_step_id, s.id AS subscriber_id, s.email,
            i.ran_step_id, i.at, i.moved_to, i.error, i.n
), runs AS (
  INSERT INTO sequence_step_runs (enrolment_id, step_id, created_at)
  SELECT id, ran_step_id, at FROM moved WHERE ran_step_id IS NOT NULL
  ON CONFLICT DO NOTHING
), emails AS (
  SELECT m.* FROM unnest(CAST(:emailEnrolments AS bigint[]), CAST(:emailChannels AS bigint[]), CAST(:emailSubscribers AS bigint[]),
                         CAST(:emailTypes AS text[]), CAST(:emailAts AS timestamptz[]), CAST(:emailDatas AS jsonb[]),
                         CAST(:emailSequences AS bigint[]), CAST(:emailSteps AS bigint[]))
                  AS m(enrolment_id, channel_id, subscriber_id, type, occurred_at, data, sequence_id, step_id)
   WHERE m.enrolment_id IN (SELECT id FROM moved)
), recorded AS (
  INSERT INTO email_events (channel_id, subscriber_id, type, occurred_at, data, sequence_id, sequence_step_id)
  SELECT channel_id, subscriber_id, type, occurred_at, data, sequence_id, step_id FROM emails
), counted AS (
  -- The whole group adds to one shard, as a broadcast's group does (a row per step and counter,
  -- not up to eight), in key order, so concurrent groups lock the counters in one order.
  INSERT INTO sequence_step_statistics AS t (step_id, counter, shard, recipients, events)
  SELECT step_id, type, CAST(:shard AS smallint), count(*), count(*) FROM emails WHERE type <> 'failed'
   GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (step_id, counter, shard) DO UPDATE SET recipients = t.recipients + excluded.recipients, events = t.events + excluded.events
), outbox AS (
  SELECT o.channel_id, o.type, o.data, o.created_at, 0 AS part, o.n
    FROM unnest(CAST(:outboxEnrolments AS bigint[]), CAST(:outboxChannels AS bigint[]), CAST(:outboxTypes AS text[]),
                CAST(:outboxDatas AS jsonb[]), CAST(:outboxAts AS timestamptz[]))
         WITH ORDINALITY AS o(enrolment_id, channel_id, type, data, created_at, n)
   WHERE o.enrolment_id IN (SELECT id FROM moved)
  UNION ALL
  SELECT m.channel_id, v.type,
         jsonb_build_object('sequence_id', m.sequence_id, 'subscriber_sequence_id', m.id, 'status', m.status, 'step_id', m.current_step_id,
                            'subscriber', jsonb_build_object('id', m.subscriber_id, 'email', m.email))
           || CASE WHEN m.moved_to IS NOT NULL THEN jsonb_build_object('target_sequence_id', m.moved_to)
                   WHEN m.status = 'error' THEN jsonb_build_object('error', m.error) ELSE '{}'::jsonb END,
         m.at, 1, m.n
    FROM moved m
   CROSS JOIN LATERAL (SELECT CASE WHEN m.status = 'paused' THEN 'sequence.subscriber_paused'
                                   WHEN m.moved_to IS NOT NULL THEN 'sequence.subscriber_moved'
                                   WHEN m.status = 'completed' THEN 'sequence.subscriber_completed'
                                   WHEN m.status = 'error' THEN 'sequence.subscriber_error' END AS type) v
   WHERE v.type IS NOT NULL
), announced AS (
  INSERT INTO events (channel_id, type, data, created_at)
  SELECT channel_id, type, data, created_at FROM outbox ORDER BY part, n
)
SELECT id FROM moved`;

/**
 * Commits a group of step records (docs/sequences.md, "Runtime"): the one statement above, alone
 * when no record has effects, else in a transaction with the effects of the records that moved,
 * after it. A record whose claim was lost (its lease lapsed, another dispatcher took it, the
 * subscriber left) changes nothing. Answers how many records committed.
 */
export async function commitStepRecords(db: Knex, worker: string, records: readonly StepRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const statement = (q: Knex | Knex.Transaction) =>
    prepared('record_sequence_steps', q.raw<{ rows: Array<{ id: string }> }>(RECORD_STATEMENT, bindings(worker, records)));
  if (records.every((r) => r.effects.length === 0)) return (await statement(db)).rows.length;
  return db.transaction(async (trx) => {
    const moved = new Set((await statement(trx)).rows.map((row) => Number(row.id)));
    for (const r of records) {
      if (!moved.has(r.enrolment.id)) continue;
      for (const effect of r.effects) await applyEffect(trx, r, effect);
    }
    return moved.size;
  });
}

/** An email's rows: email_events, and email.* outbox events. */
interface EmailRow {
  enrolment: number;
  channel: number;
  subscriber: number;
  type: string;
  at: Date;
  data: string;
  sequence: number;
  step: number;
}
interface OutboxRow {
  enrolment: number;
  channel: number;
  type: string;
  data: string;
  at: Date;
}

/** One email's email_events rows and email.* outbox events. */
function emailRows(r: StepRecord, m: SequenceEmailOutcome): { events: EmailRow[]; outbox: OutboxRow[] } {
  const e = r.enrolment;
  const dataOf = (k: string) =>
    k === 'processed' ? {} : k === 'delivered' ? { response: m.reason } : k === 'bounced' ? { code: m.code, reason: m.reason } : { reason: m.reason };
  const events = [...(m.handed ? ['processed'] : []), m.kind].map((type) => ({
    enrolment: e.id,
    channel: e.channelId,
    subscriber: e.subscriber.id,
    type,
    at: r.at,
    // The outcome's row keeps the Message-ID, for the subscriber's history (docs/subscribers.md, "History").
    data: JSON.stringify(type === 'processed' ? dataOf(type) : { ...dataOf(type), message_id: m.messageId }),
    sequence: e.sequenceId,
    step: m.stepId,
  }));
  const base = sequenceEmailEventData({
    enrolmentId: e.id,
    sequenceId: e.sequenceId,
    stepId: m.stepId,
    email: e.subscriber.email,
    messageId: m.messageId,
    delivered: false,
    bouncedReason: m.kind === 'bounced' ? m.reason : null,
  });
  const outcome = m.kind === 'delivered' ? 'email.delivered' : m.kind === 'bounced' ? 'email.bounced' : 'email.failed';
  const outbox = [...(m.handed ? ['email.sent'] : []), outcome].map((type) => ({
    enrolment: e.id,
    channel: e.channelId,
    type,
    data: JSON.stringify({ ...base, delivered: type === 'email.delivered' }),
    at: r.at,
  }));
  return { events, outbox };
}

/** The statement's arrays: one entry per record, per email event row, and per email.* outbox event. */
function bindings(worker: string, records: readonly StepRecord[]) {
  const moves = records.map((r) => {
    const next = r.next;
    const active = next.status === 'active';
    return {
      id: r.enrolment.id,
      status: next.status,
      park: r.park === true,
      hold: r.holdAtPausedStep === true,
      stepId: active ? next.stepId : r.ranStepId,
      dueAt: active ? next.dueAt : null,
      attempts: active ? next.attempts : 0,
      error: next.status === 'error' ? next.error : null,
      ranStepId: r.ranStepId,
      at: r.at,
      movedTo: r.movedTo ?? null,
    };
  });
  const emails = records.flatMap((r) => (r.email === undefined ? [] : [emailRows(r, r.email)]));
  const events = emails.flatMap((x) => x.events);
  const outbox = emails.flatMap((x) => x.outbox);
  const column = <T, K extends keyof T>(rows: readonly T[], key: K) => rows.map((row) => row[key]);
  return {
    worker,
    shard: records[0]!.enrolment.id % AGGREGATE_SHARDS,
    ids: column(moves, 'id'),
    statuses: column(moves, 'status'),
    parks: column(moves, 'park'),
    holds: column(moves, 'hold'),
    stepIds: column(moves, 'stepId'),
    dueAts: column(moves, 'dueAt'),
    attempts: column(moves, 'attempts'),
    errors: column(moves, 'error'),
    ranStepIds: column(moves, 'ranStepId'),
    ats: column(moves, 'at'),
    movedTo: column(moves, 'movedTo'),
    emailEnrolments: column(events, 'enrolment'),
    emailChannels: column(events, 'channel'),
    emailSubscribers: column(events, 'subscriber'),
    emailTypes: column(events, 'type'),
    emailAts: column(events, 'at'),
    emailDatas: column(events, 'data'),
    emailSequences: column(events, 'sequence'),
    emailSteps: column(events, 'step'),
    outboxEnrolments: column(outbox, 'enrolment'),
    outboxChannels: column(outbox, 'channel'),
    outboxTypes: column(outbox, 'type'),
    outboxDatas: column(outbox, 'data'),
    outboxAts: column(outbox, 'at'),
  };
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

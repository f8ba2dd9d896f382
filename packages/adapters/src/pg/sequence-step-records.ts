import { sequenceEmailEventData, type StepEffect, type StepRecord } from '@mailcast/core';
import type { Knex } from 'knex';
import { prepared } from './database';
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

/** A group's enrolment moves and step runs in one statement: only rows still busy under the worker's claim move. */
const MOVE_STATEMENT = `
WITH input AS (
  SELECT * FROM jsonb_to_recordset(:records::jsonb) AS r(
    id bigint, status text, park boolean, hold boolean, step_id bigint, due_at timestamptz, attempts int, error text, ended boolean, ran_step_id bigint, at timestamptz)
), moved AS (
  UPDATE subscriber_sequences e
     -- Parked while the sequence is off, or held at its email step while that is still paused: a
     -- step resumed since the claim leaves it active, so the resume cannot miss it
     -- (docs/reputation-guard.md, "Sequence email steps").
     SET status = CASE WHEN i.status = 'active' AND (i.park OR NOT q.active OR (i.hold AND EXISTS (
                    SELECT 1 FROM sequence_steps st WHERE st.id = i.step_id AND st.paused_at IS NOT NULL))) THEN 'paused' ELSE i.status END,
         current_step_id = COALESCE(i.step_id, e.current_step_id),
         next_trigger_at = i.due_at, attempts = i.attempts, error = i.error,
         completed_at = CASE WHEN i.ended THEN i.at END,
         claimed_by = NULL, lease_until = NULL, updated_at = i.at
    FROM input i, sequences q, subscribers s
   WHERE e.id = i.id AND e.status = 'busy' AND e.claimed_by = :worker AND q.id = e.sequence_id AND s.id = e.subscriber_id
  RETURNING e.id, e.sequence_id, e.channel_id, e.status, e.current_step_id, s.id AS subscriber_id, s.email, i.ran_step_id, i.at
), runs AS (
  INSERT INTO sequence_step_runs (enrolment_id, step_id, created_at)
  SELECT id, ran_step_id, at FROM moved WHERE ran_step_id IS NOT NULL
  ON CONFLICT DO NOTHING
)
SELECT id, sequence_id, channel_id, status, current_step_id, subscriber_id, email FROM moved`;

/**
 * Commits a group of step records in `trx` (docs/sequences.md, "Runtime"). The enrolments move
 * first, each only while still busy under `worker`'s claim: a record whose claim was lost (its
 * lease lapsed, another dispatcher took it, the subscriber left) changes nothing else. Then, for
 * those that moved, the emails' events and counters and the effects, in order, and last the
 * sequence.* events. Answers how many records committed.
 */
export async function commitStepRecords(trx: Knex.Transaction, worker: string, records: readonly StepRecord[]): Promise<number> {
  if (records.length === 0) return 0;
  const input = records.map((r) => {
    const next = r.next;
    return {
      id: r.enrolment.id,
      status: next.status,
      park: r.park === true,
      hold: r.holdAtPausedStep === true,
      step_id: next.status === 'active' ? next.stepId : r.ranStepId,
      due_at: next.status === 'active' ? next.dueAt.toISOString() : null,
      attempts: next.status === 'active' ? next.attempts : 0,
      error: next.status === 'error' ? next.error : null,
      ended: next.status !== 'active',
      ran_step_id: r.ranStepId,
      at: r.at.toISOString(),
    };
  });
  const { rows } = await trx.raw<{ rows: MovedRow[] }>(MOVE_STATEMENT, { records: JSON.stringify(input), worker });
  const moved = new Map(rows.map((row) => [Number(row.id), row]));
  const events: Array<Record<string, unknown>> = [];
  const emails: EmailRows = { emailEvents: [], counters: new Map(), outbox: [] };
  for (const r of records) if (r.email !== undefined && moved.has(r.enrolment.id)) emailRows(emails, r);
  await writeEmailRows(trx, emails);
  for (const r of records) {
    const row = moved.get(r.enrolment.id);
    if (row === undefined) continue;
    for (const effect of r.effects) await applyEffect(trx, r, effect);
    const type =
      row.status === 'paused'
        ? 'sequence.subscriber_paused'
        : r.movedTo !== undefined
          ? 'sequence.subscriber_moved'
          : row.status === 'completed'
            ? 'sequence.subscriber_completed'
            : row.status === 'error'
              ? 'sequence.subscriber_error'
              : null;
    if (type === null) continue;
    const extra = r.movedTo !== undefined ? { target_sequence_id: r.movedTo } : r.next.status === 'error' ? { error: r.next.error } : {};
    events.push({
      channel_id: row.channel_id,
      type,
      data: JSON.stringify({
        sequence_id: Number(row.sequence_id),
        subscriber_sequence_id: Number(row.id),
        status: row.status,
        step_id: row.current_step_id === null ? null : Number(row.current_step_id),
        subscriber: { id: Number(row.subscriber_id), email: row.email },
        ...extra,
      }),
      created_at: r.at,
    });
  }
  if (events.length > 0) await trx('events').insert(events);
  return moved.size;
}

/** The rows a group's emails add: email_events, counter increments and email.* outbox events. */
interface EmailRows {
  emailEvents: Array<{
    channel_id: number;
    subscriber_id: number;
    type: string;
    occurred_at: Date;
    data: string;
    sequence_id: number;
    sequence_step_id: number;
  }>;
  counters: Map<string, { step_id: number; counter: string; shard: number; n: number }>;
  outbox: Array<{ channel_id: number; type: string; data: string; created_at: Date }>;
}

/** One email's rows in email_events, the step's counters (sharded as the broadcasts'), and email.* events. */
function emailRows(rows: EmailRows, r: StepRecord): void {
  const m = r.email!;
  const e = r.enrolment;
  const kinds = [...(m.handed ? ['processed'] : []), m.kind];
  const data = (k: string) =>
    k === 'processed' ? {} : k === 'delivered' ? { response: m.reason } : k === 'bounced' ? { code: m.code, reason: m.reason } : { reason: m.reason };
  for (const k of kinds) {
    rows.emailEvents.push({
      channel_id: e.channelId,
      subscriber_id: e.subscriber.id,
      type: k,
      occurred_at: r.at,
      // The outcome's row keeps the Message-ID, for the subscriber's history (docs/subscribers.md, "History").
      data: JSON.stringify(k === 'processed' ? data(k) : { ...data(k), message_id: m.messageId }),
      sequence_id: e.sequenceId,
      sequence_step_id: m.stepId,
    });
    if (k === 'failed') continue;
    const shard = e.id % AGGREGATE_SHARDS;
    const key = `${m.stepId}:${k}:${shard}`;
    const counter = rows.counters.get(key) ?? { step_id: m.stepId, counter: k, shard, n: 0 };
    counter.n++;
    rows.counters.set(key, counter);
  }
  const base = sequenceEmailEventData({
    enrolmentId: e.id,
    sequenceId: e.sequenceId,
    stepId: m.stepId,
    email: e.subscriber.email,
    messageId: m.messageId,
    delivered: false,
    bouncedReason: m.kind === 'bounced' ? m.reason : null,
  });
  const types = [...(m.handed ? ['email.sent'] : []), m.kind === 'delivered' ? 'email.delivered' : m.kind === 'bounced' ? 'email.bounced' : 'email.failed'];
  for (const type of types) {
    rows.outbox.push({ channel_id: e.channelId, type, data: JSON.stringify({ ...base, delivered: type === 'email.delivered' }), created_at: r.at });
  }
}

/**
 * A group's email rows in one prepared statement over arrays, as a broadcast's outcomes are
 * written (docs/sequences.md, "Rendering"): a multi-row INSERT built per group cost the event
 * loop its bindings and PostgreSQL a plan each time. Counters in key order, so concurrent groups
 * lock them in one order; outbox events in the group's order.
 */
async function writeEmailRows(trx: Knex.Transaction, rows: EmailRows): Promise<void> {
  if (rows.emailEvents.length === 0) return;
  const counters = [...rows.counters.values()].sort((a, b) => a.step_id - b.step_id || a.counter.localeCompare(b.counter) || a.shard - b.shard);
  const events = rows.emailEvents;
  await prepared(
    'record_sequence_emails',
    trx.raw(
      `WITH recorded AS (
         INSERT INTO email_events (channel_id, subscriber_id, type, occurred_at, data, sequence_id, sequence_step_id)
         SELECT * FROM unnest(CAST(:channels AS bigint[]), CAST(:subscribers AS bigint[]), CAST(:types AS text[]),
                              CAST(:ats AS timestamptz[]), CAST(:datas AS jsonb[]), CAST(:sequences AS bigint[]), CAST(:steps AS bigint[]))
       ), counted AS (
         INSERT INTO sequence_step_statistics AS t (step_id, counter, shard, recipients, events)
         SELECT c.step_id, c.counter, c.shard, c.n, c.n
           FROM unnest(CAST(:counterSteps AS bigint[]), CAST(:counterNames AS text[]), CAST(:counterShards AS smallint[]), CAST(:counterNs AS bigint[]))
                WITH ORDINALITY AS c(step_id, counter, shard, n, o)
          ORDER BY c.o
         ON CONFLICT (step_id, counter, shard) DO UPDATE SET recipients = t.recipients + excluded.recipients, events = t.events + excluded.events
       )
       INSERT INTO events (channel_id, type, data, created_at)
       SELECT o.channel_id, o.type, o.data, o.created_at
         FROM unnest(CAST(:outboxChannels AS bigint[]), CAST(:outboxTypes AS text[]), CAST(:outboxDatas AS jsonb[]), CAST(:outboxAts AS timestamptz[]))
              WITH ORDINALITY AS o(channel_id, type, data, created_at, n)
        ORDER BY o.n`,
      {
        channels: events.map((e) => e.channel_id),
        subscribers: events.map((e) => e.subscriber_id),
        types: events.map((e) => e.type),
        ats: events.map((e) => e.occurred_at),
        datas: events.map((e) => e.data),
        sequences: events.map((e) => e.sequence_id),
        steps: events.map((e) => e.sequence_step_id),
        counterSteps: counters.map((c) => c.step_id),
        counterNames: counters.map((c) => c.counter),
        counterShards: counters.map((c) => c.shard),
        counterNs: counters.map((c) => c.n),
        outboxChannels: rows.outbox.map((o) => o.channel_id),
        outboxTypes: rows.outbox.map((o) => o.type),
        outboxDatas: rows.outbox.map((o) => o.data),
        outboxAts: rows.outbox.map((o) => o.created_at),
      },
    ),
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

import type {
  Enrolment,
  NewSequenceStep,
  Page,
  Sequence,
  SequenceChanges,
  SequenceCounts,
  SequenceRepository,
  SequenceSettings,
  SequenceStep,
  StepStatistics,
  SequenceEngagement,
  SubscriberSnapshot,
  TrackedSequenceEmail,
} from '@mailcast/core';
import type { EnrolmentStatus, PauseReason, StepAction, StepSettings } from '@mailcast/domain';
import type { Knex } from 'knex';
import type { SecretBox } from '../secrets/secret-box';
import { PgEnrolments } from './sequence-enrolments';
import { PgSequenceTracking } from './sequence-tracking';

export interface SequenceRow {
  id: number;
  channel_id: number;
  label: string;
  active: boolean;
  track_opens: boolean;
  track_clicks: boolean;
  use_any_email_server: boolean;
  email_server_ids: Array<string | number>;
  init_tag: string | null;
  init_segment_id: number | null;
  topic_id: number | null;
  excluded_segment_ids: Array<string | number>;
  parent_sequence_id: number | null;
  created_at: Date;
  updated_at: Date;
}

export interface StepRow {
  id: number;
  sequence_id: number;
  parent_id: number | null;
  action: StepAction;
  label: string | null;
  branch: boolean | null;
  position: number;
  template_id: number | null;
  target_sequence_id: number | null;
  settings: StepSettings;
  created_at: Date;
  updated_at: Date;
  paused_at?: Date | null;
  pause_reason?: PauseReason | null;
}

const nullableId = (v: number | null) => (v === null ? null : Number(v));

export const toSequence = (row: SequenceRow): Sequence => ({
  id: Number(row.id),
  channelId: Number(row.channel_id),
  label: row.label,
  active: row.active,
  trackOpens: row.track_opens,
  trackClicks: row.track_clicks,
  useAnyEmailServer: row.use_any_email_server,
  emailServerIds: row.email_server_ids.map(Number),
  initTag: row.init_tag,
  initSegmentId: nullableId(row.init_segment_id),
  topicId: nullableId(row.topic_id),
  excludedSegmentIds: row.excluded_segment_ids.map(Number),
  parentSequenceId: nullableId(row.parent_sequence_id),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

const sequenceColumns = (s: SequenceChanges): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  if (s.label !== undefined) out.label = s.label;
  if (s.active !== undefined) out.active = s.active;
  if (s.trackOpens !== undefined) out.track_opens = s.trackOpens;
  if (s.trackClicks !== undefined) out.track_clicks = s.trackClicks;
  if (s.useAnyEmailServer !== undefined) out.use_any_email_server = s.useAnyEmailServer;
  if (s.emailServerIds !== undefined) out.email_server_ids = s.emailServerIds;
  if (s.initTag !== undefined) out.init_tag = s.initTag;
  if (s.initSegmentId !== undefined) out.init_segment_id = s.initSegmentId;
  if (s.topicId !== undefined) out.topic_id = s.topicId;
  if (s.excludedSegmentIds !== undefined) out.excluded_segment_ids = s.excludedSegmentIds;
  if (s.parentSequenceId !== undefined) out.parent_sequence_id = s.parentSequenceId;
  return out;
};

/** The two ids a step may point at are columns (foreign keys); the other fields are jsonb. */
export const toStep = (row: StepRow): SequenceStep => {
  const settings: StepSettings = { ...row.settings };
  if (row.action === 'send_email') settings.template_id = nullableId(row.template_id);
  if (row.action === 'move_to_sequence' && row.target_sequence_id !== null) settings.target_sequence_id = Number(row.target_sequence_id);
  return {
    id: Number(row.id),
    sequenceId: Number(row.sequence_id),
    action: row.action,
    label: row.label,
    parentId: nullableId(row.parent_id),
    branch: row.branch,
    position: row.position,
    settings,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    pausedAt: row.paused_at ?? null,
    pauseReason: row.pause_reason ?? null,
  };
};

const stepColumns = (settings: StepSettings) => {
  const { template_id, target_sequence_id, ...rest } = settings;
  return { template_id: template_id ?? null, target_sequence_id: target_sequence_id ?? null, settings: JSON.stringify(rest) };
};

/** Which event kinds count for which figure of a send_email step (docs/sequences.md, "Statistics"). */
const STATISTIC_COUNTERS: Record<keyof StepStatistics, string> = {
  sent: 'processed',
  delivered: 'delivered',
  opens: 'opened',
  clicks: 'clicked',
  bounces: 'bounced',
  unsubscribes: 'unsubscribed',
};

export class PgSequenceRepository implements SequenceRepository {
  private readonly enrolmentRows: PgEnrolments;
  private readonly tracking: PgSequenceTracking;

  constructor(
    private readonly db: Knex,
    eventRecorded?: () => void,
    secrets?: SecretBox,
  ) {
    this.enrolmentRows = new PgEnrolments(db, eventRecorded);
    this.tracking = new PgSequenceTracking(db, secrets);
  }

  async create(channelId: number, settings: SequenceSettings, now: Date): Promise<Sequence> {
    const [row] = await this.db('sequences')
      .insert({ channel_id: channelId, ...sequenceColumns(settings), created_at: now, updated_at: now })
      .returning('*');
    const sequence = toSequence(row as SequenceRow);
    await this.db('sequence_steps').insert({ sequence_id: sequence.id, action: 'entry_point', position: 0, created_at: now, updated_at: now });
    return sequence;
  }

  async findById(channelId: number, id: number, options: { forUpdate?: boolean } = {}): Promise<Sequence | null> {
    const query = this.db('sequences').where({ channel_id: channelId, id }).first('*');
    const row = (await (options.forUpdate ? query.forUpdate() : query)) as SequenceRow | undefined;
    return row ? toSequence(row) : null;
  }

  async channelOf(id: number): Promise<number | null> {
    const row = (await this.db('sequences').where({ id }).first('channel_id')) as { channel_id: number } | undefined;
    return row === undefined ? null : Number(row.channel_id);
  }

  async existing(channelId: number, ids: readonly number[]): Promise<number[]> {
    if (ids.length === 0) return [];
    const rows = (await this.db('sequences')
      .where({ channel_id: channelId })
      .whereIn('id', [...ids])
      .select('id')) as Array<{ id: number }>;
    return rows.map((r) => Number(r.id));
  }

  async list(channelId: number, page: Page): Promise<{ items: Sequence[]; total: number }> {
    const rows = (await this.db('sequences')
      .where({ channel_id: channelId })
      .select('*')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(page.limit)
      .offset(page.offset)) as SequenceRow[];
    const count = await this.db('sequences').where({ channel_id: channelId }).count<{ count: number }[]>({ count: '*' }).first();
    return { items: rows.map(toSequence), total: Number(count?.count ?? 0) };
  }

  async counts(ids: readonly number[]): Promise<Map<number, SequenceCounts>> {
    if (ids.length === 0) return new Map();
    const { rows } = await this.db.raw<{ rows: Array<{ id: number; subscribers: number; steps: number }> }>(
      `SELECT q.id,
              (SELECT count(*)::int FROM subscriber_sequences e WHERE e.sequence_id = q.id AND e.status IN ('active', 'paused', 'busy')) AS subscribers,
              (SELECT count(*)::int FROM sequence_steps t WHERE t.sequence_id = q.id AND t.action NOT IN ('entry_point', 'condition_branch')) AS steps
         FROM unnest(?::bigint[]) AS q(id)`,
      [[...ids]],
    );
    return new Map(rows.map((r) => [Number(r.id), { subscribersCount: r.subscribers, stepsCount: r.steps }]));
  }

  async update(channelId: number, id: number, changes: SequenceChanges, now: Date): Promise<Sequence> {
    const [row] = await this.db('sequences')
      .where({ channel_id: channelId, id })
      .update({ ...sequenceColumns(changes), updated_at: now })
      .returning('*');
    return toSequence(row as SequenceRow);
  }

  /**
   * The sequence, and with it its steps, enrolments and their step runs; then its email events,
   * which have no key to it (migration 20261205100000_sequence_email_keys): a second statement,
   * so it also sees a step record that committed while the first waited on its enrolment.
   */
  async delete(channelId: number, id: number): Promise<void> {
    const deleted = await this.db('sequences').where({ channel_id: channelId, id }).delete();
    if (deleted > 0) await this.db('email_events').where({ sequence_id: id }).delete();
  }

  async movingInto(channelId: number, id: number): Promise<number[]> {
    const rows = (await this.db('sequence_steps as t')
      .join('sequences as q', 'q.id', 't.sequence_id')
      .where({ 'q.channel_id': channelId, 't.target_sequence_id': id })
      .whereNot('t.sequence_id', id)
      .distinct('t.sequence_id')
      .orderBy('t.sequence_id')) as Array<{ sequence_id: number }>;
    return rows.map((r) => Number(r.sequence_id));
  }

  async usesTemplate(channelId: number, templateId: number): Promise<boolean> {
    const row = await this.db('sequence_steps as t')
      .join('sequences as q', 'q.id', 't.sequence_id')
      .where({ 'q.channel_id': channelId, 't.template_id': templateId })
      .first('t.id');
    return row !== undefined;
  }

  async steps(sequenceId: number): Promise<SequenceStep[]> {
    const rows = (await this.db('sequence_steps').where({ sequence_id: sequenceId }).orderBy(['position', 'id']).select('*')) as StepRow[];
    return rows.map(toStep);
  }

  async insertStep(step: NewSequenceStep, now: Date): Promise<SequenceStep> {
    const [row] = await this.db('sequence_steps')
      .insert({
        sequence_id: step.sequenceId,
        parent_id: step.parentId,
        action: step.action,
        label: step.label,
        branch: step.branch,
        position: step.position,
        ...stepColumns(step.settings),
        created_at: now,
        updated_at: now,
      })
      .returning('*');
    return toStep(row as StepRow);
  }

  async updateStep(stepId: number, changes: Pick<SequenceStep, 'label' | 'settings'>, now: Date): Promise<void> {
    await this.db('sequence_steps')
      .where({ id: stepId })
      .update({ label: changes.label, ...stepColumns(changes.settings), updated_at: now });
  }

  async setStepPaused(stepId: number, paused: boolean, now: Date): Promise<void> {
    if (paused) {
      await this.db('sequence_steps').where({ id: stepId }).update({ paused_at: now, pause_reason: null });
      return;
    }
    await this.enrolmentRows.resumeAtStep(stepId, now);
  }

  async reshape(changes: ReadonlyArray<{ id: number; parentId: number | null; position: number }>, removed: readonly number[], now: Date): Promise<void> {
    if (changes.length > 0) {
      await this.db.raw(
        `UPDATE sequence_steps t SET parent_id = c.parent_id, position = c.position, updated_at = :now
           FROM jsonb_to_recordset(:changes::jsonb) AS c(id bigint, parent_id bigint, position int)
          WHERE t.id = c.id`,
        { now, changes: JSON.stringify(changes.map((c) => ({ id: c.id, parent_id: c.parentId, position: c.position }))) },
      );
    }
    if (removed.length === 0) return;
    await this.db('sequence_steps')
      .whereIn('id', [...removed])
      .delete();
    // What the keys did (migrations 20261205100000_sequence_email_keys and
    // 20261205200000_enrolment_keys): the steps' runs go, the enrolments that ended on them name
    // no step, and their email events stay with the sequence but name no step.
    await this.db('subscriber_sequences')
      .whereIn('current_step_id', [...removed])
      .update({ current_step_id: null });
    await this.db('sequence_step_runs')
      .whereIn('step_id', [...removed])
      .delete();
    await this.db('email_events')
      .whereIn('sequence_step_id', [...removed])
      .update({ sequence_step_id: null });
  }

  async stepStatistics(stepIds: readonly number[]): Promise<Map<number, StepStatistics>> {
    const rows = (await this.db('sequence_step_statistics')
      .whereIn('step_id', [...stepIds])
      .groupBy('step_id', 'counter')
      .select('step_id', 'counter', this.db.raw('sum(recipients)::bigint AS recipients'))) as Array<{ step_id: number; counter: string; recipients: number }>;
    const out = new Map<number, StepStatistics>();
    for (const id of stepIds) out.set(id, { sent: 0, delivered: 0, opens: 0, clicks: 0, bounces: 0, unsubscribes: 0 });
    for (const row of rows) {
      const figures = out.get(Number(row.step_id))!;
      for (const [figure, counter] of Object.entries(STATISTIC_COUNTERS)) {
        if (counter === row.counter) figures[figure as keyof StepStatistics] = Number(row.recipients);
      }
    }
    return out;
  }

  continueAt(stepIds: readonly number[], replacement: number | null, now: Date): Promise<number> {
    return this.enrolmentRows.continueAt(stepIds, replacement, now);
  }

  findEnrolment(sequenceId: number, subscriberId: number, options: { forUpdate?: boolean } = {}): Promise<Enrolment | null> {
    return this.enrolmentRows.find(sequenceId, subscriberId, options.forUpdate === true);
  }

  enrol(sequence: Sequence, subscriberId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    return this.enrolmentRows.insert(sequence.id, sequence.channelId, subscriberId, status, now);
  }

  restart(enrolmentId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    return this.enrolmentRows.restart(enrolmentId, status, now);
  }

  setStatus(enrolmentId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment> {
    return this.enrolmentRows.setStatus(enrolmentId, status, now);
  }

  enrolments(sequenceId: number, status: EnrolmentStatus | null, page: Page): Promise<{ items: Enrolment[]; total: number }> {
    return this.enrolmentRows.list(sequenceId, status, page);
  }

  transitionAll(
    sequenceId: number,
    from: EnrolmentStatus,
    to: EnrolmentStatus,
    event: 'sequence.subscriber_paused' | 'sequence.subscriber_resumed',
    now: Date,
  ): Promise<number> {
    return this.enrolmentRows.transitionAll(sequenceId, from, to, event, now);
  }

  findUnsubscribeTarget(
    enrolmentId: number,
  ): Promise<{ channelId: number; sequenceId: number; subscriber: SubscriberSnapshot; secret: Uint8Array | null } | null> {
    return this.tracking.findUnsubscribeTarget(enrolmentId);
  }

  recordUnsubscribe(t: { channelId: number; sequenceId: number; subscriberId: number; enrolmentId: number; stepId: number }, at: Date): Promise<void> {
    return this.tracking.recordUnsubscribe(t, at);
  }

  findTrackedEmail(enrolmentId: number, stepId: number): Promise<TrackedSequenceEmail | null> {
    return this.tracking.findTrackedEmail(enrolmentId, stepId);
  }

  findStepLink(stepId: number, identifier: string): Promise<{ id: number; url: string } | null> {
    return this.tracking.findStepLink(stepId, identifier);
  }

  markEmailEngaged(t: TrackedSequenceEmail, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<{ first: boolean } | null> {
    return this.tracking.markEmailEngaged(t, kind, at, windowStart, linkId);
  }

  recordEngagement(t: TrackedSequenceEmail, event: SequenceEngagement): Promise<void> {
    return this.tracking.recordEngagement(t, event);
  }
}

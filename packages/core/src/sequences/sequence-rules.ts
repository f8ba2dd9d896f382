import type { SequenceEventData } from '@mailcast/domain';
import { NotFoundError, ValidationError } from '../errors';
import type { Enrolment, OutboxEvent, Repositories, Sequence, SequenceChanges, SequenceSettings, SequenceStep } from '../ports';

export const SEQUENCE_NOT_FOUND = 'Sequence not found';
export const STEP_NOT_FOUND = 'Step not found';
export const DEFAULT_SEQUENCE_LABEL = 'Untitled sequence';
export const MAX_SEQUENCE_LABEL = 255;
export const SEQUENCE_TARGETED = 'Sequence is the target of a move_to_sequence step of another sequence';
export const SEQUENCE_ENROLLED_BY_FORM = 'Sequence is enrolled into by an opt-in form';

export const SEQUENCE_DEFAULTS: SequenceSettings = {
  label: DEFAULT_SEQUENCE_LABEL,
  active: false,
  trackOpens: true,
  trackClicks: true,
  useAnyEmailServer: true,
  emailServerIds: [],
  initTag: null,
  initSegmentId: null,
  topicId: null,
  excludedSegmentIds: [],
  parentSequenceId: null,
};

export async function sequenceOrNotFound(r: Repositories, channelId: number, id: number, forUpdate = false): Promise<Sequence> {
  const sequence = await r.sequences.findById(channelId, id, { forUpdate });
  if (sequence === null) throw new NotFoundError(SEQUENCE_NOT_FOUND);
  return sequence;
}

/** Conditions on opens or clicks need that tracking on (docs/sequences.md, "Steps": condition). */
export function trackingNeeded(steps: readonly SequenceStep[]): { opens: boolean; clicks: boolean } {
  const settings = steps.filter((s) => s.action === 'condition').map((s) => s.settings.condition_setting ?? '');
  return { opens: settings.some((s) => s.endsWith('_opened')), clicks: settings.some((s) => s.endsWith('_clicked')) };
}

/**
 * The settings a create or update ends with, checked as a whole: every id the channel's own, a
 * way to send, no segment both a trigger and an exclusion, tracking that the conditions need.
 * `id` is the sequence being updated (undefined on create). Every problem is named by field.
 */
export async function checkedSettings(
  r: Repositories,
  channelId: number,
  next: SequenceSettings,
  changes: SequenceChanges,
  id?: number,
): Promise<SequenceSettings> {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => (errors[field] ??= []).push(message);
  const label = next.label.trim();
  if (label === '') fail('label', "can't be blank");
  if (label.length > MAX_SEQUENCE_LABEL) fail('label', `is too long (maximum is ${MAX_SEQUENCE_LABEL} characters)`);
  const initTag = next.initTag === null ? null : next.initTag.trim() === '' ? null : next.initTag.trim();

  if (!next.useAnyEmailServer && next.emailServerIds.length === 0) fail('email_server_ids', "can't be empty when use_any_email_server is false");
  if (changes.emailServerIds !== undefined && next.emailServerIds.length > 0) {
    const mine = new Set((await r.emailServers.listForChannel(channelId)).map((s) => s.id));
    const unknown = next.emailServerIds.filter((s) => !mine.has(s));
    if (unknown.length > 0) fail('email_server_ids', `include email servers that do not exist: ${unknown.join(', ')}`);
  }
  const segmentIds = [...(next.initSegmentId === null ? [] : [next.initSegmentId]), ...next.excludedSegmentIds];
  if ((changes.initSegmentId !== undefined || changes.excludedSegmentIds !== undefined) && segmentIds.length > 0) {
    const unknown = new Set((await r.broadcasts.unknownSegmentIds(channelId, segmentIds)).map(Number));
    if (next.initSegmentId !== null && unknown.has(next.initSegmentId)) fail('init_segment_id', `segment ${next.initSegmentId} does not exist`);
    const excluded = next.excludedSegmentIds.filter((s) => unknown.has(s));
    if (excluded.length > 0) fail('excluded_segment_ids', `include segments that do not exist: ${excluded.join(', ')}`);
  }
  if (next.initSegmentId !== null && next.excludedSegmentIds.includes(next.initSegmentId)) {
    fail('excluded_segment_ids', `cannot hold the trigger segment ${next.initSegmentId}`);
  }
  // docs/sequences.md, "Topic and exclusions": a topic of this channel.
  if (changes.topicId !== undefined && next.topicId !== null && !(await r.broadcasts.hasTopic(channelId, next.topicId))) {
    fail('topic_id', `topic ${next.topicId} does not exist`);
  }
  if (changes.parentSequenceId !== undefined && next.parentSequenceId !== null) {
    const found = next.parentSequenceId !== id && (await r.sequences.existing(channelId, [next.parentSequenceId])).length === 1;
    if (!found) fail('parent_sequence_id', `sequence ${next.parentSequenceId} is not another sequence of this channel`);
  }
  if (id !== undefined && ((changes.trackOpens === false && !next.trackOpens) || (changes.trackClicks === false && !next.trackClicks))) {
    const needed = trackingNeeded(await r.sequences.steps(id));
    if (!next.trackOpens && needed.opens) fail('track_opens', 'cannot be false: a condition step of this sequence depends on opens');
    if (!next.trackClicks && needed.clicks) fail('track_clicks', 'cannot be false: a condition step of this sequence depends on clicks');
  }
  if (Object.keys(errors).length > 0) throw ValidationError.forFields(errors);
  return { ...next, label, initTag, emailServerIds: [...new Set(next.emailServerIds)], excludedSegmentIds: [...new Set(next.excludedSegmentIds)] };
}

/** docs/webhooks.md: a `sequence.subscriber_*` event of one enrolment. */
export function enrolmentEvent(type: OutboxEvent['type'], e: Enrolment, now: Date): OutboxEvent {
  const data: SequenceEventData = {
    sequence_id: e.sequenceId,
    subscriber_sequence_id: e.id,
    status: e.status,
    step_id: e.currentStepId,
    subscriber: { id: e.subscriber.id, email: e.subscriber.email },
  };
  return { channelId: e.channelId, type, data, createdAt: now };
}

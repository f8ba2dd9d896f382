import type { Enrolment, Sequence, SequenceCounts, SequenceStep, StepStatistics } from '@mailcast/core';
import { STEP_FIELDS } from '@mailcast/domain';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A sequence as the API shows it (docs/sequences.md). */
export function presentSequence(s: Sequence, counts: SequenceCounts) {
  return {
    id: s.id,
    label: s.label,
    active: s.active,
    track_opens: s.trackOpens,
    track_clicks: s.trackClicks,
    use_any_email_server: s.useAnyEmailServer,
    email_server_ids: s.emailServerIds,
    init_tag: s.initTag,
    init_segment_id: s.initSegmentId,
    topic_id: s.topicId,
    excluded_segment_ids: s.excludedSegmentIds,
    parent_sequence_id: s.parentSequenceId,
    subscribers_count: counts.subscribersCount,
    steps_count: counts.stepsCount,
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

/** A step with its action's fields (null when not set), a branch's side, a send_email step's figures. */
export function presentStep(s: SequenceStep & { statistics?: StepStatistics }) {
  const settings = s.settings as Record<string, unknown>;
  const fields = Object.fromEntries(STEP_FIELDS[s.action].map((f) => [f, settings[f] ?? null]));
  return {
    id: s.id,
    sequence_id: s.sequenceId,
    action: s.action,
    label: s.label,
    parent_id: s.parentId,
    position: s.position,
    ...(s.action === 'condition_branch' ? { branch: s.branch } : {}),
    ...fields,
    ...(s.statistics !== undefined ? { statistics: s.statistics } : {}),
    // docs/reputation-guard.md, "Sequence email steps".
    ...(s.action === 'send_email' ? { paused: s.pausedAt != null, pause_reason: s.pauseReason ?? null } : {}),
    created_at: s.createdAt.toISOString(),
    updated_at: s.updatedAt.toISOString(),
  };
}

export function presentEnrolment(e: Enrolment) {
  return {
    id: e.id,
    status: e.status,
    started_at: e.startedAt.toISOString(),
    completed_at: iso(e.completedAt),
    next_trigger_at: iso(e.nextTriggerAt),
    current_step_id: e.currentStepId,
    subscriber: { id: e.subscriber.id, email: e.subscriber.email },
  };
}

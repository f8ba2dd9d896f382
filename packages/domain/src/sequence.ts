/**
 * Enrolments: one subscriber's way through one sequence (docs/sequences.md, "Enrolments").
 * `busy` is a step in flight (the runtime's lease); `completed`, `removed` and `error` are ends.
 */
export const ENROLMENT_STATUSES = ['active', 'paused', 'busy', 'completed', 'removed', 'error'] as const;
export type EnrolmentStatus = (typeof ENROLMENT_STATUSES)[number];

/** Enrolments still under way: they count in `subscribers_count` (with `busy`, which is active work). */
export const LIVE_ENROLMENT_STATUSES: readonly EnrolmentStatus[] = ['active', 'paused', 'busy'];
export const ENDED_ENROLMENT_STATUSES: readonly EnrolmentStatus[] = ['completed', 'removed', 'error'];

export const isEnrolmentStatus = (s: unknown): s is EnrolmentStatus => (ENROLMENT_STATUSES as readonly unknown[]).includes(s);

export const SEQUENCE_ALREADY_COMPLETED = 'Subscriber has already completed this sequence';

/**
 * What an add_subscriber does with the subscriber's enrolment as it stands: a new one, nothing
 * (already under way), the same row started again (`restart: true` after an end), or a refusal.
 */
export type EnrolDecision = 'create' | 'already_enrolled' | 'restart' | 'refuse';

export function decideEnrol(existing: EnrolmentStatus | null, restart: boolean): EnrolDecision {
  if (existing === null) return 'create';
  if (LIVE_ENROLMENT_STATUSES.includes(existing)) return 'already_enrolled';
  return restart ? 'restart' : 'refuse';
}

/** A sequence switched off pauses what is under way; switched on, resumes what it paused. */
export function pauseTransition(active: boolean): {
  from: EnrolmentStatus;
  to: EnrolmentStatus;
  event: 'sequence.subscriber_paused' | 'sequence.subscriber_resumed';
} {
  return active
    ? { from: 'paused', to: 'active', event: 'sequence.subscriber_resumed' }
    : { from: 'active', to: 'paused', event: 'sequence.subscriber_paused' };
}

/** docs/webhooks.md: the data of every `sequence.subscriber_*` event. */
export type SequenceEventData = {
  sequence_id: number;
  subscriber_sequence_id: number;
  status: EnrolmentStatus;
  step_id: number | null;
  subscriber: { id: number; email: string };
  target_sequence_id?: number;
  error?: string;
};

import type { EngagementFacts, RuntimeStep, SegmentDefinition } from '@mailcast/domain';
import type { Sequence } from './entities/sequence';
import type { SubscriberSnapshot } from './recipients';

/** An enrolment the runtime holds under its lease (status `busy`), with its subscriber. */
export interface DueEnrolment {
  id: number;
  sequenceId: number;
  channelId: number;
  currentStepId: number | null;
  /** When it fell due: kept when the enrolment is parked or given back. */
  nextTriggerAt: Date | null;
  /** Tries of the current step so far (an email delayed by its server, an HTTP step retried). */
  attempts: number;
  startedAt: Date;
  /** The subscriber may be sent to (active, confirmed, not redacted). */
  sendable: boolean;
  /** The address is on the channel's or the global suppression list. */
  suppressed: boolean;
  /** The subscriber receives the sequence's topic now (true when it has none): docs/sequences.md, "Topic and exclusions". */
  receivesTopic: boolean;
  /** The (enrolment, current step) pair is already in sequence_step_runs: it is not run again. */
  currentStepRan: boolean;
  /** The current step is a paused send_email step, as the claim found it (docs/reputation-guard.md). */
  stepPaused?: boolean;
  subscriber: SubscriberSnapshot;
}

/** Where the enrolment goes once its step is recorded. */
export type EnrolmentNext =
  /** Waits at `stepId` until `dueAt` (the next step, or the same one tried again). */
  { status: 'active'; stepId: number; dueAt: Date; attempts: number } | { status: 'completed' } | { status: 'error'; error: string };

/** A sequence email's outcome, for email_events, the step's counters and the email.* events. */
export interface SequenceEmailOutcome {
  stepId: number;
  messageId: string;
  kind: 'delivered' | 'bounced' | 'failed';
  /** The SMTP server answered: the email counts as sent. */
  handed: boolean;
  reason: string;
  code: number | null;
}

/** What a step does besides moving the enrolment, committed with its record. */
export type StepEffect =
  | { kind: 'add_tags'; tags: string[] }
  | { kind: 'remove_tags'; tags: string[] }
  /** The subscriber becomes inactive; the subscribers trigger removes them from every sequence. */
  | { kind: 'deactivate' }
  /** A hard bounce: the address on the channel's list, the subscriber deactivated (subscriber.bounced). */
  | { kind: 'bounce' }
  /** Starts the target sequence unless the subscriber is under way there. */
  | { kind: 'move'; targetSequenceId: number };

/** One step's result as the runtime commits it. */
export interface StepRecord {
  enrolment: DueEnrolment;
  /** The step that ran (its sequence_step_runs row); null when none did (a retry waits, a pause, the path had ended). */
  ranStepId: number | null;
  next: EnrolmentNext;
  /** The enrolment is parked: the sequence was switched off. */
  park?: boolean;
  /** Parked at its send_email step, if the step is still paused when the record commits (docs/reputation-guard.md). */
  holdAtPausedStep?: boolean;
  email?: SequenceEmailOutcome;
  effects: readonly StepEffect[];
  /** The move's target, for sequence.subscriber_moved. */
  movedTo?: number;
  at: Date;
}

/**
 * The step runtime's persistence (docs/sequences.md, "Runtime"): due enrolments found by time and
 * claimed under a lease, each step's record committed with its effects and events.
 */
export interface SequenceRuntime {
  /**
   * Claims up to `limit` enrolments, FOR UPDATE SKIP LOCKED: active and due at `now` (the
   * application clock, which set their times), or busy under a lease that lapsed in database
   * time. Each becomes busy, leased to `worker` for `leaseMs` of database time.
   */
  claim(worker: string, now: Date, leaseMs: number, limit: number): Promise<DueEnrolment[]>;
  extendLeases(worker: string, leaseMs: number): Promise<void>;
  /** What `worker` still holds goes back to active, its due time kept. */
  release(worker: string): Promise<void>;
  /** The sequence with its steps as they are now; null when deleted. */
  sequence(id: number): Promise<{ sequence: Sequence; steps: RuntimeStep[] } | null>;
  /** The opens and clicks recorded for the emails this enrolment was sent since it started. */
  engagement(enrolmentId: number): Promise<EngagementFacts>;
  /** Whether the subscriber is a member of any of the segments. */
  inSegments(channelId: number, subscriberId: number, definitions: readonly SegmentDefinition[], now: Date): Promise<boolean>;
  /** The sequence's random unsubscribe secret, created on first use (concurrent callers agree). */
  unsubscribeSecret(sequenceId: number, candidate: Uint8Array): Promise<Uint8Array>;
  /** Stores the steps' trackable links (kept ones stay), so their clicks find them (docs/sequences.md, "Tracking"). */
  saveStepLinks(links: ReadonlyArray<{ stepId: number; identifier: string; url: string }>): Promise<void>;
  /**
   * Commits each record: the enrolment moves (only while still busy under `worker`'s claim), the
   * step's run, its effects, email events and counters, and outbox events, in one transaction
   * per record. Answers how many were committed.
   */
  record(worker: string, records: readonly StepRecord[]): Promise<number>;
  /** Active sequences with an init_segment_id, for the sync. */
  segmentTriggered(): Promise<Sequence[]>;
  /**
   * Enrols, in one INSERT … SELECT, the active members of the segment never enrolled in the
   * sequence, each with sequence.subscriber_added. The number enrolled.
   */
  enrolSegment(sequence: Sequence, definition: SegmentDefinition, now: Date): Promise<number>;
}
export const SequenceRuntime = Symbol.for('mailcast.SequenceRuntime');

import type { EnrolmentStatus } from '@mailcast/domain';
import type { Page } from './entities/page';
import type { SubscriberSnapshot } from './recipients';
import type {
  Enrolment,
  NewSequenceStep,
  Sequence,
  SequenceChanges,
  SequenceCounts,
  SequenceSettings,
  SequenceStep,
  StepStatistics,
} from './entities/sequence';

/**
 * Sequences, their step trees and enrolments, scoped by channel (another channel's sequence is
 * null). Reached through a unit of work, so a tree edit, the enrolments it moves and their
 * events commit together.
 */
export interface SequenceRepository {
  /** The sequence and its entry point step. */
  create(channelId: number, settings: SequenceSettings, now: Date): Promise<Sequence>;
  /** `forUpdate` locks the row: tree edits of one sequence take turns on it. */
  findById(channelId: number, id: number, options?: { forUpdate?: boolean }): Promise<Sequence | null>;
  /** The channel of a sequence, for the operator's tools that name a sequence alone; null when none. */
  channelOf(id: number): Promise<number | null>;
  /** Those of `ids` that are sequences of the channel. */
  existing(channelId: number, ids: readonly number[]): Promise<number[]>;
  list(channelId: number, page: Page): Promise<{ items: Sequence[]; total: number }>;
  counts(ids: readonly number[]): Promise<Map<number, SequenceCounts>>;
  update(channelId: number, id: number, changes: SequenceChanges, now: Date): Promise<Sequence>;
  /** Its steps and enrolments go with it, silently. */
  delete(channelId: number, id: number): Promise<void>;
  /** Ids of the channel's other sequences with a move_to_sequence step into `id`. */
  movingInto(channelId: number, id: number): Promise<number[]>;
  /** Whether a step of any of the channel's sequences uses the template. */
  usesTemplate(channelId: number, templateId: number): Promise<boolean>;

  /** Depth-first. */
  steps(sequenceId: number): Promise<SequenceStep[]>;
  insertStep(step: NewSequenceStep, now: Date): Promise<SequenceStep>;
  updateStep(stepId: number, changes: Pick<SequenceStep, 'label' | 'settings'>, now: Date): Promise<void>;
  /**
   * A person's pause or resume of a send_email step (docs/reputation-guard.md, "Sequence email
   * steps"). A resume clears the reason and, when the sequence is on, makes the enrolments
   * parked at the step active again (due time kept), each with sequence.subscriber_resumed.
   */
  setStepPaused(stepId: number, paused: boolean, now: Date): Promise<void>;
  /** Writes new parents and positions, then removes steps (children re-attached first). */
  reshape(changes: ReadonlyArray<{ id: number; parentId: number | null; position: number }>, removed: readonly number[], now: Date): Promise<void>;
  /** By send_email step id; steps without figures yet answer zeros. */
  stepStatistics(stepIds: readonly number[]): Promise<Map<number, StepStatistics>>;
  /**
   * Enrolments waiting on any of `stepIds` continue at `replacement` (null: the end of their
   * path) and fall due now, so the runtime picks them up at once. The number moved.
   */
  continueAt(stepIds: readonly number[], replacement: number | null, now: Date): Promise<number>;

  findEnrolment(sequenceId: number, subscriberId: number, options?: { forUpdate?: boolean }): Promise<Enrolment | null>;
  /** A new enrolment at the entry point, due now. */
  enrol(sequence: Sequence, subscriberId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment>;
  /** An ended enrolment back at the entry point, its step runs forgotten. */
  restart(enrolmentId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment>;
  setStatus(enrolmentId: number, status: EnrolmentStatus, now: Date): Promise<Enrolment>;
  /** Newest first. */
  enrolments(sequenceId: number, status: EnrolmentStatus | null, page: Page): Promise<{ items: Enrolment[]; total: number }>;
  /**
   * Every enrolment of the sequence in `from` goes to `to` in one statement, each with its
   * `event` in the outbox. The number changed.
   */
  transitionAll(
    sequenceId: number,
    from: EnrolmentStatus,
    to: EnrolmentStatus,
    event: 'sequence.subscriber_paused' | 'sequence.subscriber_resumed',
    now: Date,
  ): Promise<number>;

  /** Whom a sequence email's unsubscribe token names: the enrolment's subscriber, and the sequence's link secret. */
  findUnsubscribeTarget(
    enrolmentId: number,
  ): Promise<{ channelId: number; sequenceId: number; subscriber: SubscriberSnapshot; secret: Uint8Array | null } | null>;
  /** An unsubscribe through a sequence email's link: its email event and the step's counter. */
  recordUnsubscribe(target: { channelId: number; sequenceId: number; subscriberId: number; enrolmentId: number; stepId: number }, at: Date): Promise<void>;

  /** The email of one (enrolment, step) that a tracking token names (docs/sequences.md, "Tracking"); null without the enrolment. */
  findTrackedEmail(enrolmentId: number, stepId: number): Promise<TrackedSequenceEmail | null>;
  /** A stored trackable link of the step, by its identifier. */
  findStepLink(stepId: number, identifier: string): Promise<{ id: number; url: string } | null>;
  /**
   * Records an open or click of the email on its run's row unless one of the same kind (and,
   * for clicks, the same link) was recorded since `windowStart`: null when not recorded, else
   * whether it is the email's first of its kind. One statement decides.
   */
  markEmailEngaged(email: TrackedSequenceEmail, kind: 'opened' | 'clicked', at: Date, windowStart: Date, linkId?: number): Promise<{ first: boolean } | null>;
  /** The open's or click's email event and the step's counter (a subscriber counted once per kind). */
  recordEngagement(email: TrackedSequenceEmail, event: SequenceEngagement): Promise<void>;
}

/** A sequence email as its tracking sees it. */
export interface TrackedSequenceEmail {
  channelId: number;
  sequenceId: number;
  enrolmentId: number;
  stepId: number;
  subscriber: SubscriberSnapshot;
  /** The sequence's link secret (null until its first email). */
  secret: Uint8Array | null;
  /** Whether the email's outcome is on record (its run's row); only then are opens and clicks recorded. */
  ran: boolean;
  messageId: string | null;
  deliveredAt: Date | null;
  openedAt: Date | null;
  clickedAt: Date | null;
}

export interface SequenceEngagement {
  kind: 'opened' | 'clicked';
  at: Date;
  first: boolean;
  machine: boolean;
  machineReason: string | null;
  /** Clicks: the URL. */
  url?: string;
}

import type { EnrolmentStatus, PauseReason, StepAction, StepSettings } from '@mailcast/domain';

/** A drip automation: its settings; its steps and enrolments are apart. */
export interface Sequence {
  id: number;
  channelId: number;
  label: string;
  active: boolean;
  trackOpens: boolean;
  trackClicks: boolean;
  useAnyEmailServer: boolean;
  emailServerIds: number[];
  initTag: string | null;
  initSegmentId: number | null;
  topicId: number | null;
  excludedSegmentIds: number[];
  parentSequenceId: number | null;
  createdAt: Date;
  updatedAt: Date;
}

export type SequenceSettings = Omit<Sequence, 'id' | 'channelId' | 'createdAt' | 'updatedAt'>;
export type SequenceChanges = Partial<SequenceSettings>;

/** `subscribersCount`: active and paused enrolments (busy ones are active work); `stepsCount`: steps a user made. */
export interface SequenceCounts {
  subscribersCount: number;
  stepsCount: number;
}

export interface SequenceStep {
  id: number;
  sequenceId: number;
  action: StepAction;
  label: string | null;
  parentId: number | null;
  branch: boolean | null;
  position: number;
  settings: StepSettings;
  createdAt: Date;
  updatedAt: Date;
  /** send_email steps: set while the step is paused (docs/reputation-guard.md, "Sequence email steps"). */
  pausedAt?: Date | null;
  /** Why the reputation guard paused it; null for a person's pause. */
  pauseReason?: PauseReason | null;
}

export type NewSequenceStep = Pick<SequenceStep, 'sequenceId' | 'action' | 'label' | 'parentId' | 'branch' | 'position' | 'settings'>;

/** One send_email step's figures: unique subscribers per kind. */
export interface StepStatistics {
  sent: number;
  delivered: number;
  opens: number;
  clicks: number;
  bounces: number;
  unsubscribes: number;
}

export interface Enrolment {
  id: number;
  sequenceId: number;
  channelId: number;
  status: EnrolmentStatus;
  startedAt: Date;
  completedAt: Date | null;
  nextTriggerAt: Date | null;
  currentStepId: number | null;
  error: string | null;
  subscriber: { id: number; email: string };
  createdAt: Date;
}

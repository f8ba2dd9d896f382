import type { StepAction, StepSettings } from '@mailcast/domain';

/** An enrolment claimed by the runtime, with the step it is due to run (null: its path ended). */
export interface DueEnrolment {
  id: number;
  sequenceId: number;
  channelId: number;
  subscriber: { id: number; email: string };
  step: { id: number; action: StepAction; settings: StepSettings; targetSequenceId: number | null } | null;
}

/** What running one step decided, committed by `advance`. */
export interface StepResult {
  /** The step that ran (null: the enrolment had no step left). */
  stepId: number | null;
  /** The next step and when it may run; null: the path ends here (completed). */
  next: { stepId: number; at: Date } | null;
  /** move_to_sequence: the enrolment ends here as moved, and starts in the target. */
  movedTo?: number;
}

/**
 * The step runtime's statements (docs/sequences.md, "Runtime"). Claims are leases: `busy` with
 * the worker's name until `lease_until`; a lapsed one is due again. Every write is conditional
 * on the claim still being the worker's, so a step whose lease lapsed is never recorded twice.
 */
export interface SequenceRuntimeStore {
  /**
   * Claims up to `limit` due enrolments past `afterId` (active with next_trigger_at reached, or
   * busy with a lapsed lease) whose step the runtime runs, in id order, each for `leaseMs`.
   */
  claimDue(request: { worker: string; afterId: number; limit: number; leaseMs: number; now: Date }): Promise<{ items: DueEnrolment[]; lastId: number | null }>;
  extendLeases(worker: string, leaseMs: number): Promise<void>;
  /** Claims the worker still holds go back to `active`, due as they were. */
  release(worker: string): Promise<void>;
  /**
   * Records that `stepId` ran for the enrolment (once: false when it had run already, and then
   * nothing else may be written for it).
   */
  markRun(enrolmentId: number, stepId: number, now: Date): Promise<boolean>;
  /**
   * Moves a claimed enrolment on (or ends it) and records its events, unless the claim is no
   * longer the worker's (removed meanwhile, lease lapsed). A switched-off sequence parks it
   * `paused`. False when nothing was written.
   */
  advance(enrolmentId: number, worker: string, result: StepResult, now: Date): Promise<boolean>;
  /** The enrolment's emails so far, oldest first: whether each was opened, clicked. */
  emailFacts(enrolmentId: number): Promise<Array<{ opened: boolean; clicked: boolean }>>;
}

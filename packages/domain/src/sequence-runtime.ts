import { offsetAt, wallClockToInstant } from './broadcast';
import type { ConditionSetting, StepAction, StepSettings } from './sequence-step';

/**
 * The step runtime's rules (docs/sequences.md, "Runtime"): when an enrolment arriving at a step
 * may run it, which step follows, and what a condition decides. Time comes in as arguments.
 */

/** A step as the runtime walks it. */
export interface RuntimeStep {
  id: number;
  action: StepAction;
  parentId: number | null;
  branch: boolean | null;
  settings: StepSettings;
}

const DAY_MS = 86_400_000;

/**
 * "HH:MM" in `timezone` on the day after `arrivedAt`'s date there. The offset is read with
 * Intl under the en-US locale, never the process default (which Intl may refuse).
 */
export function nextDayAt(time: string, timezone: string, arrivedAt: Date): Date {
  const [hours, minutes] = time.split(':').map(Number) as [number, number];
  // The wall clock at arrival, encoded as if it were UTC: its date is the local date.
  const local = new Date(arrivedAt.getTime() + offsetAt(timezone, arrivedAt.getTime()));
  const next = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), hours, minutes) + DAY_MS;
  return new Date(wallClockToInstant(next, timezone));
}

/**
 * When an enrolment that reached `step` at `arrivedAt` runs it: a delay (or a condition's delay)
 * counts from the arrival, with the step's settings as they were then, so an edit reaches only
 * later arrivals; every other step runs at once.
 */
export function stepDueAt(step: RuntimeStep, arrivedAt: Date): Date {
  const s = step.settings;
  switch (step.action) {
    case 'delay':
    case 'condition':
      return new Date(arrivedAt.getTime() + (s.delay ?? 0) * 1000);
    case 'delay_until_time':
      return nextDayAt(s.time ?? '00:00', s.timezone ?? 'UTC', arrivedAt);
    default:
      return arrivedAt;
  }
}

/**
 * The step after `stepId`: its child; for a condition, the child of the branch `conditionResult`
 * names. null ends the path (the enrolment completes). A branch is never a stop of its own.
 */
export function nextStep(steps: readonly RuntimeStep[], stepId: number, conditionResult = false): RuntimeStep | null {
  const step = steps.find((s) => s.id === stepId);
  if (step === undefined) return null;
  const childOf = (id: number) => steps.find((s) => s.parentId === id) ?? null;
  if (step.action === 'condition') {
    const branch = steps.find((s) => s.parentId === stepId && s.branch === conditionResult);
    return branch === undefined ? null : childOf(branch.id);
  }
  const child = childOf(stepId);
  // A step that lost its child to a reshape mid-run may point at a branch: walk through it.
  return child !== null && child.action === 'condition_branch' ? childOf(child.id) : child;
}

/** What the enrolment's own emails have seen, as tracking recorded it. */
export interface EngagementFacts {
  /** Emails this enrolment has been sent. */
  emails: number;
  anyOpened: boolean;
  anyClicked: boolean;
  /** The latest email of the enrolment. */
  previousOpened: boolean;
  previousClicked: boolean;
}

/** A condition with no email sent yet in this enrolment is false. */
export function evaluateCondition(setting: ConditionSetting, facts: EngagementFacts): boolean {
  if (facts.emails === 0) return false;
  switch (setting) {
    case 'any_email_opened':
      return facts.anyOpened;
    case 'any_email_clicked':
      return facts.anyClicked;
    case 'previous_email_opened':
      return facts.previousOpened;
    case 'previous_email_clicked':
      return facts.previousClicked;
  }
}

/** The HTTP step's retries after a 5xx or no answer: 1, 5 and 30 minutes, then the enrolment errs. */
export const HTTP_STEP_RETRY_MS: readonly number[] = [60_000, 300_000, 1_800_000];

export type HttpStepVerdict = { kind: 'done' } | { kind: 'retry'; afterMs: number } | { kind: 'error'; error: string };

/**
 * What an HTTP step's answer means. `attempt` counts from 1. A 2xx (or 3xx, never followed) is
 * done; a 4xx or a refused destination errs at once (trying again cannot help); a 5xx, a
 * time-out or a network failure is retried on the schedule, then errs.
 */
export function httpStepVerdict(
  result: { status: number } | { failure: 'timeout' | 'network' | 'refused_destination'; message: string },
  attempt: number,
  schedule: readonly number[] = HTTP_STEP_RETRY_MS,
): HttpStepVerdict {
  if ('status' in result) {
    if (result.status < 400) return { kind: 'done' };
    if (result.status < 500) return { kind: 'error', error: `HTTP ${result.status}` };
  } else if (result.failure === 'refused_destination') {
    return { kind: 'error', error: `Refused destination: ${result.message}` };
  }
  const reason = 'status' in result ? `HTTP ${result.status}` : result.failure === 'timeout' ? 'Timed out' : `Network error: ${result.message}`;
  const wait = schedule[attempt - 1];
  return wait === undefined ? { kind: 'error', error: `${reason} after ${attempt} attempts` } : { kind: 'retry', afterMs: wait };
}

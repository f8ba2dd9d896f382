import { offsetAt, wallClockToInstant } from './broadcast';
import type { StepSettings } from './sequence-step';
import type { SequenceTree } from './sequence-tree';

const DAY_MS = 86_400_000;

/**
 * When an enrolment that reaches a step at `arrivedAt` may run it (docs/sequences.md, "Runtime"):
 * a delay counts from the arrival, `delay_until_time` waits for that wall-clock time on the next
 * day in its time zone, a condition waits its `delay` before it is evaluated, and every other step
 * runs at once.
 */
export function runAt(action: string, settings: StepSettings, arrivedAt: Date): Date {
  switch (action) {
    case 'delay':
    case 'condition':
      return new Date(arrivedAt.getTime() + (settings.delay ?? 0) * 1000);
    case 'delay_until_time':
      return nextDayAt(arrivedAt, settings.time ?? '00:00', settings.timezone ?? 'UTC');
    default:
      return arrivedAt;
  }
}

/** `time` ("HH:MM") on the day after `at`'s date, both read on the wall clock of `timezone`. */
export function nextDayAt(at: Date, time: string, timezone: string): Date {
  const [hours, minutes] = time.split(':').map(Number) as [number, number];
  const local = new Date(at.getTime() + offsetAt(timezone, at.getTime()));
  const nextDay = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate()) + DAY_MS;
  return new Date(wallClockToInstant(nextDay + (hours * 60 + minutes) * 60_000, timezone));
}

/**
 * The step an enrolment goes to after `stepId`: a condition's branch by its outcome, and a
 * branch (which does nothing itself) on to its child. Null: the path ends there.
 */
export function stepAfter(tree: SequenceTree, stepId: number, conditionHeld?: boolean): number | null {
  const step = tree.node(stepId);
  const next = step.action === 'condition' ? tree.branchOf(step.id, conditionHeld === true) : tree.childOf(step.id);
  if (next === undefined) return null;
  return next.action === 'condition_branch' ? stepAfter(tree, next.id) : next.id;
}

/** What a condition asks of the enrolment's emails so far (none sent yet: false). */
export interface EmailFacts {
  /** The enrolment's emails, oldest first: whether each was opened and clicked. */
  emails: ReadonlyArray<{ opened: boolean; clicked: boolean }>;
}

export function conditionHolds(setting: StepSettings['condition_setting'], facts: EmailFacts): boolean {
  const last = facts.emails.at(-1);
  switch (setting) {
    case 'any_email_opened':
      return facts.emails.some((e) => e.opened);
    case 'any_email_clicked':
      return facts.emails.some((e) => e.clicked);
    case 'previous_email_opened':
      return last?.opened === true;
    case 'previous_email_clicked':
      return last?.clicked === true;
    default:
      return false;
  }
}

import { DomainError } from './errors';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Spec "Retry schedule": the delays before retries 1 to 6. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR];

/** docs/webhooks.md: retries_to_attempt defaults to 6; the spec allows 0 to 20. */
export const DEFAULT_RETRIES_TO_ATTEMPT = 6;
export const MAX_RETRIES_TO_ATTEMPT = 20;

const UNIT_MS = { ms: 1, s: SECOND, m: MINUTE, h: HOUR } as const;
const DURATION = /^(\d+)\s*(ms|s|m|h)$/i;

/**
 * One WEBHOOK_RETRY_SCHEDULE entry (docs/operations.md: units ms, s, m, h), e.g. `250ms`, `5s`, `2h`.
 * A bare number is refused: without a unit it is ambiguous.
 */
export function parseDuration(s: string): number {
  const m = typeof s === 'string' ? DURATION.exec(s.trim()) : null;
  const unit = m?.[2]?.toLowerCase() as keyof typeof UNIT_MS | undefined;
  const ms = m && unit ? Number(m[1]) * UNIT_MS[unit] : NaN;
  if (!Number.isSafeInteger(ms)) {
    throw new DomainError('invalid_duration', `Invalid duration: ${JSON.stringify(s)}`);
  }
  return ms;
}

/** `1s, 2s,3s` → [1000, 2000, 3000]. Empty input or an empty entry is an invalid duration. */
export function parseRetrySchedule(s: string): number[] {
  return s.split(',').map(parseDuration);
}

/**
 * Delay before retry `retryNumber` (1-based). Past the end of the list the last delay repeats:
 * for the default schedule that is docs/webhooks.md "retries 7 to 20 wait 10 hours each", and
 * for a WEBHOOK_RETRY_SCHEDULE override "retries beyond its list wait its last delay".
 */
export function retryDelayMs(retryNumber: number, schedule: readonly number[] = DEFAULT_RETRY_SCHEDULE_MS): number {
  if (!Number.isInteger(retryNumber) || retryNumber < 1) {
    throw new RangeError(`Retry number must be an integer ≥ 1, got ${retryNumber}`);
  }
  const delay = schedule[Math.min(retryNumber, schedule.length) - 1];
  if (delay === undefined) throw new RangeError('Retry schedule must not be empty');
  return delay;
}

export type NextAttempt = { kind: 'retry'; retryNumber: number; at: Date } | { kind: 'exhausted' };

/**
 * What follows a failed attempt. `attemptNumber` counts attempts made so far (the first
 * delivery is attempt 1), so attempt n failing schedules retry n while n ≤ retriesToAttempt;
 * with retriesToAttempt 0 the first failure exhausts the delivery (docs/webhooks.md), and
 * the caller emits message.attempt.exhausted.
 */
export function nextAttempt(input: { attemptNumber: number; retriesToAttempt: number; failedAt: Date; schedule?: readonly number[] }): NextAttempt {
  if (input.attemptNumber > input.retriesToAttempt) return { kind: 'exhausted' };
  const retryNumber = input.attemptNumber;
  const delay = retryDelayMs(retryNumber, input.schedule ?? DEFAULT_RETRY_SCHEDULE_MS);
  return { kind: 'retry', retryNumber, at: new Date(input.failedAt.getTime() + delay) };
}

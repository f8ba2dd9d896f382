const MINUTE = 60_000;

/**
 * Delays before the retries of a recipient whose email was delayed (4xx) or could not reach the
 * server: 1, 5, 15 and 30 minutes, then an hour. Six attempts in about two hours; after that the
 * email has failed (email.failed), as mail servers give up on a deferral well within a day.
 */
export const DEFAULT_SEND_RETRY_SCHEDULE_MS: readonly number[] = [MINUTE, 5 * MINUTE, 15 * MINUTE, 30 * MINUTE, 60 * MINUTE];

/** The wait before the next attempt after `attemptsMade` attempts, or null when none is left. */
export function sendRetryDelayMs(attemptsMade: number, schedule: readonly number[] = DEFAULT_SEND_RETRY_SCHEDULE_MS): number | null {
  if (!Number.isInteger(attemptsMade) || attemptsMade < 1) return schedule[0] ?? null;
  return schedule[attemptsMade - 1] ?? null;
}

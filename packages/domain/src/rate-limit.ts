/**
 * docs/auth.md and §2: a fixed one-minute window per token. A request is allowed while the
 * window's count (this request included) is within the limit; the answer says how many remain,
 * when the window rolls over, and, when refused, how many whole seconds to wait.
 */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** The start of the fixed window that holds `now` (windows align with clock minutes, UTC). */
export function rateLimitWindowStart(now: Date, windowMs = RATE_LIMIT_WINDOW_MS): Date {
  return new Date(Math.floor(now.getTime() / windowMs) * windowMs);
}

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetAt: Date;
  /** Whole seconds until the window rolls over (at least 1), for Retry-After. */
  retryAfterSeconds: number;
}

export function decideRateLimit(input: { count: number; limit: number; windowStart: Date; now: Date; windowMs?: number }): RateLimitDecision {
  const resetAt = new Date(input.windowStart.getTime() + (input.windowMs ?? RATE_LIMIT_WINDOW_MS));
  return {
    allowed: input.count <= input.limit,
    limit: input.limit,
    remaining: Math.max(0, input.limit - input.count),
    resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - input.now.getTime()) / 1000)),
  };
}

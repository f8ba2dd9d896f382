import fc from 'fast-check';
import { decideRateLimit, rateLimitWindowStart } from './rate-limit';

describe('rate limit (docs/api-decisions.md: fixed one-minute window per token)', () => {
  it('aligns windows with clock minutes', () => {
    expect(rateLimitWindowStart(new Date('2026-11-22T10:15:42.123Z')).toISOString()).toBe('2026-11-22T10:15:00.000Z');
    expect(rateLimitWindowStart(new Date('2026-11-22T10:15:00.000Z')).toISOString()).toBe('2026-11-22T10:15:00.000Z');
  });

  it.each([
    [1, true, 2],
    [2, true, 1],
    [3, true, 0],
    [4, false, 0],
    [100, false, 0],
  ])('with a limit of 3, request number %i is allowed=%s with %i remaining', (count, allowed, remaining) => {
    const decision = decideRateLimit({
      count,
      limit: 3,
      windowStart: new Date('2026-11-22T10:15:00Z'),
      now: new Date('2026-11-22T10:15:42.100Z'),
    });
    expect(decision).toEqual({
      allowed,
      limit: 3,
      remaining,
      resetAt: new Date('2026-11-22T10:16:00Z'),
      retryAfterSeconds: 18, // 17.9 s, rounded up to whole seconds
    });
  });

  it('never asks to wait less than one second', () => {
    const decision = decideRateLimit({
      count: 9,
      limit: 1,
      windowStart: new Date('2026-11-22T10:15:00Z'),
      now: new Date('2026-11-22T10:15:59.999Z'),
    });
    expect(decision.retryAfterSeconds).toBe(1);
  });

  it('Retry-After always lands within the window (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_000_000_000_000 }), fc.integer({ min: 1, max: 10_000 }), (ms, count) => {
        const now = new Date(ms);
        const windowStart = rateLimitWindowStart(now);
        const d = decideRateLimit({ count, limit: 5, windowStart, now });
        return (
          d.retryAfterSeconds >= 1 && d.retryAfterSeconds <= 60 && d.resetAt.getTime() - now.getTime() <= 60_000 && d.remaining >= 0 && d.allowed === count <= 5
        );
      }),
    );
  });
});

import { decideRateLimit, rateLimitWindowStart, type RateLimitDecision } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { callerKey, type Principal } from '../auth/authenticate';
import { RateLimitedError } from '../errors';
import { Clock, RateLimitCounter } from '../ports';

@injectable()
export class CheckRateLimit {
  constructor(
    @inject(RateLimitCounter) private readonly counter: RateLimitCounter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /**
   * Counts this request against the caller's token. `limit` 0 means the limit is off (null).
   * Over the limit it throws RateLimitedError, after `onDecision` has seen the figures, so the
   * refusal carries the same headers as every other answer.
   */
  async execute(principal: Principal, limit: number, onDecision: (decision: RateLimitDecision) => void = () => undefined): Promise<RateLimitDecision | null> {
    if (limit === 0) return null;
    const now = this.clock.now();
    const windowStart = rateLimitWindowStart(now);
    const count = await this.counter.hit(callerKey(principal), windowStart);
    const decision = decideRateLimit({ count, limit, windowStart, now });
    onDecision(decision);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
    return decision;
  }
}

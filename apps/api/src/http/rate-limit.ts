import { CheckRateLimit, type Principal } from '@mailcast/core';
import type { RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';

/**
 * docs/auth.md RATE_LIMIT_PER_MINUTE: per token, fixed one-minute windows counted in PostgreSQL
 * (so the limit holds across api replicas); the X-RateLimit-* headers on every answer while on.
 */
export function rateLimit(container: DependencyContainer, limitPerMinute: number): RequestHandler {
  return async (_req, res, next) => {
    await container.resolve(CheckRateLimit).execute(res.locals.principal as Principal, limitPerMinute, (decision) => {
      res.set({
        'X-RateLimit-Limit': String(decision.limit),
        'X-RateLimit-Remaining': String(decision.remaining),
        'X-RateLimit-Reset': decision.resetAt.toISOString(),
      });
    });
    next();
  };
}

import { Authenticate, CheckRateLimit, requirePermission, type Principal } from '@mailcast/core';
import type { Permission } from '@mailcast/domain';
import type { RequestHandler, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';

/** Resolves the bearer token once per request; every route below it is channel-scoped. */
export function authenticate(container: DependencyContainer): RequestHandler {
  return async (req, res, next) => {
    res.locals.principal = await container.resolve(Authenticate).execute({ authorization: req.get('authorization') });
    next();
  };
}

/**
 * CONTRACT §1 RATE_LIMIT_PER_MINUTE: per token, fixed one-minute windows counted in PostgreSQL
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

/** The principal of an authenticated request, checked for one permission (spec: 401 without). */
export function principal(res: Response, permission: Permission): Principal {
  const found = res.locals.principal as Principal | undefined;
  if (found === undefined) throw new Error('route mounted outside the authenticated router');
  requirePermission(found, permission);
  return found;
}

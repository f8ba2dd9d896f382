import { RecordTokenUse, type Principal } from '@mailcast/core';
import type { RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';

/** Keeps each token's last_used_at, at most once a minute per token (docs/discovery.md). */
export function recordTokenUse(container: DependencyContainer): RequestHandler {
  return async (_req, res, next) => {
    await container.resolve(RecordTokenUse).execute(res.locals.principal as Principal);
    next();
  };
}

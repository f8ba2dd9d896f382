import { Authenticate, requirePermission, type Principal } from '@mailcast/core';
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

/** The principal of an authenticated request, whatever it may do (the discovery calls). */
export function anyPrincipal(res: Response): Principal {
  const found = res.locals.principal as Principal | undefined;
  if (found === undefined) throw new Error('route mounted outside the authenticated router');
  return found;
}

/** The principal of an authenticated request, checked for one permission (spec: 401 without). */
export function principal(res: Response, permission: Permission): Principal {
  const found = anyPrincipal(res);
  requirePermission(found, permission);
  return found;
}

import { ActForChannel, Authenticate, requirePermission, type Principal } from '@mailcast/core';
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

/** What an admin token may call without naming a channel: what every channel shares, and who it is. */
const INSTALLATION_WIDE = /^\/(?:global_suppressions(?:\/bulk)?\.json|whoami|audit_log)$/;
const CHANNEL_PARAM = 'broadcast_channel_id';

/**
 * For an admin (cross-channel) token, the channel its request names with `broadcast_channel_id`
 * in the query or the body (docs/auth.md, Admin tokens) becomes the principal's channel, and the
 * parameter is taken out of both so no route sees it as one of its own. Mounted after the body
 * parser. A channel token's principal is left as it is: `broadcast_channel_id` never takes it
 * out of its own channel (routes that do not know the parameter warn of it, as of any other).
 */
export function actingChannel(container: DependencyContainer): RequestHandler {
  return async (req, res, next) => {
    const caller = anyPrincipal(res);
    if (caller.admin !== true) return next();
    const { [CHANNEL_PARAM]: fromQuery, ...query } = req.query as Record<string, unknown>;
    const body = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
    const fromBody = body?.[CHANNEL_PARAM];
    if (body !== undefined) delete body[CHANNEL_PARAM];
    // Express 5 parses req.query anew on each read: the parameter is left out by pinning the rest.
    Object.defineProperty(req, 'query', { value: query, configurable: true, enumerable: true, writable: true });
    const named = fromBody ?? fromQuery;
    if (named === undefined && INSTALLATION_WIDE.test(req.path)) return next();
    res.locals.principal = await container.resolve(ActForChannel).execute(caller, named);
    next();
  };
}

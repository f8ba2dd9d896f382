import { ConfigToken, type Config } from '@mailcast/adapters';
import {
  ActForChannel,
  ForbiddenError,
  Authenticate,
  NO_CHANNEL,
  requireAction,
  requirePermission,
  ResolveSession,
  SessionPrincipal,
  UnauthorizedError,
  type Principal,
  type SignInUser,
} from '@mailcast/core';
import type { ChannelFlag, Permission } from '@mailcast/domain';
import type { Request, RequestHandler, Response } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { twoFactorEnrolmentRequired, TWO_FACTOR_ENROLMENT_REQUIRED } from './auth/two-factor.routes';
import { checkCsrf, CSRF_HEADER, readSessionCookie, TWO_FACTOR_CODE_REQUIRED, twoFactorPending } from './auth/session-cookie';

/**
 * Resolves who calls, once per request; every route below it is channel-scoped. A bearer token
 * first; without an Authorization header, the dashboard's session cookie (docs/teams.md, Using
 * the API signed in): the CSRF token on every state-changing request, the second factor given.
 * The session's channel is chosen by actingChannel, after the body is parsed.
 */
export function authenticate(container: DependencyContainer): RequestHandler {
  const config = container.resolve<Config>(ConfigToken);
  return async (req, res, next) => {
    const authorization = req.get('authorization');
    const cookieValue = authorization === undefined ? readSessionCookie(req) : undefined;
    if (cookieValue === undefined) {
      res.locals.principal = await container.resolve(Authenticate).execute({ authorization });
      return next();
    }
    const resolved = await container.resolve(ResolveSession).execute({ cookieValue, csrfHeader: req.get(CSRF_HEADER) });
    if (resolved === null) throw new UnauthorizedError();
    checkCsrf(req.method, resolved);
    if (twoFactorPending(resolved)) throw new UnauthorizedError(TWO_FACTOR_CODE_REQUIRED);
    if (twoFactorEnrolmentRequired(config, resolved.user)) throw new ForbiddenError(TWO_FACTOR_ENROLMENT_REQUIRED);
    res.locals.sessionUser = resolved.user;
    // Permissions come with the channel (actingChannel); until then the session may do nothing.
    const provisional: Principal = { tokenId: 0, userId: resolved.user.id, channelId: NO_CHANNEL, permissions: [] };
    res.locals.principal = provisional;
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
export function principal(res: Response, permission: Permission, action?: ChannelFlag): Principal {
  const found = anyPrincipal(res);
  requirePermission(found, permission);
  if (action !== undefined) requireAction(found, action);
  return found;
}

/**
 * What an admin token may call without naming a channel: what every channel shares, who it is,
 * the users and the audit log (docs/teams.md), and copy_to_channel, whose server id names its
 * source (docs/email-servers.md).
 */
const INSTALLATION_WIDE = /^\/(?:global_suppressions(?:\/bulk)?\.json|whoami|prime|skill|users(?:\/.*)?|audit_log|email_servers\/[^/]+\/copy_to_channel)$/;
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
    if (caller.userId !== undefined) {
      // A signed-in user: X-Mailcast-Channel, else broadcast_channel_id, else their first channel.
      const fromParam = takeChannelParam(req);
      const named = req.get(CHANNEL_HEADER) ?? fromParam;
      res.locals.principal = await container.resolve(SessionPrincipal).execute(res.locals.sessionUser as SignInUser, named);
      return next();
    }
    if (caller.admin !== true) return next();
    const named = takeChannelParam(req);
    if (named === undefined && INSTALLATION_WIDE.test(req.path)) return next();
    res.locals.principal = await container.resolve(ActForChannel).execute(caller, named);
    next();
  };
}

/** The dashboard names the channel it acts for in this header (docs/teams.md). */
export const CHANNEL_HEADER = 'X-Mailcast-Channel';

/** broadcast_channel_id from the body or the query, taken out of both. */
function takeChannelParam(req: Request): unknown {
  const { [CHANNEL_PARAM]: fromQuery, ...query } = req.query as Record<string, unknown>;
  const body = typeof req.body === 'object' && req.body !== null && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : undefined;
  const fromBody = body?.[CHANNEL_PARAM];
  if (body !== undefined) delete body[CHANNEL_PARAM];
  // Express 5 parses req.query anew on each read: the parameter is left out by pinning the rest.
  Object.defineProperty(req, 'query', { value: query, configurable: true, enumerable: true, writable: true });
  return fromBody ?? fromQuery;
}

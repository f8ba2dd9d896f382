import { ForbiddenError, UnauthorizedError, type ResolvedSession } from '@mailcast/core';
import type { Request, RequestHandler, Response } from 'express';

/**
 * The session cookie and the CSRF rules of the dashboard (docs/teams.md, Signing in): HttpOnly,
 * SameSite=Strict, Path=/, Secure when PUBLIC_URL is https; every request authenticated by the
 * cookie whose method can change something carries X-CSRF-Token.
 */
export const SESSION_COOKIE = 'mailcast_session';
export const CSRF_HEADER = 'X-CSRF-Token';
export const CSRF_INVALID = 'CSRF token missing or invalid';
export const NOT_SIGNED_IN = 'Not signed in';
export const TWO_FACTOR_CODE_REQUIRED = 'Two-factor code required';
export const JSON_REQUIRED = 'Content-Type must be application/json';
export const CROSS_ORIGIN_REFUSED = 'Cross-origin request refused';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/** The session cookie's value as the request carries it (the first, if several), or undefined. */
export function readSessionCookie(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    return part.slice(eq + 1).trim();
  }
  return undefined;
}

function cookieOptions(publicUrl: string) {
  return { httpOnly: true, sameSite: 'strict', path: '/', secure: publicUrl.startsWith('https:') } as const;
}

/**
 * No Max-Age: a browser session cookie. The server decides how long it lives (12 h idle), and a
 * revoked or idle value is dead whatever the browser keeps.
 */
export function setSessionCookie(res: Response, value: string, publicUrl: string): void {
  res.cookie(SESSION_COOKIE, value, cookieOptions(publicUrl));
}

export function clearSessionCookie(res: Response, publicUrl: string): void {
  res.clearCookie(SESSION_COOKIE, cookieOptions(publicUrl));
}

/** Throws the contract's 403 unless a state-changing request carries the session's CSRF token. */
export function checkCsrf(method: string, session: ResolvedSession): void {
  if (!isSafeMethod(method) && !session.csrfValid) throw new ForbiddenError(CSRF_INVALID);
}

/**
 * The live session of a request, for the routes under /auth that need one: 401 "Not signed in"
 * without, the CSRF check, and, unless `pendingTwoFactor` allows it, 401 "Two-factor code
 * required" until a user with two-factor has given the code on this session.
 */
export function requireSession(res: Response, method: string, options: { pendingTwoFactor?: boolean } = {}): ResolvedSession {
  const session = res.locals.session as ResolvedSession | undefined;
  if (session === undefined) throw new UnauthorizedError(NOT_SIGNED_IN);
  checkCsrf(method, session);
  if (options.pendingTwoFactor !== true && twoFactorPending(session)) throw new UnauthorizedError(TWO_FACTOR_CODE_REQUIRED);
  return session;
}

export function twoFactorPending(session: ResolvedSession): boolean {
  return session.user.twoFactorEnabled && !session.session.twoFactorPassed;
}

/**
 * The unauthenticated POSTs under /auth (sign_in, password/forgot, password/reset) carry no CSRF
 * token: they require a JSON body, which a cross-site form cannot send without a preflight, and
 * an Origin, when the browser sends one, that is the server's own (docs/teams.md, CSRF).
 */
export function sameSiteJson(publicUrl: string): RequestHandler {
  const own = new URL(publicUrl).origin;
  return (req, _res, next) => {
    if (!req.is('application/json')) return next(new ForbiddenError(JSON_REQUIRED));
    const origin = req.get('origin');
    if (origin !== undefined && origin !== own) return next(new ForbiddenError(CROSS_ORIGIN_REFUSED));
    next();
  };
}

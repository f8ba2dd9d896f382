import { ConfigToken, LoggerToken, type Config, type Logger } from '@mailcast/adapters';
import {
  ChangePassword,
  Clock,
  ListSessions,
  RequestPasswordReset,
  RESET_REQUESTED,
  ResetPassword,
  ResolveSession,
  RevokeSession,
  SESSION_NOT_FOUND,
  SessionPrincipal,
  SignIn,
  SignOut,
  UnauthorizedError,
  ValidationError,
} from '@mailcast/core';
import express, { Router, type RequestHandler } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { SignInFailures } from '../client-limits';
import { idParam } from '../params';
import { presentSessionChannel, presentSessionUser, presentUserSession } from './auth.presenter';
import { oidcRoutes } from './oidc.routes';
import { twoFactorEnrolmentRequired, twoFactorRoutes } from './two-factor.routes';
import { clearSessionCookie, CSRF_HEADER, readSessionCookie, requireSession, sameSiteJson, setSessionCookie, twoFactorPending } from './session-cookie';

const AUTH_BODY_LIMIT = '16kb';

function stringField(body: unknown, field: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string') throw new ValidationError(`${field} is required`);
  return value;
}

/**
 * The dashboard's sign-in (docs/teams.md, Signing in; CONTRACT §4.5b): JSON under /auth, outside
 * /api/v1. Every request first looks up the session its cookie names (res.locals.session);
 * the routes decide what they need of it. Two-factor and OIDC (t37-mfa) mount on this router.
 */
export function authRoutes(container: DependencyContainer): Router {
  const config = container.resolve<Config>(ConfigToken);
  const router = Router();
  const failures = new SignInFailures(() => container.resolve<Clock>(Clock).now().getTime());
  const unauthenticated = sameSiteJson(config.publicUrl);

  router.use(express.json({ limit: AUTH_BODY_LIMIT }));
  const loadSession: RequestHandler = async (req, res, next) => {
    const resolved = await container.resolve(ResolveSession).execute({ cookieValue: readSessionCookie(req), csrfHeader: req.get(CSRF_HEADER) });
    if (resolved !== null) res.locals.session = resolved;
    next();
  };
  router.use(loadSession);

  router.post('/sign_in', unauthenticated, async (req, res) => {
    failures.check(req.ip);
    const email = stringField(req.body, 'email');
    const password = stringField(req.body, 'password');
    const signedIn = await container
      .resolve(SignIn)
      .execute({ email, password, ip: req.ip ?? null, userAgent: req.get('user-agent') ?? null })
      .catch((error: unknown) => {
        // Counted per address before it travels on to the error handler's 401.
        if (error instanceof UnauthorizedError) failures.fail(req.ip);
        throw error;
      });
    setSessionCookie(res, signedIn.cookieValue, config.publicUrl);
    res.json({
      user: presentSessionUser(signedIn.user),
      csrf_token: signedIn.csrfToken,
      two_factor_required: signedIn.twoFactorRequired,
      two_factor_enrolment_required: twoFactorEnrolmentRequired(config, signedIn.user),
    });
  });

  router.get('/session', async (_req, res) => {
    const session = requireSession(res, 'GET', { pendingTwoFactor: true });
    const pending = twoFactorPending(session);
    // Until the second factor is given the session opens nothing, and names no channel.
    const channels = pending ? [] : await container.resolve(SessionPrincipal).channels(session.user);
    res.json({
      user: presentSessionUser(session.user),
      csrf_token: session.csrfToken,
      two_factor_required: pending,
      two_factor_enrolment_required: twoFactorEnrolmentRequired(config, session.user),
      channels: channels.map(presentSessionChannel),
    });
  });

  router.post('/sign_out', async (req, res) => {
    // Without a live session there is nothing to end: the cookie is cleared all the same.
    if (res.locals.session !== undefined) {
      const { session } = requireSession(res, req.method, { pendingTwoFactor: true });
      await container.resolve(SignOut).execute(session);
    }
    clearSessionCookie(res, config.publicUrl);
    res.status(204).end();
  });

  router.get('/sessions', async (_req, res) => {
    const { session } = requireSession(res, 'GET');
    const sessions = await container.resolve(ListSessions).execute(session.userId);
    res.json({ data: sessions.map((s) => presentUserSession(s, session.id)) });
  });

  router.delete('/sessions/:id', async (req, res) => {
    const { session } = requireSession(res, req.method);
    await container.resolve(RevokeSession).execute(session.userId, idParam(req.params.id, SESSION_NOT_FOUND));
    res.status(204).end();
  });

  router.post('/password/forgot', unauthenticated, async (req, res) => {
    const { deliver } = await container.resolve(RequestPasswordReset).execute(stringField(req.body, 'email'));
    res.status(202).json({ message: RESET_REQUESTED });
    // After the answer: its time does not depend on whether a mail goes out, nor on the SMTP server.
    await deliver().catch((error: unknown) =>
      container.resolve<Logger>(LoggerToken).error('password reset email not sent', { error: error instanceof Error ? error.message : String(error) }),
    );
  });

  router.post('/password/reset', unauthenticated, async (req, res) => {
    await container.resolve(ResetPassword).execute({ token: stringField(req.body, 'token'), password: stringField(req.body, 'password') });
    res.json({ message: 'Your password is set; sign in with it' });
  });

  router.post('/password/change', async (req, res) => {
    const { session } = requireSession(res, req.method);
    await container.resolve(ChangePassword).execute({
      userId: session.userId,
      sessionId: session.id,
      currentPassword: stringField(req.body, 'current_password'),
      newPassword: stringField(req.body, 'new_password'),
    });
    res.json({ message: 'Password changed; your other sessions are signed out' });
  });
  // Two-factor, OpenID Connect and the providers list (t37-mfa).
  router.use(twoFactorRoutes(container));
  router.use(oidcRoutes(container));

  return router;
}

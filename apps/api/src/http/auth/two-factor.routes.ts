import { ConfigToken, type Config } from '@mailcast/adapters';
import {
  Clock,
  ConfirmTwoFactor,
  DisableTwoFactor,
  EnrolTwoFactor,
  UnauthorizedError,
  ValidationError,
  VerifyTwoFactor,
  type SignInUser,
} from '@mailcast/core';
import { Router } from 'express';
import type { DependencyContainer } from 'tsyringe';
import { SignInFailures } from '../client-limits';
import { requireSession, twoFactorPending } from './session-cookie';

export const INVALID_CODE = 'Invalid code';
export const TWO_FACTOR_NOT_PENDING = 'This session has no two-factor code to give';
export const TWO_FACTOR_ENROLMENT_REQUIRED = 'Two-factor enrolment required';

/** Whether the user must enrol before anything else (MAILCAST_REQUIRE_2FA, docs/teams.md "Two-factor"). */
export function twoFactorEnrolmentRequired(config: Config, user: SignInUser): boolean {
  return config.requireTwoFactor && !user.twoFactorEnabled;
}

function codeField(body: unknown, field: string): string {
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[field] : undefined;
  if (typeof value !== 'string' || value.length === 0) throw new ValidationError(`${field} is required`);
  if (value.length > 256) throw new ValidationError(`${field} is too long`);
  return value;
}

/**
 * Two-factor under /auth (docs/teams.md, "Two-factor"), mounted on the sign-in
 * router, which has parsed the body and looked up the session. Every route is a state change:
 * requireSession checks the CSRF token.
 */
export function twoFactorRoutes(container: DependencyContainer): Router {
  const config = container.resolve<Config>(ConfigToken);
  const router = Router();
  // Wrong codes per client address, besides the account's lockout (VerifyTwoFactor).
  const failures = new SignInFailures(() => container.resolve<Clock>(Clock).now().getTime());

  router.post('/two_factor/verify', async (req, res) => {
    const resolved = requireSession(res, req.method, { pendingTwoFactor: true });
    if (!twoFactorPending(resolved)) throw new ValidationError(TWO_FACTOR_NOT_PENDING);
    failures.check(req.ip);
    const code = codeField(req.body, 'code');
    const passed = await container.resolve(VerifyTwoFactor).execute({ userId: resolved.user.id, sessionId: resolved.session.id, code, ip: req.ip ?? null });
    if (!passed) {
      failures.fail(req.ip);
      throw new UnauthorizedError(INVALID_CODE);
    }
    res.json({ ok: true });
  });

  router.post('/two_factor/enrol', async (req, res) => {
    const resolved = requireSession(res, req.method);
    const enrolment = await container.resolve(EnrolTwoFactor).execute({ userId: resolved.user.id });
    res.json({ secret: enrolment.secret, otpauth_url: enrolment.otpauthUrl, qr_svg: enrolment.qrSvg });
  });

  router.post('/two_factor/confirm', async (req, res) => {
    const resolved = requireSession(res, req.method);
    const code = codeField(req.body, 'code');
    const { recoveryCodes } = await container.resolve(ConfirmTwoFactor).execute({ userId: resolved.user.id, sessionId: resolved.session.id, code });
    res.json({ recovery_codes: recoveryCodes });
  });

  router.post('/two_factor/disable', async (req, res) => {
    const resolved = requireSession(res, req.method);
    const password = codeField(req.body, 'password');
    await container.resolve(DisableTwoFactor).execute({ userId: resolved.user.id, password, required: config.requireTwoFactor });
    res.json({ ok: true });
  });

  return router;
}

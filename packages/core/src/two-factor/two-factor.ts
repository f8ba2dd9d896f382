import {
  hashRecoveryCode,
  LOCKOUT_FAILURES,
  LOCKOUT_MS,
  LOCKOUT_WINDOW_MS,
  RECOVERY_CODE_BYTES,
  RECOVERY_CODE_COUNT,
  recoveryCodeFrom,
  totpCodeOf,
} from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, RandomSource } from '../ports/system';
import { SignInUserRepository, UserSessionRepository } from '../ports/sign-in';
import { PasswordHasher } from '../ports/users';
import { QrCodes, Totp, TwoFactorStore, type TwoFactorUser } from '../ports/two-factor';

export const ALREADY_ENABLED = 'Two-factor is already enabled';
export const NOT_ENROLLING = 'Start enrolment first';
export const INVALID_CODE = 'Invalid code';

async function userOf(store: TwoFactorStore, userId: number): Promise<TwoFactorUser> {
  const user = await store.find(userId);
  if (user === null) throw new NotFoundError('User not found');
  return user;
}

/**
 * Starts enrolment (docs/teams.md, "Two-factor"): a new secret is kept, sealed, until the user
 * confirms a code from it; a second enrol replaces a pending secret. Nothing changes for a user
 * whose two-factor is on: disable first.
 */
@injectable()
export class EnrolTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(Totp) private readonly totp: Totp,
    @inject(QrCodes) private readonly qr: QrCodes,
  ) {}

  async execute(input: { userId: number }): Promise<{ secret: string; otpauthUrl: string; qrSvg: string }> {
    const user = await userOf(this.store, input.userId);
    if (user.twoFactorEnabled) throw new ValidationError(ALREADY_ENABLED);
    const secret = this.totp.generateSecret();
    if (!(await this.store.savePendingSecret(user.id, secret))) throw new ValidationError(ALREADY_ENABLED);
    const otpauthUrl = this.totp.uri(secret, user.email);
    return { secret, otpauthUrl, qrSvg: await this.qr.svg(otpauthUrl) };
  }
}

/**
 * Confirms enrolment with one code of the pending secret: two-factor is on from then, that code's
 * time step counts as used, and 10 new recovery codes are answered once (only their SHA-256 is
 * kept). The session that confirmed has given the code: it stays usable.
 */
@injectable()
export class ConfirmTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(Totp) private readonly totp: Totp,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
  ) {}

  async execute(input: { userId: number; sessionId: number; code: string }): Promise<{ recoveryCodes: string[] }> {
    const user = await userOf(this.store, input.userId);
    if (user.twoFactorEnabled) throw new ValidationError(ALREADY_ENABLED);
    if (user.totpSecret === null) throw new ValidationError(NOT_ENROLLING);
    const code = totpCodeOf(input.code);
    const step = code === null ? null : await this.totp.stepOf(user.totpSecret, code, this.clock.now());
    if (step === null) throw new ValidationError(INVALID_CODE);
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeFrom(this.random.bytes(RECOVERY_CODE_BYTES)));
    if (!(await this.store.enable(user.id, step, recoveryCodes.map(hashRecoveryCode)))) throw new ValidationError(INVALID_CODE);
    await this.sessions.markTwoFactorPassed(input.sessionId);
    return { recoveryCodes };
  }
}

/**
 * The second factor of a sign-in: a TOTP code (its time step accepted once, ±1 step of drift) or
 * an unused recovery code. On success the session has passed two-factor. A wrong code counts as
 * a failed sign-in of the account (docs/teams.md, "Two-factor"): 10 within 15 minutes lock it and
 * end its sessions, so a stolen password does not buy a million guesses.
 */
@injectable()
export class VerifyTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(Totp) private readonly totp: Totp,
    @inject(Clock) private readonly clock: Clock,
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
  ) {}

  async execute(input: { userId: number; sessionId: number; code: string; ip?: string | null }): Promise<boolean> {
    const user = await userOf(this.store, input.userId);
    if (user.twoFactorEnabled && user.totpSecret !== null && (await this.accepted(user, input.code))) {
      await this.sessions.markTwoFactorPassed(input.sessionId);
      return true;
    }
    const now = this.clock.now();
    const failures = await this.users.recordFailure(user.id, input.ip ?? null, now, new Date(now.getTime() - LOCKOUT_WINDOW_MS));
    if (failures >= LOCKOUT_FAILURES) {
      await this.users.lock(user.id, new Date(now.getTime() + LOCKOUT_MS));
      await this.sessions.revokeAllOf(user.id, now);
    }
    return false;
  }

  private async accepted(user: TwoFactorUser, typed: string): Promise<boolean> {
    const code = totpCodeOf(typed);
    if (code !== null) {
      const step = await this.totp.stepOf(user.totpSecret!, code, this.clock.now());
      return step !== null && (await this.store.acceptStep(user.id, step));
    }
    // Bounded before hashing: a recovery code is 11 characters as shown.
    return typed.length <= 64 && (await this.store.useRecoveryCode(user.id, hashRecoveryCode(typed)));
  }
}

export const WRONG_PASSWORD = 'Password is incorrect';
export const TWO_FACTOR_MANDATORY = 'Two-factor is required on this installation';

/**
 * Two-factor off, with the user's password as proof (docs/teams.md, "Two-factor"). Refused while
 * MAILCAST_REQUIRE_2FA is on: the user would only be sent back to enrol.
 */
@injectable()
export class DisableTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
  ) {}

  async execute(input: { userId: number; password: string; required: boolean }): Promise<void> {
    const user = await this.users.findById(input.userId);
    if (user === null) throw new NotFoundError('User not found');
    if (!(await this.hasher.verify(user.passwordHash, input.password))) throw new ValidationError(WRONG_PASSWORD);
    if (input.required) throw new ValidationError(TWO_FACTOR_MANDATORY);
    await this.store.disable(user.id);
  }
}

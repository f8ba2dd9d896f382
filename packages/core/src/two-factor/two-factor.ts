import { hashRecoveryCode, RECOVERY_CODE_BYTES, RECOVERY_CODE_COUNT, recoveryCodeFrom, totpCodeOf } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { NotFoundError, ValidationError } from '../errors';
import { Clock, RandomSource } from '../ports/system';
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
 * time step counts as used, and 10 new recovery codes are answered once (only their SHA-256 is kept).
 */
@injectable()
export class ConfirmTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(Totp) private readonly totp: Totp,
    @inject(Clock) private readonly clock: Clock,
    @inject(RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(input: { userId: number; code: string }): Promise<{ recoveryCodes: string[] }> {
    const user = await userOf(this.store, input.userId);
    if (user.twoFactorEnabled) throw new ValidationError(ALREADY_ENABLED);
    if (user.totpSecret === null) throw new ValidationError(NOT_ENROLLING);
    const code = totpCodeOf(input.code);
    const step = code === null ? null : await this.totp.stepOf(user.totpSecret, code, this.clock.now());
    if (step === null) throw new ValidationError(INVALID_CODE);
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, () => recoveryCodeFrom(this.random.bytes(RECOVERY_CODE_BYTES)));
    if (!(await this.store.enable(user.id, step, recoveryCodes.map(hashRecoveryCode)))) throw new ValidationError(INVALID_CODE);
    return { recoveryCodes };
  }
}

/**
 * The second factor of a sign-in: a TOTP code (its time step accepted once, ±1 step of drift) or
 * an unused recovery code. On success the session has passed two-factor.
 */
@injectable()
export class VerifyTwoFactor {
  constructor(
    @inject(TwoFactorStore) private readonly store: TwoFactorStore,
    @inject(Totp) private readonly totp: Totp,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { userId: number; sessionId: number; code: string }): Promise<boolean> {
    const user = await userOf(this.store, input.userId);
    if (!user.twoFactorEnabled || user.totpSecret === null) return false;
    if (!(await this.accepted(user, input.code))) return false;
    await this.store.passSession(input.sessionId);
    return true;
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

/** Two-factor off; the caller has checked the user's password (docs/teams.md). */
@injectable()
export class DisableTwoFactor {
  constructor(@inject(TwoFactorStore) private readonly store: TwoFactorStore) {}

  async execute(input: { userId: number }): Promise<void> {
    await userOf(this.store, input.userId);
    await this.store.disable(input.userId);
  }
}

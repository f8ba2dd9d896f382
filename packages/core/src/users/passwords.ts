import {
  formatSessionSecret,
  hashSessionSecret,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  PASSWORD_RESET_TTL_MS,
  SESSION_SECRET_BYTES,
} from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { ValidationError } from '../errors';
import { Clock, PasswordHasher, PasswordResetRepository, RandomSource, SignInUserRepository, SystemMail } from '../ports';

export const RESET_LINK_INVALID = 'This reset link is invalid or has expired';
export const PASSWORD_TOO_SHORT = `Password must be at least ${PASSWORD_MIN_LENGTH} characters`;
export const PASSWORD_TOO_LONG = `Password must be at most ${PASSWORD_MAX_LENGTH} characters`;
export const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';
export const RESET_REQUESTED = 'If that address has an account, a reset link is on its way';

/** The length rule of every new password (docs/teams.md, Passwords). */
export function checkNewPassword(password: string): void {
  if (password.length < PASSWORD_MIN_LENGTH) throw new ValidationError(PASSWORD_TOO_SHORT);
  if (password.length > PASSWORD_MAX_LENGTH) throw new ValidationError(PASSWORD_TOO_LONG);
}

/** Where a reset link points: the dashboard's page, under PUBLIC_URL. */
export const ResetLinkBase = Symbol.for('mailcast.ResetLinkBase');

/**
 * Makes a one-use reset link valid 2 hours for an active user and says how to send it
 * (docs/teams.md, Password reset). The mail is sent by `deliver`, which the caller runs after
 * answering: the answer (and its time) is the same whether or not the address has an account.
 * The users API's `send_password_reset: true` issues one the same way (issueFor).
 */
@injectable()
export class RequestPasswordReset {
  constructor(
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(PasswordResetRepository) private readonly resets: PasswordResetRepository,
    @inject(SystemMail) private readonly mail: SystemMail,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(Clock) private readonly clock: Clock,
    @inject(ResetLinkBase) private readonly linkBase: string,
  ) {}

  async execute(email: string): Promise<{ deliver: () => Promise<void> }> {
    const trimmed = email.trim();
    const user = trimmed.length === 0 || trimmed.length > 254 ? null : await this.users.findByEmail(trimmed);
    // The token is made either way, so both paths do the same work up to the insert.
    const token = formatSessionSecret(this.random.bytes(SESSION_SECRET_BYTES));
    if (user === null || !user.active) return { deliver: async () => undefined };
    return this.issue(user.id, user.email, token);
  }

  /** A reset link for a known user (the users API's `send_password_reset`). */
  async issueFor(user: { id: number; email: string }): Promise<{ deliver: () => Promise<void> }> {
    return this.issue(user.id, user.email, formatSessionSecret(this.random.bytes(SESSION_SECRET_BYTES)));
  }

  private async issue(userId: number, email: string, token: string): Promise<{ deliver: () => Promise<void> }> {
    const now = this.clock.now();
    await this.resets.create({ userId, tokenHash: hashSessionSecret(token), expiresAt: new Date(now.getTime() + PASSWORD_RESET_TTL_MS) }, now);
    const link = `${this.linkBase}?token=${encodeURIComponent(token)}`;
    return {
      deliver: () =>
        this.mail.send({
          to: email,
          subject: 'Reset your Mailcast password',
          text: `Someone (hopefully you) asked to reset the password of your Mailcast account.\n\nSet a new password here (the link works once, for 2 hours):\n${link}\n\nIf you did not ask, ignore this email: your password stays as it is.\n`,
        }),
    };
  }
}

/**
 * Redeems a reset link: sets the password, clears a lockout and ends every session of the user
 * (docs/teams.md, Password reset). Used, expired (2 h) and unknown links get one answer.
 */
@injectable()
export class ResetPassword {
  constructor(
    @inject(PasswordResetRepository) private readonly resets: PasswordResetRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string; password: string }): Promise<void> {
    checkNewPassword(input.password);
    if (input.token.length === 0 || input.token.length > 128) throw new ValidationError(RESET_LINK_INVALID);
    const hash = await this.hasher.hash(input.password);
    const userId = await this.resets.redeem(hashSessionSecret(input.token), hash, this.clock.now());
    if (userId === null) throw new ValidationError(RESET_LINK_INVALID);
  }
}

/** A signed-in user changes their password; every other session of theirs ends (docs/teams.md). */
@injectable()
export class ChangePassword {
  constructor(
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(PasswordResetRepository) private readonly resets: PasswordResetRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { userId: number; sessionId: number; currentPassword: string; newPassword: string }): Promise<void> {
    const user = await this.users.findById(input.userId);
    const current = input.currentPassword.length > PASSWORD_MAX_LENGTH ? null : input.currentPassword;
    const matches = await this.hasher.verify(current === null ? null : (user?.passwordHash ?? null), current ?? '');
    if (user === null || !matches) throw new ValidationError(CURRENT_PASSWORD_INCORRECT);
    checkNewPassword(input.newPassword);
    await this.resets.changePassword(user.id, await this.hasher.hash(input.newPassword), this.clock.now(), input.sessionId);
  }
}

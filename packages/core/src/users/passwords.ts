import { hashPasswordResetToken, MAX_PASSWORD_LENGTH, passwordProblem } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { ValidationError } from '../errors';
import { Clock, PasswordHasher, SignInPasswords, SignInUserRepository } from '../ports';
import { IssuePasswordReset } from './issue-password-reset';

export const RESET_LINK_INVALID = 'This reset link is invalid or has expired';
export const CURRENT_PASSWORD_INCORRECT = 'Current password is incorrect';
export const RESET_REQUESTED = 'If that address has an account, a reset link is on its way';

/** The rule of every new password (docs/teams.md, Passwords): a 422 with its reason. */
export function checkNewPassword(password: string): void {
  const problem = passwordProblem(password);
  if (problem !== null) throw new ValidationError(problem);
}

/**
 * "Forgot password" (docs/teams.md, Password reset): looks the address up and answers how to
 * make and mail the link, which the caller runs after answering. The request's answer and its
 * time are then the same whether or not the address has an account: the row, the SMTP
 * conversation and its failures all happen after it. Inactive users get no link.
 */
@injectable()
export class RequestPasswordReset {
  constructor(
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(IssuePasswordReset) private readonly issuer: IssuePasswordReset,
  ) {}

  async execute(email: string): Promise<{ deliver: () => Promise<void> }> {
    const trimmed = email.trim();
    const user = trimmed.length === 0 || trimmed.length > 254 ? null : await this.users.findByEmail(trimmed);
    if (user === null || !user.active) return { deliver: async () => undefined };
    return { deliver: async () => void (await this.issuer.issueAndSend({ id: user.id, email: user.email })) };
  }
}

/**
 * Redeems a reset link: sets the password, clears a lockout and ends every session of the user
 * (docs/teams.md, Password reset). Used, expired (2 h) and unknown links get one answer.
 */
@injectable()
export class ResetPassword {
  constructor(
    @inject(SignInPasswords) private readonly passwords: SignInPasswords,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { token: string; password: string }): Promise<void> {
    checkNewPassword(input.password);
    if (input.token.length === 0 || input.token.length > 128) throw new ValidationError(RESET_LINK_INVALID);
    const hash = await this.hasher.hash(input.password);
    const userId = await this.passwords.redeem(hashPasswordResetToken(input.token), hash, this.clock.now());
    if (userId === null) throw new ValidationError(RESET_LINK_INVALID);
  }
}

/** A signed-in user changes their password; every other session of theirs ends (docs/teams.md). */
@injectable()
export class ChangePassword {
  constructor(
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(SignInPasswords) private readonly passwords: SignInPasswords,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { userId: number; sessionId: number; currentPassword: string; newPassword: string }): Promise<void> {
    const user = await this.users.findById(input.userId);
    const current = input.currentPassword.length > MAX_PASSWORD_LENGTH * 4 ? null : input.currentPassword;
    const matches = await this.hasher.verify(current === null ? null : (user?.passwordHash ?? null), current ?? '');
    if (user === null || !matches) throw new ValidationError(CURRENT_PASSWORD_INCORRECT);
    checkNewPassword(input.newPassword);
    await this.passwords.changePassword(user.id, await this.hasher.hash(input.newPassword), this.clock.now(), input.sessionId);
  }
}

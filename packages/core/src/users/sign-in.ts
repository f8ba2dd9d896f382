import { LOCKOUT_FAILURES, LOCKOUT_MS, LOCKOUT_WINDOW_MS, MAX_PASSWORD_LENGTH } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { UnauthorizedError } from '../errors';
import { Clock, PasswordHasher, SignInUserRepository, type SignInUser } from '../ports';
import { StartSession, type StartedSession } from './start-session';

/** The one answer to every failed sign-in (docs/teams.md, Signing in). */
export const INVALID_CREDENTIALS = 'Invalid email or password';

export interface SignedIn extends StartedSession {
  user: SignInUser;
  /** The user has two-factor on: the session must pass it before anything else (t37-mfa). */
  twoFactorRequired: boolean;
}

/**
 * Password sign-in (docs/teams.md, Signing in). Unknown email, wrong password, inactive or
 * locked account: one 401, and the same argon2 work in every case, so neither the answer nor its
 * time tells which. 10 failures of one account within 15 minutes lock it for 15 minutes; while
 * locked even the right password fails (and no further failure is counted, so the lock ends on
 * time).
 */
@injectable()
export class SignIn {
  constructor(
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(StartSession) private readonly startSession: StartSession,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { email: string; password: string; ip?: string | null; userAgent?: string | null }): Promise<SignedIn> {
    // Looked up as written, trimmed and case-insensitive: users' addresses are not subscribers',
    // and `admin@localhost` (npm start's first user) has no dotted domain.
    const email = input.email.trim();
    const user = email.length === 0 || email.length > 254 ? null : await this.users.findByEmail(email);
    const password = input.password.length > MAX_PASSWORD_LENGTH * 4 ? null : input.password;
    const matches = await this.hasher.verify(password === null ? null : (user?.passwordHash ?? null), password ?? '');
    const now = this.clock.now();
    if (user === null || !user.active) throw new UnauthorizedError(INVALID_CREDENTIALS);
    if (user.lockedUntil !== null && user.lockedUntil.getTime() > now.getTime()) throw new UnauthorizedError(INVALID_CREDENTIALS);
    if (!matches) {
      const failures = await this.users.recordFailure(user.id, input.ip ?? null, now, new Date(now.getTime() - LOCKOUT_WINDOW_MS));
      if (failures >= LOCKOUT_FAILURES) await this.users.lock(user.id, new Date(now.getTime() + LOCKOUT_MS));
      throw new UnauthorizedError(INVALID_CREDENTIALS);
    }
    await this.users.recordSignIn(user.id, now);
    const started = await this.startSession.execute({ userId: user.id, twoFactorPassed: !user.twoFactorEnabled, ip: input.ip, userAgent: input.userAgent });
    return { ...started, user, twoFactorRequired: user.twoFactorEnabled };
  }
}

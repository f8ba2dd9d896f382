import { csrfTokenFor, formatSessionSecret, hashSessionSecret, SESSION_SECRET_BYTES } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { Clock, RandomSource, UserSessionRepository, type UserSession } from '../ports';

export interface StartedSession {
  session: UserSession;
  /** The cookie's value: answered once in Set-Cookie, stored only as its hash. */
  cookieValue: string;
  csrfToken: string;
}

/**
 * A new session row with a fresh cookie value on every sign-in (docs/teams.md, Signing in): a
 * value the client sent is never adopted, so a planted cookie cannot become a signed-in one
 * (session fixation). Used by password sign-in, and by two-factor and OIDC sign-in (t37-mfa).
 */
@injectable()
export class StartSession {
  constructor(
    @inject(UserSessionRepository) private readonly sessions: UserSessionRepository,
    @inject(RandomSource) private readonly random: RandomSource,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { userId: number; twoFactorPassed: boolean; ip?: string | null; userAgent?: string | null }): Promise<StartedSession> {
    const cookieValue = formatSessionSecret(this.random.bytes(SESSION_SECRET_BYTES));
    const csrfToken = csrfTokenFor(cookieValue);
    const session = await this.sessions.create(
      {
        userId: input.userId,
        tokenHash: hashSessionSecret(cookieValue),
        csrfHash: hashSessionSecret(csrfToken),
        twoFactorPassed: input.twoFactorPassed,
        ip: input.ip ?? null,
        // Bounded: it is shown in the sessions list, not trusted.
        userAgent: input.userAgent?.slice(0, 512) ?? null,
      },
      this.clock.now(),
    );
    return { session, cookieValue, csrfToken };
  }
}

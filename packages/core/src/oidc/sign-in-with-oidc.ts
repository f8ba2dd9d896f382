import { inject, injectable } from 'tsyringe';
import { OidcClient, OidcRefused, type OidcChecks } from '../ports/oidc';
import { Clock, SignInUserRepository } from '../ports';
import { StartSession, type StartedSession } from '../users/start-session';

export type OidcOutcome = { signedIn: StartedSession } | { refused: string };

/**
 * The callback of an OpenID Connect sign-in (docs/teams.md, "OpenID Connect"): the provider's
 * answer must verify, its email must be verified, and a user with that email must already exist
 * and be active. Nobody is created here. The new session has passed two-factor: the provider
 * authenticated the user.
 */
@injectable()
export class SignInWithOidc {
  constructor(
    @inject(OidcClient) private readonly client: OidcClient,
    @inject(SignInUserRepository) private readonly users: SignInUserRepository,
    @inject(StartSession) private readonly startSession: StartSession,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(input: { callbackUrl: string; checks: OidcChecks; ip?: string | null; userAgent?: string | null }): Promise<OidcOutcome> {
    let identity;
    try {
      identity = await this.client.finish(input.callbackUrl, input.checks);
    } catch (error) {
      if (error instanceof OidcRefused) return { refused: error.message };
      throw error;
    }
    // Compared as sign-in compares (trimmed, case-insensitive): users' addresses need no dotted domain.
    const email = identity.email?.trim() ?? '';
    if (email === '' || email.length > 254) return { refused: 'no usable email claim' };
    if (!identity.emailVerified) return { refused: 'email not verified' };
    const user = await this.users.findByEmail(email);
    if (user === null || !user.active) return { refused: 'no active user with that email' };
    await this.users.recordSignIn(user.id, this.clock.now());
    return { signedIn: await this.startSession.execute({ userId: user.id, twoFactorPassed: true, ip: input.ip, userAgent: input.userAgent }) };
  }
}

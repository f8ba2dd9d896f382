import { canonicalEmail } from '@mailcast/domain';
import { inject, injectable } from 'tsyringe';
import { OidcClient, OidcRefused, OidcUsers, type OidcChecks } from '../ports/oidc';

export type OidcOutcome = { userId: number } | { refused: string };

/**
 * The callback of an OpenID Connect sign-in (docs/teams.md, "OpenID Connect"): the provider's
 * answer must verify, its email must be verified, and a user with that email must already exist
 * and be active. Nobody is created here. The caller starts the session (two-factor passed: the
 * provider authenticated the user).
 */
@injectable()
export class SignInWithOidc {
  constructor(
    @inject(OidcClient) private readonly client: OidcClient,
    @inject(OidcUsers) private readonly users: OidcUsers,
  ) {}

  async execute(input: { callbackUrl: string; checks: OidcChecks }): Promise<OidcOutcome> {
    let identity;
    try {
      identity = await this.client.finish(input.callbackUrl, input.checks);
    } catch (error) {
      if (error instanceof OidcRefused) return { refused: error.message };
      throw error;
    }
    const email = identity.email === null ? null : canonicalEmail(identity.email);
    if (email === null) return { refused: 'no usable email claim' };
    if (!identity.emailVerified) return { refused: 'email not verified' };
    const userId = await this.users.findActiveByEmail(email);
    return userId === null ? { refused: 'no active user with that email' } : { userId };
  }
}

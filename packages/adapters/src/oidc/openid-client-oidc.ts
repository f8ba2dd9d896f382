import { OidcRefused, type OidcChecks, type OidcClient, type OidcIdentity } from '@mailcast/core';
import { errors, generators, Issuer, type BaseClient } from 'openid-client';

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** `${PUBLIC_URL}/auth/oidc/callback`, registered with the provider. */
  redirectUri: string;
}

const SCOPE = 'openid email';

/**
 * The authorization code flow with openid-client 5 (CommonJS, Node 20): discovery, state, nonce
 * and PKCE (S256), the ID token's signature, issuer, audience, nonce and expiry checked by the
 * library (docs/teams.md, "OpenID Connect"). The provider's metadata is discovered on first use,
 * and again after a failed discovery, so the api starts while the provider is down.
 */
export class OpenidClientOidc implements OidcClient {
  private client: Promise<BaseClient> | undefined;

  constructor(private readonly settings: OidcSettings) {}

  async start(): Promise<{ url: string; checks: OidcChecks }> {
    const client = await this.discovered();
    const checks: OidcChecks = { state: generators.state(), nonce: generators.nonce(), codeVerifier: generators.codeVerifier() };
    const url = client.authorizationUrl({
      scope: SCOPE,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: generators.codeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, checks };
  }

  async finish(callbackUrl: string, checks: OidcChecks): Promise<OidcIdentity> {
    const client = await this.discovered();
    try {
      const params = client.callbackParams(callbackUrl);
      const tokens = await client.callback(this.settings.redirectUri, params, {
        state: checks.state,
        nonce: checks.nonce,
        code_verifier: checks.codeVerifier,
        response_type: 'code',
      });
      let claims: Record<string, unknown> = tokens.claims();
      // Providers that follow the spec strictly put scope claims in userinfo only (OIDC Core 5.4).
      if (claims.email === undefined && tokens.access_token !== undefined) {
        const info = await client.userinfo(tokens);
        if (info.sub !== claims.sub) throw new OidcRefused('userinfo subject differs from the ID token');
        claims = { ...claims, ...info };
      }
      return {
        subject: String(claims.sub),
        email: typeof claims.email === 'string' ? claims.email : null,
        // Only a boolean true counts; some providers send the string "true".
        emailVerified: claims.email_verified === true || claims.email_verified === 'true',
      };
    } catch (error) {
      // A provider error, a check that fails, or the provider unreachable: the sign-in is refused.
      if (error instanceof OidcRefused) throw error;
      const kind = error instanceof errors.OPError ? 'provider error' : error instanceof errors.RPError ? 'check failed' : 'request failed';
      throw new OidcRefused(`${kind}: ${(error as Error).message}`);
    }
  }

  private discovered(): Promise<BaseClient> {
    this.client ??= Issuer.discover(this.settings.issuer).then(
      (issuer) =>
        new issuer.Client({
          client_id: this.settings.clientId,
          client_secret: this.settings.clientSecret,
          redirect_uris: [this.settings.redirectUri],
          response_types: ['code'],
        }),
    );
    this.client.catch(() => (this.client = undefined));
    return this.client;
  }
}

/**
 * OpenID Connect sign-in (docs/teams.md, "OpenID Connect"): the code flow with state, nonce and
 * PKCE against the configured provider. Bound only when OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET are all set.
 */
export interface OidcChecks {
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Who the provider says signed in, from a verified ID token (and its userinfo). */
export interface OidcIdentity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
}

export interface OidcClient {
  /** The provider's authorization URL, and the checks its callback must match (kept by the browser, sealed). */
  start(): Promise<{ url: string; checks: OidcChecks }>;
  /** The identity of a callback (its full URL), or OidcRefused when anything fails to verify. */
  finish(callbackUrl: string, checks: OidcChecks): Promise<OidcIdentity>;
}
export const OidcClient = Symbol.for('mailcast.OidcClient');

/** A callback that does not verify: wrong state, a provider error, a bad token. Never detailed to the browser. */
export class OidcRefused extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'OidcRefused';
  }
}

import { json, type Json, publicOperation } from './operation';

/** The dashboard's sign-in under /auth; this file holds two-factor and OpenID Connect. */
export const DASHBOARD_SIGN_IN = 'Dashboard sign-in';

const error = (description: string): Json => ({
  description,
  content: json({ type: 'object', required: ['error'], properties: { error: { type: 'string' } } }),
});

const body = (properties: Record<string, Json>, required: string[]): Json => ({
  required: true,
  content: json({ type: 'object', required, properties }),
});

const SESSION = 'Needs the `mailcast_session` cookie of a live session and, as every state change made with it, the `X-CSRF-Token` header (docs/teams.md).';

const ok = { description: 'Done.', content: json({ type: 'object', required: ['ok'], properties: { ok: { const: true } } }) };

const sessionErrors = {
  '401': error('Not signed in, or (outside verify) the session has not given its two-factor code.'),
  '403': error('CSRF token missing or invalid.'),
};

const redirect = (description: string): Json => ({ description, headers: { Location: { schema: { type: 'string' } } } });

/** Two-factor (TOTP, recovery codes) and OpenID Connect sign-in (docs/teams.md, "Two-factor", "OpenID Connect"). */
export const AUTH_MFA_PATHS: Record<string, Json> = {
  '/auth/two_factor/verify': {
    post: {
      ...publicOperation({
        operationId: 'verifyTwoFactor',
        summary: 'Give the second factor of a sign-in',
        description: `${SESSION} Only on a session that has not yet passed two-factor. A 6-digit TOTP code (one time step of drift either way; each time step accepted once) or an unused recovery code (then used up). A wrong code counts as a failed sign-in: 10 in 15 minutes lock the account and end its sessions.`,
        tag: DASHBOARD_SIGN_IN,
        responses: {
          '200': ok,
          '401': error('`Invalid code` (wrong, or its time step already used), or not signed in.'),
          '403': error('CSRF token missing or invalid.'),
          '422': error('No code given, or this session has no code to give.'),
          '429': error('Too many failures from this address.'),
        },
      }),
      requestBody: body({ code: { type: 'string', description: 'A TOTP code or a recovery code.' } }, ['code']),
    },
  },
  '/auth/two_factor/enrol': {
    post: publicOperation({
      operationId: 'enrolTwoFactor',
      summary: 'Start two-factor enrolment',
      description: `${SESSION} A new TOTP secret, kept (sealed) until confirmed; a second call replaces it.`,
      tag: DASHBOARD_SIGN_IN,
      responses: {
        '200': {
          description: 'The secret, for an authenticator app.',
          content: json({
            type: 'object',
            required: ['secret', 'otpauth_url', 'qr_svg'],
            properties: {
              secret: { type: 'string', description: 'Base32.' },
              otpauth_url: { type: 'string', description: '`otpauth://totp/Mailcast:<email>?secret=…&issuer=Mailcast`' },
              qr_svg: { type: 'string', description: 'The QR code of `otpauth_url`, an SVG document.' },
            },
          }),
        },
        ...sessionErrors,
        '422': error('Two-factor is already enabled.'),
      },
    }),
  },
  '/auth/two_factor/confirm': {
    post: {
      ...publicOperation({
        operationId: 'confirmTwoFactor',
        summary: 'Confirm enrolment with a code',
        description: `${SESSION} Turns two-factor on and answers 10 recovery codes, shown this once (any earlier ones stop working).`,
        tag: DASHBOARD_SIGN_IN,
        responses: {
          '200': {
            description: 'Two-factor is on.',
            content: json({
              type: 'object',
              required: ['recovery_codes'],
              properties: { recovery_codes: { type: 'array', minItems: 10, maxItems: 10, items: { type: 'string', pattern: '^[a-z0-9]{5}-[a-z0-9]{5}$' } } },
            }),
          },
          ...sessionErrors,
          '422': error('`Invalid code`, `Start enrolment first`, or already enabled.'),
        },
      }),
      requestBody: body({ code: { type: 'string' } }, ['code']),
    },
  },
  '/auth/two_factor/disable': {
    post: {
      ...publicOperation({
        operationId: 'disableTwoFactor',
        summary: 'Turn two-factor off',
        description: `${SESSION} With the user's password. Refused while MAILCAST_REQUIRE_2FA is on.`,
        tag: DASHBOARD_SIGN_IN,
        responses: {
          '200': ok,
          ...sessionErrors,
          '422': error('`Password is incorrect`, or `Two-factor is required on this installation`.'),
        },
      }),
      requestBody: body({ password: { type: 'string' } }, ['password']),
    },
  },
  '/auth/providers': {
    get: publicOperation({
      operationId: 'signInProviders',
      summary: 'How users may sign in',
      description: 'Password sign-in always; OpenID Connect when OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET are set.',
      tag: DASHBOARD_SIGN_IN,
      responses: {
        '200': {
          description: 'The methods.',
          content: json({ type: 'object', required: ['password', 'oidc'], properties: { password: { const: true }, oidc: { type: 'boolean' } } }),
        },
      },
    }),
  },
  '/auth/oidc/start': {
    get: publicOperation({
      operationId: 'startOidcSignIn',
      summary: 'Sign in with the OpenID Connect provider',
      description:
        'Redirects the browser to the provider (authorization code flow with state, nonce and PKCE), which are kept in the sealed, 10-minute `mailcast_oidc` cookie.',
      tag: DASHBOARD_SIGN_IN,
      responses: { '302': redirect('To the provider.'), '404': error('OpenID Connect is not configured.') },
    }),
  },
  '/auth/oidc/callback': {
    get: publicOperation({
      operationId: 'finishOidcSignIn',
      summary: "The provider's redirect back",
      description:
        'Verifies the answer against the `mailcast_oidc` cookie, matches an existing active user by the verified email, and starts a session (two-factor counted as given by the provider). Any failure (no such user, email not verified, forged state, provider error) redirects to `/app/sign-in?error=oidc`.',
      tag: DASHBOARD_SIGN_IN,
      parameters: [
        { name: 'code', in: 'query', schema: { type: 'string' } },
        { name: 'state', in: 'query', schema: { type: 'string' } },
      ],
      responses: {
        '302': redirect('To `/app` with the `mailcast_session` cookie, or to `/app/sign-in?error=oidc`.'),
        '404': error('OpenID Connect is not configured.'),
      },
    }),
  },
};

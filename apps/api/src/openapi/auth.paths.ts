import { CHANNEL_FLAGS, MIN_PASSWORD_LENGTH, SYSTEM_PERMISSIONS } from '@mailcast/domain';
import { json, type Json } from './operation';
import { arrayOf, boolean, closed, dateTime, integer, nullableString, string, type Schema } from './schema-helpers';

/**
 * The dashboard's sign-in (docs/teams.md, Signing in; CONTRACT §4.5b): JSON under /auth, outside
 * /api/v1. The routes that need a session name the `sessionCookie` scheme; their state-changing
 * calls also carry X-CSRF-Token.
 */
export const SIGN_IN = 'Dashboard sign-in';

const error = (description: string, message?: string): Json => ({
  description,
  content: json(message === undefined ? { $ref: '#/components/schemas/Error' } : closed({ error: { const: message } })),
});

const flags = (names: readonly string[], description: string): Schema => closed(Object.fromEntries(names.map((f) => [f, boolean()])), description);

const sessionUser: Schema = closed(
  {
    id: integer(),
    email: string(),
    first_name: nullableString(),
    last_name: nullableString(),
    sudo: boolean('May do everything everywhere; set only by the admin CLI.'),
    two_factor_enabled: boolean(),
    system_permissions: flags(SYSTEM_PERMISSIONS, 'What the user may do over the installation.'),
  },
  'The signed-in user.',
);

const signedIn: Schema = closed({
  user: sessionUser,
  csrf_token: string('Send it as `X-CSRF-Token` on every state-changing request made with the session.'),
  two_factor_required: boolean('The user has two-factor on: `POST /auth/two_factor/verify` before anything else.'),
  two_factor_enrolment_required: boolean('Two-factor is mandatory on this installation and the user has not enrolled.'),
});

const sessionView: Schema = closed({
  ...(signedIn.properties as Record<string, Schema>),
  channels: arrayOf(
    closed({
      id: integer(),
      name: string(),
      slug: string(),
      role: string('`Viewer`, `Editor`, `Manager`, a preset name, or `Custom`. A sudo user is Manager everywhere.'),
      permissions: flags(CHANNEL_FLAGS, 'The channel flags (docs/teams.md, Channel permissions).'),
    }),
    'The channels the user may act for (send `X-Mailcast-Channel: <id>` with /api/v1 calls); empty until the second factor is given.',
  ),
});

const userSession: Schema = closed({
  id: integer(),
  created_at: dateTime(),
  last_seen_at: dateTime(),
  ip: nullableString(),
  user_agent: nullableString(),
  current: boolean('The session this request was made with.'),
});

const message: Schema = closed({ message: string() });

const COOKIE = [{ sessionCookie: [] }];
const CSRF: Json = { name: 'X-CSRF-Token', in: 'header', required: true, description: "The session's `csrf_token`.", schema: { type: 'string' } };

const body = (properties: Record<string, Schema>): Json => ({ required: true, content: json({ ...closed(properties), required: Object.keys(properties) }) });

/** The refusals of an unauthenticated POST (not JSON, or another origin), and of a malformed body. */
const UNAUTHENTICATED_POST: Record<string, Json> = {
  '400': error('The body is not valid JSON.'),
  '403': error("Not `Content-Type: application/json`, or an `Origin` other than this server's."),
  '500': error('Unexpected.'),
  '503': error('The database cannot be reached.'),
};
const SIGNED_IN_ERRORS: Record<string, Json> = {
  '401': error('No live session (`{"error": "Not signed in"}`), or the second factor is still to be given (`{"error": "Two-factor code required"}`).'),
  '500': error('Unexpected.'),
  '503': error('The database cannot be reached.'),
};
const CSRF_ERROR = { '403': error("The session's CSRF token is missing or wrong.", 'CSRF token missing or invalid') };

const op = (o: {
  operationId: string;
  summary: string;
  description: string;
  cookie: boolean;
  parameters?: Json[];
  requestBody?: Json;
  responses: Record<string, Json>;
}): Json => ({
  operationId: o.operationId,
  summary: o.summary,
  description: o.description,
  tags: [SIGN_IN],
  security: o.cookie ? COOKIE : [],
  ...(o.parameters ? { parameters: o.parameters } : {}),
  ...(o.requestBody ? { requestBody: o.requestBody } : {}),
  responses: o.responses,
});

export const AUTH_PATHS: Record<string, Json> = {
  '/auth/sign_in': {
    post: op({
      operationId: 'signIn',
      summary: 'Sign in with email and password',
      description:
        'Starts a new session (a new `mailcast_session` cookie: HttpOnly, SameSite=Strict, Secure under https); a cookie the client already had is never reused. 10 failures of one account within 15 minutes lock it for 15 minutes; 20 failures from one address within 15 minutes answer 429.',
      cookie: false,
      requestBody: body({ email: string(), password: string() }),
      responses: {
        '200': {
          description: 'Signed in.',
          headers: { 'Set-Cookie': { description: 'The session cookie `mailcast_session`.', schema: { type: 'string' } } },
          content: json(signedIn),
        },
        '401': error('Unknown email, wrong password, inactive or locked account: one answer for all.', 'Invalid email or password'),
        '422': error('`email` or `password` missing or not a string.'),
        '429': { ...error('Too many failed sign-ins from this address.'), headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } },
        ...UNAUTHENTICATED_POST,
      },
    }),
  },
  '/auth/session': {
    get: op({
      operationId: 'getSession',
      summary: 'The signed-in user, the CSRF token and the channels',
      description: 'Answers the current session (the dashboard calls it on load); a use keeps the session from idling out (12 h).',
      cookie: true,
      responses: { '200': { description: 'The session.', content: json(sessionView) }, ...SIGNED_IN_ERRORS },
    }),
  },
  '/auth/sign_out': {
    post: op({
      operationId: 'signOut',
      summary: 'Sign out',
      description: 'Revokes the session and clears the cookie. Without a live session it only clears the cookie.',
      cookie: true,
      parameters: [CSRF],
      responses: { '204': { description: 'Signed out.' }, ...CSRF_ERROR, '500': error('Unexpected.'), '503': error('The database cannot be reached.') },
    }),
  },
  '/auth/sessions': {
    get: op({
      operationId: 'listSessions',
      summary: "The user's live sessions",
      description: 'Every session of the signed-in user not revoked and used within 12 hours, the most recently used first.',
      cookie: true,
      responses: { '200': { description: 'The sessions.', content: json(closed({ data: arrayOf(userSession) })) }, ...SIGNED_IN_ERRORS },
    }),
  },
  '/auth/sessions/{id}': {
    delete: op({
      operationId: 'revokeSession',
      summary: 'Revoke one of your sessions',
      description: "Signs that session out. Another user's session, or one already ended, is a 404.",
      cookie: true,
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }, CSRF],
      responses: {
        '204': { description: 'Revoked.' },
        '404': error('No such live session of yours.', 'Session not found'),
        ...CSRF_ERROR,
        ...SIGNED_IN_ERRORS,
      },
    }),
  },
  '/auth/password/forgot': {
    post: op({
      operationId: 'forgotPassword',
      summary: 'Ask for a password reset link',
      description:
        "Emails a one-use link valid 2 hours to the address if it belongs to an active user, through the installation's system sender. The answer is the same whether or not it does.",
      cookie: false,
      requestBody: body({ email: string() }),
      responses: {
        '202': { description: 'Always.', content: json(message) },
        '422': error('`email` missing or not a string.'),
        ...UNAUTHENTICATED_POST,
      },
    }),
  },
  '/auth/password/reset': {
    post: op({
      operationId: 'resetPassword',
      summary: 'Set a new password with a reset link',
      description: `Sets the password (at least ${MIN_PASSWORD_LENGTH} characters), clears a lockout and revokes every session of the user. The link works once.`,
      cookie: false,
      requestBody: body({ token: string('The `token` of the link.'), password: string() }),
      responses: {
        '200': { description: 'The password is set; sign in with it.', content: json(message) },
        '422': error('A used, expired or unknown link (`{"error": "This reset link is invalid or has expired"}`), or a password too short.'),
        ...UNAUTHENTICATED_POST,
      },
    }),
  },
  '/auth/password/change': {
    post: op({
      operationId: 'changePassword',
      summary: 'Change your password',
      description: `The current password and a new one (at least ${MIN_PASSWORD_LENGTH} characters). Every other session of the user is revoked; this one stays.`,
      cookie: true,
      parameters: [CSRF],
      requestBody: body({ current_password: string(), new_password: string() }),
      responses: {
        '200': { description: 'Changed.', content: json(message) },
        '400': error('The body is not valid JSON.'),
        '422': error('The current password is wrong (`{"error": "Current password is incorrect"}`), or the new one is too short.'),
        ...CSRF_ERROR,
        ...SIGNED_IN_ERRORS,
      },
    }),
  },
};

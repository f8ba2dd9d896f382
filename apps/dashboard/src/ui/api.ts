import type { Schemas } from '@mailcast/client';

export type { Schemas };
export type Broadcast = Schemas['Broadcast'];
export type Subscriber = Schemas['Subscriber'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type EventType = Schemas['EventType'];
export type Sequence = Schemas['Sequence'];
export type SequenceStep = Schemas['SequenceStep'];
export type SequenceStepInput = Schemas['SequenceStepInput'];
export type Enrolment = Schemas['SubscriberSequence'];
export type OptInForm = Schemas['OptInForm'];
export type OptInFormBlock = Schemas['OptInFormBlock'];
export type OptInFormInput = Schemas['OptInFormInput'];
export type OptInFormAnalytics = Schemas['OptInFormAnalytics'];
export type Topic = Schemas['Topic'];
export type TopicWithCounts = Schemas['TopicWithCounts'];
export type Segment = Schemas['Segment'];

/**
 * The API token lives in sessionStorage only: it survives a reload of the tab, is gone when the
 * tab closes, and is never put in a URL, a cookie or a log (docs/dashboard.md, "Token").
 */
const TOKEN_KEY = 'mailcast.token';

export const tokenStore = {
  get: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  set: (token: string): void => sessionStorage.setItem(TOKEN_KEY, token),
  clear: (): void => sessionStorage.removeItem(TOKEN_KEY),
};

/** An answer outside 2xx; `message` is the API's own `error`, or its field `errors` joined. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The answer's parsed body, for a page that shows `errors` beside each field. */
    readonly body?: unknown,
  ) {
    super(message);
  }

  /** The 422's field `errors` as the API keys them (`name`, `rules[2]`), so a page can show each beside its field. */
  get fields(): Readonly<Record<string, readonly string[]>> {
    return fieldsOf(this.body);
  }
}

function fieldsOf(body: unknown): Record<string, string[]> {
  const errors = typeof body === 'object' && body !== null ? (body as { errors?: unknown }).errors : undefined;
  if (typeof errors !== 'object' || errors === null) return {};
  return Object.fromEntries(Object.entries(errors).map(([field, messages]) => [field, Array.isArray(messages) ? messages.map(String) : [String(messages)]]));
}

function messageOf(status: number, body: unknown): string {
  if (typeof body === 'object' && body !== null) {
    const { error, errors } = body as { error?: unknown; errors?: unknown };
    if (typeof error === 'string') return error;
    if (typeof errors === 'object' && errors !== null) {
      return Object.entries(errors)
        .map(([field, messages]) => `${field} ${Array.isArray(messages) ? messages.join(', ') : String(messages)}`)
        .join('; ');
    }
  }
  if (typeof body === 'string' && body.trim() !== '') return body.trim().slice(0, 300);
  return `The API answered ${status}`;
}

let onUnauthorized: () => void = () => undefined;
/** Called when the API refuses the token or the session (401): the app signs out. */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

/**
 * How the tab calls /api/v1 (docs/dashboard.md, "Signing in"): with the API token pasted in, or
 * with a user's session cookie (HttpOnly, sent by the browser), its CSRF token on every write and
 * the channel the user picked in `X-Mailcast-Channel`.
 */
export type Credentials = { kind: 'token' } | { kind: 'session'; csrf: string; channelId: number | null };
let credentials: Credentials = { kind: 'token' };
export function setCredentials(next: Credentials): void {
  credentials = next;
}
export function currentCredentials(): Credentials {
  return credentials;
}

/**
 * Whether this browser signed in with a password (localStorage, `"1"` only: the cookie itself is
 * HttpOnly and invisible here). Only then does a fresh page ask /auth/session, so a visitor who
 * never signed in does not provoke a 401 on every load.
 */
const SESSION_HINT_KEY = 'mailcast.session';
export const sessionHint = {
  get: (): boolean => localStorage.getItem(SESSION_HINT_KEY) === '1',
  set: (): void => localStorage.setItem(SESSION_HINT_KEY, '1'),
  clear: (): void => localStorage.removeItem(SESSION_HINT_KEY),
};

type Query = Record<string, string | number | boolean | readonly string[] | undefined | null>;

export function queryString(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === '') continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * A 401 from /api/v1 means a dead token, but for a session it may also be a missing permission
 * (the spec answers that with 401 too): the session is asked whether it still lives, and only a
 * 401 there signs the tab out (docs/dashboard.md, "Signing in").
 */
function signOutIfSessionEnded(): void {
  if (credentials.kind === 'token') {
    onUnauthorized();
    return;
  }
  void fetch('/auth/session', { credentials: 'same-origin', cache: 'no-store', headers: { Accept: 'application/json' } })
    .then((r) => {
      if (r.status === 401) onUnauthorized();
    })
    .catch(() => undefined);
}

async function send<T>(url: string, method: string, headers: Record<string, string>, body: unknown, signOutOn401: boolean): Promise<T> {
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      cache: 'no-store',
      credentials: 'same-origin',
    });
  } catch {
    throw new ApiError(0, 'The API cannot be reached: check the connection and try again.');
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // kept as text: shown as the message below
  }
  if (!response.ok) {
    if (response.status === 401 && signOutOn401) signOutIfSessionEnded();
    throw new ApiError(response.status, messageOf(response.status, parsed), parsed);
  }
  return parsed as T;
}

/**
 * One call to /api/v1 as the tab is signed in (token or session; `token` forces a token, as the
 * token sign-in checks one); rejects with an ApiError carrying the API's message.
 */
export async function api<T>(
  method: string,
  path: string,
  options: { query?: Query; body?: unknown; token?: string; channelId?: number | null } = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (options.token !== undefined || credentials.kind === 'token') {
    headers.Authorization = `Bearer ${options.token ?? tokenStore.get() ?? ''}`;
  } else {
    if (!READS.has(method)) headers['X-CSRF-Token'] = credentials.csrf;
    const channel = options.channelId !== undefined ? options.channelId : credentials.channelId;
    if (channel !== null) headers['X-Mailcast-Channel'] = String(channel);
  }
  return send<T>(`/api/v1${path}${queryString(options.query)}`, method, headers, options.body, options.token === undefined);
}

/**
 * One call to the sign-in endpoints under /auth (JSON both ways; the CSRF token on writes once
 * there is a session). A 401 there is an answer (wrong password, wrong code), not a sign-out.
 */
export async function authApi<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (!READS.has(method) && credentials.kind === 'session' && credentials.csrf !== '') headers['X-CSRF-Token'] = credentials.csrf;
  return send<T>(`/auth${path}`, method, headers, body ?? (READS.has(method) ? undefined : {}), false);
}

/** The signed-in user as /auth/session answers it (docs/teams.md, "The dashboard's team pages"). */
export interface SessionUser {
  id: number;
  email: string;
  first_name: string | null;
  last_name: string | null;
  sudo: boolean;
  two_factor_enabled: boolean;
  system_permissions: Record<string, boolean>;
}
export interface SessionChannel {
  id: number;
  name: string;
  slug: string;
  role: string;
  permissions: Record<string, boolean>;
}
export interface SessionState {
  user: SessionUser;
  csrf_token: string;
  two_factor_required: boolean;
  two_factor_enrolment_required: boolean;
  channels?: SessionChannel[];
}

/** Who the tab is: its API permissions and channel (GET /api/v1/whoami), and the user when signed in with a password. */
export interface Identity {
  tokenId: number;
  permissions: readonly string[];
  channel: { id: number; name: string; slug: string } | null;
  user?: SessionUser;
  channels?: readonly SessionChannel[];
}

/** whoami answers every permission name with true or false (docs/discovery.md); the granted ones, for a token or a signed-in user. */
function grantedIn(body: Schemas['WhoAmI']): string[] {
  const held = body.type === 'user' ? body.user.permissions : body.token.permissions;
  return Object.entries(held)
    .filter(([, granted]) => granted === true)
    .map(([name]) => name);
}

export async function whoami(token: string): Promise<Identity> {
  const body = await api<Schemas['WhoAmI']>('GET', '/whoami', { token });
  // An admin token names a channel per request (docs/auth.md); the dashboard works in one channel.
  if (body.channel === null) throw new Error('This is an admin token: sign in to the dashboard with a channel token.');
  const permissions = grantedIn(body);
  return { tokenId: body.type === 'user' ? 0 : body.token.id, permissions, channel: { id: body.channel.id, name: body.channel.name, slug: body.channel.slug } };
}

/**
 * A signed-in user's identity in one channel: the API permissions their flags grant there, as the
 * API itself computes them (whoami with the session), so the pages show what the API will allow.
 * No channel (a user with none yet): no permissions, the account pages only.
 */
export async function sessionIdentity(session: SessionState, channelId: number | null, early?: Schemas['WhoAmI']): Promise<Identity> {
  const channels = session.channels ?? [];
  const base = { tokenId: 0, user: session.user, channels };
  if (channelId === null) return { ...base, permissions: [], channel: null };
  // A whoami asked before the session answered (earlyWhoami) counts only when it names this channel.
  const body = early?.channel?.id === channelId ? early : await api<Schemas['WhoAmI']>('GET', '/whoami', { channelId });
  const channel = body.channel ?? channels.find((c) => c.id === channelId) ?? null;
  return { ...base, permissions: grantedIn(body), channel: channel && { id: channel.id, name: channel.name, slug: channel.slug } };
}

/**
 * whoami with the session cookie, asked at the same time as `GET /auth/session` when a page is
 * opened (docs/dashboard.md, "Restoring a session"): for the channel picked last in this tab, or
 * with none named (the API's default, the user's first channel). Never signs out: a 401 here (a
 * session waiting for its second factor, or none) only means the answer is not used.
 */
export function earlyWhoami(channelId: number | null): Promise<Schemas['WhoAmI'] | undefined> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (channelId !== null) headers['X-Mailcast-Channel'] = String(channelId);
  return send<Schemas['WhoAmI']>('/api/v1/whoami', 'GET', headers, undefined, false).catch(() => undefined);
}

export function can(identity: Identity, permission: string): boolean {
  return identity.permissions.includes(permission);
}

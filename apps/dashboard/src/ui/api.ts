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
  ) {
    super(message);
  }
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
/** Called when the API refuses the token (401): the app signs out. */
export function whenUnauthorized(handler: () => void): void {
  onUnauthorized = handler;
}

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

/** One call to /api/v1 with the session's token; rejects with an ApiError carrying the API's message. */
export async function api<T>(method: string, path: string, options: { query?: Query; body?: unknown; token?: string } = {}): Promise<T> {
  const token = options.token ?? tokenStore.get() ?? '';
  const headers: Record<string, string> = { Accept: 'application/json', Authorization: `Bearer ${token}` };
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api/v1${path}${queryString(options.query)}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      cache: 'no-store',
    });
  } catch {
    throw new ApiError(0, 'The API cannot be reached: check the connection and try again.');
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    // kept as text: shown as the message below
  }
  if (!response.ok) {
    if (response.status === 401 && options.token === undefined) onUnauthorized();
    throw new ApiError(response.status, messageOf(response.status, body));
  }
  return body as T;
}

/** Who the token is: its permissions and channel (GET /api/v1/whoami). */
export interface Identity {
  tokenId: number;
  permissions: readonly string[];
  channel: { id: number; name: string; slug: string };
}

export async function whoami(token: string): Promise<Identity> {
  const body = await api<Schemas['WhoAmI']>('GET', '/whoami', { token });
  // An admin token names a channel per request (docs/auth.md); the dashboard works in one channel.
  if (body.channel === null) throw new Error('This is an admin token: sign in to the dashboard with a channel token.');
  // whoami answers every permission name with true or false (docs/discovery.md); a signed-in user in place of a token.
  const held = body.type === 'user' ? body.user.permissions : body.token.permissions;
  const permissions = Object.entries(held)
    .filter(([, granted]) => granted === true)
    .map(([name]) => name);
  return { tokenId: body.type === 'user' ? 0 : body.token.id, permissions, channel: { id: body.channel.id, name: body.channel.name, slug: body.channel.slug } };
}

export function can(identity: Identity, permission: string): boolean {
  return identity.permissions.includes(permission);
}

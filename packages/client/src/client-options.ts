import type { RateLimitInfo } from './errors';
import type { QueryOf } from './http';

// What a MailcastClient is made with and what its list calls take, and how an answer's rate-limit
// headers are read: beside the client, which calls them (client.ts).

/** limit (default 25, at most 100) and offset (default 0) of the broadcast, endpoint and delivery lists. */
export type Page = QueryOf<'listBroadcasts'>;

/** The subscriber list's filters, with tags and custom_data as plain values. */
export type SubscriberFilters = Omit<QueryOf<'listSubscribers'>, 'tags[]' | 'custom_data' | 'is_active'> & {
  /** Every listed tag (AND); sent as `tags[]=a&tags[]=b`. */
  tags?: readonly string[];
  /** Containment; sent as `custom_data[key]=value`. */
  custom_data?: Record<string, string | number | boolean>;
  is_active?: boolean;
};

export interface MailcastClientOptions {
  /** Where the service runs, e.g. `https://mail.example.com` (without `/api/v1`). */
  baseUrl: string | URL;
  /** An API token (`mc_…`); its permissions decide which calls succeed. */
  token: string;
  /** Another fetch (a proxy agent, a test double); default the global fetch. */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /** Gives up on a request after this many milliseconds (an AbortError). */
  timeoutMs?: number;
}

export function integerHeader(headers: Headers, name: string): number | undefined {
  const raw = headers.get(name);
  return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw.trim()) : undefined;
}

export function rateLimitOf(headers: Headers): RateLimitInfo | undefined {
  const limit = integerHeader(headers, 'x-ratelimit-limit');
  const remaining = integerHeader(headers, 'x-ratelimit-remaining');
  const reset = headers.get('x-ratelimit-reset');
  if (limit === undefined || remaining === undefined || reset === null) return undefined;
  return { limit, remaining, reset: new Date(reset) };
}

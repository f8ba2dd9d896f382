import { redactSecret, WEBHOOK_SECRET_PREFIX } from './secret';

/**
 * The export API's format (docs/export.md): which collections it answers, how a page and the
 * history window are bounded, and how a secret shows. Parsing is here so the HTTP edge and the
 * tests agree on one set of bounds.
 */

export const EXPORT_FORMAT_VERSION = 1;

/** Every collection of the export, in the order the manifest counts them. */
export const EXPORT_COLLECTIONS = [
  'channels',
  'subscribers',
  'templates',
  'segments',
  'sequences',
  'email_servers',
  'opt_in_forms',
  'broadcasts',
  'outbound_receipts',
  'webhook_endpoints',
  'tokens',
  'suppressions',
  'unsubscribed_emails',
  'tags',
  'users',
  'link_redirects',
  'link_clicks',
  'subscriber_histories',
  'file_assets',
] as const;
export type ExportCollection = (typeof EXPORT_COLLECTIONS)[number];

/** The collections `days_history` narrows, counted again within the window in the manifest's `history`. */
export const EXPORT_HISTORY_COLLECTIONS = ['broadcasts', 'outbound_receipts', 'link_clicks', 'subscriber_histories'] as const;
export type ExportHistoryCollection = (typeof EXPORT_HISTORY_COLLECTIONS)[number];

export const EXPORT_PAGE = { defaultLimit: 250, maxLimit: 250 } as const;
export const EXPORT_DAYS = { default: 90, min: 1, max: 365 } as const;

/** What an SMTP password or DKIM private key that is set shows as: the value is never read, let alone opened. */
export const REDACTED = '[REDACTED]';

/**
 * A webhook secret as the export shows it: the redacted form's shape (`whsec_` and 44 `*`) with
 * no character of the secret, because the export never opens a sealed secret (docs/export.md).
 */
export const EXPORT_WEBHOOK_SECRET = redactSecret(WEBHOOK_SECRET_PREFIX + '*'.repeat(44));

export function isExportCollection(name: string): name is ExportCollection {
  return (EXPORT_COLLECTIONS as readonly string[]).includes(name);
}

export function isExportHistoryCollection(name: ExportCollection): name is ExportHistoryCollection {
  return (EXPORT_HISTORY_COLLECTIONS as readonly string[]).includes(name);
}

/** The outcome of reading one query parameter: its value, or the 422's message. */
export type ExportParsed<T> = { ok: true; value: T } | { ok: false; error: string };

const WHOLE = /^\d{1,15}$/;

function wholeNumber(raw: unknown): number | null {
  return typeof raw === 'string' && WHOLE.test(raw) ? Number(raw) : null;
}

/** `limit` 1..250 (default 250; larger is clamped and the applied value answered), `offset` ≥ 0 (default 0). */
export function parseExportPage(limitRaw: unknown, offsetRaw: unknown): ExportParsed<{ limit: number; offset: number }> {
  let limit: number = EXPORT_PAGE.defaultLimit;
  if (limitRaw !== undefined) {
    const n = wholeNumber(limitRaw);
    if (n === null || n < 1) return { ok: false, error: 'limit must be an integer from 1 to 250' };
    limit = Math.min(n, EXPORT_PAGE.maxLimit);
  }
  let offset = 0;
  if (offsetRaw !== undefined) {
    const n = wholeNumber(offsetRaw);
    if (n === null) return { ok: false, error: 'offset must be a non-negative integer' };
    offset = n;
  }
  return { ok: true, value: { limit, offset } };
}

/** `days_history` 1..365; `undefined` when absent (the manifest then uses 90, a collection its whole history). */
export function parseExportDays(raw: unknown): ExportParsed<number | undefined> {
  if (raw === undefined) return { ok: true, value: undefined };
  const n = wholeNumber(raw);
  if (n === null || n < EXPORT_DAYS.min || n > EXPORT_DAYS.max) return { ok: false, error: 'days_history must be an integer from 1 to 365' };
  return { ok: true, value: n };
}

/** The first instant of a window of `days` days ending at `now`. */
export function historySince(now: Date, days: number): Date {
  return new Date(now.getTime() - days * 86_400_000);
}

import { createHash } from 'node:crypto';

/** A transactional email's states (docs/transactionals.md). */
export const TRANSACTIONAL_STATUSES = ['queued', 'awaiting_confirmation', 'sent', 'delivered', 'bounced', 'failed', 'suppressed'] as const;
export type TransactionalStatus = (typeof TRANSACTIONAL_STATUSES)[number];

/** An Idempotency-Key is remembered this long. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_KEY_MAX = 255;

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

/** The body's identity for an idempotent retry: the same JSON, whatever the order of its keys. */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body ?? null)))
    .digest('hex');
}

import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec "Signature": header names kept as the spec gives them (docs/webhooks.md). */
export const WEBHOOK_HEADERS = {
  id: 'broadcast-webhook-id',
  timestamp: 'broadcast-webhook-timestamp',
  signature: 'broadcast-webhook-signature',
} as const;

/** Spec Limits: recommended replay tolerance. */
export const DEFAULT_WEBHOOK_TOLERANCE_SECONDS = 300;

const SCHEME = 'v1,';

function hmacBase64(secret: string, timestamp: string, rawBody: string | Uint8Array): string {
  // Spec rules 1–2: HMAC-SHA256 over "<timestamp>.<raw body>", keyed with the UTF-8 bytes of the
  // whole secret string (prefix included; it is not Base64-decoded as Standard Webhooks does).
  const hmac = createHmac('sha256', Buffer.from(secret, 'utf8'));
  hmac.update(`${timestamp}.`, 'utf8');
  if (typeof rawBody === 'string') hmac.update(rawBody, 'utf8');
  else hmac.update(rawBody);
  return hmac.digest('base64');
}

/**
 * `v1,<base64>` for one delivery. `timestamp` is Unix seconds, the exact value sent in
 * broadcast-webhook-timestamp; a non-integer would make a header no receiver can verify, so it
 * is a programming error.
 */
export function signWebhook(secret: string, timestamp: number, rawBody: string | Uint8Array): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError(`Webhook timestamp must be a non-negative integer of seconds, got ${timestamp}`);
  }
  return SCHEME + hmacBase64(secret, String(timestamp), rawBody);
}

export type WebhookSignatureHeaders = {
  [WEBHOOK_HEADERS.id]: string;
  [WEBHOOK_HEADERS.timestamp]: string;
  [WEBHOOK_HEADERS.signature]: string;
};

export function signedHeaders(input: { eventId: number | string; secret: string; timestamp: number; rawBody: string | Uint8Array }): WebhookSignatureHeaders {
  return {
    [WEBHOOK_HEADERS.id]: String(input.eventId),
    [WEBHOOK_HEADERS.timestamp]: String(input.timestamp),
    [WEBHOOK_HEADERS.signature]: signWebhook(input.secret, input.timestamp, input.rawBody),
  };
}

export type VerifyWebhookResult =
  | { ok: true; id: string; timestamp: number }
  | {
      ok: false;
      reason: 'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'invalid_signature';
    };

export type VerifyWebhookOptions = {
  /** Allowed distance between the header timestamp and `now`, either direction. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock: a Date or milliseconds since the epoch. Default Date.now(). */
  now?: Date | number;
};

type HeaderBag = Record<string, string | string[] | undefined>;

/** Case-insensitive lookup; repeated headers (arrays) are joined with a space. */
function header(headers: HeaderBag, name: string): string | undefined {
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== name) continue;
    const value: unknown = headers[key];
    if (typeof value === 'string') return value;
    if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.join(' ');
    return undefined;
  }
  return undefined;
}

/**
 * Receiver-side check of one delivery (spec rule 3). Pass the body exactly as received (for
 * Express: `express.raw({ type: 'application/json' })`), never a re-serialized object. Checks,
 * in order: the three headers, the timestamp's form, its distance from `now`, then the
 * signature. The header may list several space-separated `v1,` signatures (e.g. during secret
 * rotation); one match is enough. Never throws: any malformed input is a refusal.
 */
export function verifyWebhook(secret: string, headers: HeaderBag, rawBody: string | Uint8Array, options: VerifyWebhookOptions = {}): VerifyWebhookResult {
  try {
    if (headers === null || typeof headers !== 'object') return { ok: false, reason: 'missing_headers' };
    const id = header(headers, WEBHOOK_HEADERS.id)?.trim();
    const timestampHeader = header(headers, WEBHOOK_HEADERS.timestamp)?.trim();
    const signatureHeader = header(headers, WEBHOOK_HEADERS.signature)?.trim();
    if (!id || !timestampHeader || !signatureHeader) return { ok: false, reason: 'missing_headers' };

    if (!/^\d{1,15}$/.test(timestampHeader)) return { ok: false, reason: 'invalid_timestamp' };
    const timestamp = Number(timestampHeader);

    const now = options.now ?? Date.now();
    const nowMs = now instanceof Date ? now.getTime() : now;
    const tolerance = options.toleranceSeconds ?? DEFAULT_WEBHOOK_TOLERANCE_SECONDS;
    // Written as !(x <= y) so a NaN clock or tolerance refuses instead of letting everything in.
    if (!(Math.abs(nowMs - timestamp * 1000) <= tolerance * 1000)) {
      return { ok: false, reason: 'timestamp_out_of_tolerance' };
    }

    if (typeof secret !== 'string' || secret === '') return { ok: false, reason: 'invalid_signature' };
    if (typeof rawBody !== 'string' && !(rawBody instanceof Uint8Array)) {
      return { ok: false, reason: 'invalid_signature' };
    }
    // Sign the timestamp exactly as it appears in the header: it is part of the signed string.
    const expected = Buffer.from(SCHEME + hmacBase64(secret, timestampHeader, rawBody), 'utf8');
    let matched = false;
    for (const candidate of signatureHeader.split(/\s+/)) {
      const given = Buffer.from(candidate, 'utf8');
      // timingSafeEqual needs equal lengths; a length mismatch reveals nothing about the secret.
      // No early exit, so the time spent does not depend on which entry matched.
      if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
    }
    return matched ? { ok: true, id, timestamp } : { ok: false, reason: 'invalid_signature' };
  } catch {
    return { ok: false, reason: 'invalid_signature' };
  }
}

import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * A request a receiver refuses: 400 malformed, 401 not from the provider (forged, replayed,
 * stale), 502 when the provider could not be reached to confirm a subscription.
 */
export class InboundRefused extends Error {
  constructor(
    readonly status: 400 | 401 | 502,
    message: string,
  ) {
    super(message);
    this.name = 'InboundRefused';
  }
}

export const malformed = (message: string) => new InboundRefused(400, message);
export const unauthentic = (message: string) => new InboundRefused(401, message);

/** Constant-time equality of two strings of any lengths (compares their SHA-256). */
export function sameSecret(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Signed requests older or newer than this are refused, as stale or forged. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60 * 1000;

export function checkFresh(timestampMs: number, nowMs: number): void {
  if (!Number.isFinite(timestampMs)) throw malformed('Timestamp is missing or malformed');
  if (Math.abs(nowMs - timestampMs) > TIMESTAMP_TOLERANCE_MS) throw unauthentic('Timestamp is too old or in the future');
}

/** A JSON body, or a 400. */
export function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw malformed('Body is not valid JSON');
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

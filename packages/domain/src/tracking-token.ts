import { createHmac, timingSafeEqual } from 'node:crypto';

/*
 * Tracking and unsubscribe links carry `<recipient id>-<MAC>`: the MAC is an HMAC-SHA256 of the
 * recipient id under a random secret of the broadcast (132 bits kept), so a token cannot be
 * forged or enumerated, and no per-recipient random value has to be generated or indexed.
 */

const MAC_LENGTH = 22;
const TOKEN = /^([1-9]\d{0,15})-([A-Za-z0-9_-]{22})$/;

function mac(secret: Uint8Array, recipientId: number): string {
  return createHmac('sha256', secret).update(`recipient:${recipientId}`).digest('base64url').slice(0, MAC_LENGTH);
}

export function trackingToken(secret: Uint8Array, recipientId: number): string {
  return `${recipientId}-${mac(secret, recipientId)}`;
}

/** The recipient id a well-formed token names (not yet verified), or null. */
export function trackingTokenRecipient(token: string): number | null {
  const m = TOKEN.exec(token);
  return m ? Number(m[1]) : null;
}

/** Constant-time check of a token against the broadcast's secret. */
export function verifyTrackingToken(secret: Uint8Array, token: string): boolean {
  const m = TOKEN.exec(token);
  if (!m) return false;
  const expected = Buffer.from(mac(secret, Number(m[1])));
  const given = Buffer.from(m[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

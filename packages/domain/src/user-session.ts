import { createHash, createHmac } from 'node:crypto';

/**
 * Dashboard sessions (docs/teams.md, Signing in): the cookie's value is 32 random bytes in
 * base64url, stored only as its SHA-256, like an API token. The CSRF token is derived from the
 * cookie's value (an HMAC keyed by it), so it is as random as the session, is stored only as its
 * hash too, and can still be answered again by `GET /auth/session` to the holder of the cookie.
 */
export const SESSION_SECRET_BYTES = 32;

/** 12 hours without a request end a session (docs/teams.md, Signing in). */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
/** last_seen_at is written at most this often per session: not one write per API request. */
export const SESSION_TOUCH_EVERY_MS = 60 * 1000;

/** 10 failures of one account within 15 minutes lock it for 15 minutes (docs/teams.md, Lockout). */
export const LOCKOUT_FAILURES = 10;
export const LOCKOUT_WINDOW_MS = 15 * 60 * 1000;
export const LOCKOUT_MS = 15 * 60 * 1000;
/** 20 failed sign-ins from one client address within 15 minutes: 429 until the window rolls over. */
export const SIGN_IN_FAILURES_PER_ADDRESS = 20;
export const SIGN_IN_ADDRESS_WINDOW_MS = 15 * 60 * 1000;

export function formatSessionSecret(random: Uint8Array): string {
  if (random.length !== SESSION_SECRET_BYTES) throw new RangeError(`a session secret needs exactly ${SESSION_SECRET_BYTES} random bytes`);
  return Buffer.from(random).toString('base64url');
}

/** What is stored of a cookie value, a CSRF token or a reset token: its SHA-256. */
export function hashSessionSecret(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The CSRF token bound to a session's cookie value. */
export function csrfTokenFor(cookieValue: string): string {
  return createHmac('sha256', cookieValue).update('mailcast csrf token').digest('base64url');
}

/** A session is live until revoked or idle for SESSION_IDLE_MS. */
export function sessionIsLive(session: { lastSeenAt: Date; revokedAt: Date | null }, now: Date): boolean {
  return session.revokedAt === null && now.getTime() - session.lastSeenAt.getTime() < SESSION_IDLE_MS;
}

import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Every permission a token may hold (docs/auth.md): the six of the seed API, then those of the
 * wider API (email servers, suppressions, templates, transactionals, segments, sequences, opt-in forms, channel settings), then the
 * admin-only users, export and audit log (docs/teams.md). A token holds a
 * subset; a route needing one it lacks answers the spec's 401.
 */
export const PERMISSIONS = [
  'broadcasts_read',
  'broadcasts_write',
  'subscribers_read',
  'subscribers_write',
  'webhook_endpoints_read',
  'webhook_endpoints_write',
  'email_servers_read',
  'email_servers_write',
  'suppressions_read',
  'suppressions_write',
  'global_suppressions_write',
  'templates_read',
  'templates_write',
  'transactionals_read',
  'transactionals_write',
  'segments_read',
  'segments_write',
  'sequences_read',
  'sequences_write',
  'opt_in_forms_read',
  'opt_in_forms_write',
  'channel_settings_read',
  'channel_settings_write',
  'users_read',
  'users_write',
  'migration_read',
  'audit_log_read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

/**
 * Permissions over what every channel shares (docs/auth.md, Admin tokens): only an admin
 * (cross-channel) token may hold them. A channel token, `channel create`'s included, never does:
 * one channel must not change what every other channel may send.
 */
export const ADMIN_ONLY_PERMISSIONS: readonly Permission[] = ['global_suppressions_write', 'users_read', 'users_write', 'migration_read', 'audit_log_read'];

/** Every permission a channel token may hold. */
export const CHANNEL_PERMISSIONS: readonly Permission[] = PERMISSIONS.filter((p) => !ADMIN_ONLY_PERMISSIONS.includes(p));

/** The two kinds of token: one channel's, or an installation admin's that names a channel per request. */
export type ApiTokenType = 'channel' | 'admin_cross_channel';

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

const TOKEN_PREFIX = 'mc_';
const TOKEN_BYTES = 32;

/**
 * An API token is `mc_` + base64url of 32 random bytes: 256 bits, so a plain SHA-256 is a
 * sufficient at-rest hash (no slow KDF needed for non-human secrets). Randomness comes in.
 */
export function formatApiToken(random: Uint8Array): string {
  if (random.length !== TOKEN_BYTES) {
    throw new RangeError(`an API token needs exactly ${TOKEN_BYTES} random bytes`);
  }
  return TOKEN_PREFIX + Buffer.from(random).toString('base64url');
}

export function hashApiToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** What may be shown of a token after creation: enough to recognise it, not to use it. */
export function apiTokenPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + 6);
}

/** Constant-time equality of two byte strings (false at once for different lengths). */
export function timingSafeEqualBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

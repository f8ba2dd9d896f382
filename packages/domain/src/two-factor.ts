import { createHash } from 'node:crypto';

/**
 * Two-factor codes (docs/teams.md, "Two-factor"): what a user types is either a 6-digit TOTP
 * code or one of the 10 recovery codes shown once at enrolment. Randomness comes in as bytes.
 */
export const RECOVERY_CODE_COUNT = 10;
/** Bytes a recovery code is made from: one character of RECOVERY_ALPHABET per byte. */
export const RECOVERY_CODE_BYTES = 10;

// 32 letters and digits without i, l, o and 1: read off a screen and typed back without doubt.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz023456789';

/** `xxxxx-xxxxx` (50 bits) from 10 random bytes. */
export function recoveryCodeFrom(bytes: Uint8Array): string {
  if (bytes.length !== RECOVERY_CODE_BYTES) throw new RangeError(`a recovery code needs ${RECOVERY_CODE_BYTES} bytes`);
  const chars = Array.from(bytes, (b) => RECOVERY_ALPHABET[b % 32]!).join('');
  return `${chars.slice(0, 5)}-${chars.slice(5)}`;
}

/** What is compared: case, spaces and dashes do not matter. */
export function normalizeRecoveryCode(input: string): string {
  return input.toLowerCase().replace(/[\s-]/g, '');
}

/** Stored as SHA-256 only (user_recovery_codes.code_hash): 50 random bits need no slow hash. */
export function hashRecoveryCode(input: string): Buffer {
  return createHash('sha256').update(normalizeRecoveryCode(input)).digest();
}

/** A TOTP code as typed (spaces allowed, as apps show `123 456`), or null when it is not one. */
export function totpCodeOf(input: string): string | null {
  const compact = input.replace(/\s/g, '');
  return /^\d{6}$/.test(compact) ? compact : null;
}

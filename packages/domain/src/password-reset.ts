import { createHash } from 'node:crypto';

/**
 * Password reset links (docs/teams.md, Password resets): a random token of 32 bytes, sent once in
 * the link, stored only as its SHA-256, good for two hours and once.
 */
export const PASSWORD_RESET_TOKEN_BYTES = 32;
export const PASSWORD_RESET_TTL_MS = 2 * 60 * 60 * 1000;

export function formatPasswordResetToken(random: Uint8Array): string {
  if (random.length !== PASSWORD_RESET_TOKEN_BYTES) {
    throw new RangeError(`a password reset token needs exactly ${PASSWORD_RESET_TOKEN_BYTES} random bytes`);
  }
  return Buffer.from(random).toString('base64url');
}

export function hashPasswordResetToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** The dashboard page that takes the token: `${PUBLIC_URL}/app/reset-password?token=…`. */
export function passwordResetUrl(publicUrl: string, token: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/app/reset-password?token=${encodeURIComponent(token)}`;
}

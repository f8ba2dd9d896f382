/** A password reset as stored: only the SHA-256 of its token (docs/teams.md, Password resets). */
export interface NewPasswordReset {
  userId: number;
  tokenHash: Buffer;
  expiresAt: Date;
}

/** The `password_resets` table. Redeeming a token (find by hash, mark used) belongs to sign-in. */
export interface PasswordResetStore {
  create(reset: NewPasswordReset): Promise<void>;
}
export const PasswordResetStore = Symbol.for('mailcast.PasswordResetStore');

/**
 * What two-factor sign-in needs (docs/teams.md, "Two-factor"): the user's TOTP state, kept by
 * the store with the secret sealed at rest, and the TOTP and QR code algorithms.
 */
export interface TwoFactorUser {
  id: number;
  email: string;
  /** The secret in clear, opened by the store; pending until two-factor is enabled. */
  totpSecret: string | null;
  twoFactorEnabled: boolean;
}

export interface TwoFactorStore {
  find(userId: number): Promise<TwoFactorUser | null>;
  /** Keeps a new, not yet confirmed secret; false when two-factor is already on (nothing written). */
  savePendingSecret(userId: number, secret: string): Promise<boolean>;
  /**
   * Turns two-factor on with the confirmed secret, records `step` as used and replaces the
   * recovery codes, in one transaction; false (nothing written) when it was on already or the
   * step was used.
   */
  enable(userId: number, step: number, recoveryCodeHashes: readonly Buffer[]): Promise<boolean>;
  /** Records a time step as used; false when it, or a later one, was used already (a replay). */
  acceptStep(userId: number, step: number): Promise<boolean>;
  /** Marks an unused recovery code used; false when none of the user's matches. */
  useRecoveryCode(userId: number, codeHash: Buffer): Promise<boolean>;
  /** Two-factor off: secret, last step and recovery codes gone. */
  disable(userId: number): Promise<void>;
}
export const TwoFactorStore = Symbol.for('mailcast.TwoFactorStore');

export interface Totp {
  /** A new base32 secret. */
  generateSecret(): string;
  /** The time step `code` belongs to, at `at` give or take one step; null when it matches none. */
  stepOf(secret: string, code: string, at: Date): Promise<number | null>;
  /** The otpauth:// URI an authenticator app reads. */
  uri(secret: string, account: string): string;
}
export const Totp = Symbol.for('mailcast.Totp');

export interface QrCodes {
  /** The QR code of `text` as an SVG document. */
  svg(text: string): Promise<string>;
}
export const QrCodes = Symbol.for('mailcast.QrCodes');

import type { ChannelFlags } from '@mailcast/domain';

/**
 * What signing in needs of users, sessions and reset links (docs/teams.md, Signing in). Kept apart
 * from the users API's repository: these read and write only the columns sign-in owns
 * (password hash, lockout, sessions, resets), never what an administrator sets.
 */
export interface SignInUser {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  active: boolean;
  sudo: boolean;
  /** argon2id PHC string; null until the user sets one (or for OIDC-only users). */
  passwordHash: string | null;
  lockedUntil: Date | null;
  twoFactorEnabled: boolean;
  systemPermissions: Record<string, unknown>;
}

export interface UserSession {
  id: number;
  userId: number;
  twoFactorPassed: boolean;
  ip: string | null;
  userAgent: string | null;
  createdAt: Date;
  lastSeenAt: Date;
  revokedAt: Date | null;
}

/** One channel a user may act for, with the flags its permission row grants. */
export interface ChannelAccess {
  channel: { id: number; name: string; slug: string };
  permissions: ChannelFlags;
  /** The preset last applied, for the answered role (docs/teams.md, Roles). */
  preset: { name: string; permissions: ChannelFlags } | null;
}

export interface SignInUserRepository {
  /** Case-insensitive, as the unique index. */
  findByEmail(email: string): Promise<SignInUser | null>;
  findById(id: number): Promise<SignInUser | null>;
  /** Records one failed sign-in and answers how many the user has had since `since`. */
  recordFailure(userId: number, ip: string | null, now: Date, since: Date): Promise<number>;
  /** Locks the account until `until`; the failures that led to it are forgotten. */
  lock(userId: number, until: Date): Promise<void>;
  /** A successful sign-in: failures forgotten, last_login_at set. */
  recordSignIn(userId: number, now: Date): Promise<void>;
  /** The channels the user has a permission row for, lowest id first. */
  channelAccess(userId: number): Promise<ChannelAccess[]>;
  /** Every channel of the installation, lowest id first (a sudo user's). */
  allChannels(): Promise<Array<{ id: number; name: string; slug: string }>>;
  /** One channel of the installation (a sudo user's named channel), or null. */
  channel(id: number): Promise<{ id: number; name: string; slug: string } | null>;
}
export const SignInUserRepository = Symbol.for('mailcast.SignInUserRepository');

export interface UserSessionRepository {
  create(
    session: { userId: number; tokenHash: Uint8Array; csrfHash: Uint8Array; twoFactorPassed: boolean; ip: string | null; userAgent: string | null },
    now: Date,
  ): Promise<UserSession>;
  /** The session whose cookie hash matches, revoked or not; the caller decides. */
  findByTokenHash(hash: Uint8Array): Promise<(UserSession & { tokenHash: Uint8Array; csrfHash: Uint8Array }) | null>;
  touch(id: number, now: Date): Promise<void>;
  /** Revokes one session of the user; false when the user has no such live session. */
  revoke(userId: number, id: number, now: Date): Promise<boolean>;
  /** Revokes every live session of the user, but `exceptId`. Answers how many. */
  revokeAllOf(userId: number, now: Date, exceptId?: number): Promise<number>;
  /** The user's sessions not revoked and seen since `seenSince`, newest first. */
  listLive(userId: number, seenSince: Date): Promise<UserSession[]>;
  /** The second factor was given on this session (t37-mfa's verify and OIDC). */
  markTwoFactorPassed(id: number): Promise<void>;
}
export const UserSessionRepository = Symbol.for('mailcast.UserSessionRepository');

/**
 * Sign-in's writes of passwords, each in one transaction with the sessions it ends (the reset rows
 * themselves are made by the users API's IssuePasswordReset, docs/teams.md).
 */
export interface SignInPasswords {
  /**
   * Marks the unused, unexpired reset whose hash matches as used (and the user's other open
   * ones), sets the user's password hash, clears the lockout and revokes every session of the
   * user. Answers the user's id, or null when no such reset exists (used, expired, unknown, or
   * the user inactive).
   */
  redeem(tokenHash: Uint8Array, passwordHash: string, now: Date): Promise<number | null>;
  /** Sets a new password hash and revokes every session of the user but `keepSessionId`. */
  changePassword(userId: number, passwordHash: string, now: Date, keepSessionId: number): Promise<void>;
}
export const SignInPasswords = Symbol.for('mailcast.SignInPasswords');

import type { ChannelFlags, SystemPermissions } from '@mailcast/domain';

/** A user as stored (docs/teams.md, Users API); the password hash never leaves the adapter. */
export interface User {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  active: boolean;
  sudo: boolean;
  lockedUntil: Date | null;
  twoFactorEnabled: boolean;
  lastLoginAt: Date | null;
  systemPermissions: SystemPermissions;
  createdAt: Date;
  updatedAt: Date;
}

export interface PermissionPreset {
  id: number;
  name: string;
  permissions: ChannelFlags;
}

/** A user's flags in one channel, with the preset last applied (for the answered role). */
export interface UserChannelPermission {
  channelId: number;
  channelName: string;
  permissions: ChannelFlags;
  preset: PermissionPreset | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface NewUser {
  email: string;
  firstName: string | null;
  lastName: string | null;
  passwordHash: string | null;
  /** The admin CLI's alone (docs/teams.md): never from the API. */
  sudo: boolean;
}

export interface UserChanges {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  passwordHash?: string;
}

export interface UserFilter {
  /** A substring of the email, first or last name, any case. */
  q?: string;
  status?: 'active' | 'inactive';
  limit: number;
  offset: number;
}

/** Raised by the repository when the email is another user's (the unique index, any case). */
export const EMAIL_TAKEN = 'Email has already been taken';

/**
 * The users, their channel and system permissions, and the presets (migration
 * 20261202000001_users_and_audit). Each method is one transaction; a write that revokes
 * sessions does so in the same one.
 */
export interface UserRepository {
  list(filter: UserFilter): Promise<{ items: User[]; total: number }>;
  findById(id: number): Promise<User | null>;
  /** Throws ValidationError(EMAIL_TAKEN) on a duplicate address. */
  create(user: NewUser): Promise<User>;
  /** A new password hash revokes every live session of the user (docs/teams.md). */
  update(id: number, changes: UserChanges, now: Date): Promise<User>;
  delete(id: number): Promise<boolean>;
  /** Deactivating revokes the user's sessions; activating also clears the lockout. */
  setActive(id: number, active: boolean, now: Date): Promise<User>;
  setSudo(id: number, sudo: boolean): Promise<User | null>;
  setSystemPermissions(id: number, permissions: SystemPermissions): Promise<User>;
  channelPermissions(userId: number): Promise<UserChannelPermission[]>;
  channelPermission(userId: number, channelId: number): Promise<UserChannelPermission | null>;
  /** Creates or replaces the user's row for the channel; null when the channel does not exist. */
  putChannelPermission(userId: number, channelId: number, permissions: ChannelFlags, presetId: number | null): Promise<UserChannelPermission | null>;
  deleteChannelPermission(userId: number, channelId: number): Promise<boolean>;
  findPreset(id: number): Promise<PermissionPreset | null>;
  /** Throws ValidationError when the name is taken (any case). */
  createPreset(name: string, permissions: ChannelFlags): Promise<PermissionPreset>;
}
export const UserRepository = Symbol.for('mailcast.UserRepository');

/** argon2id (docs/teams.md, Passwords): the PHC string to store, and its check. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /**
   * With hash null (no such user, no password set) the same work is done against a hash of
   * nothing and the answer is false: sign-in's time does not tell whether an account exists.
   */
  verify(hash: string | null, password: string): Promise<boolean>;
}
export const PasswordHasher = Symbol.for('mailcast.PasswordHasher');

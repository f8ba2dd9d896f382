import { CHANNEL_FLAGS, SYSTEM_PERMISSIONS, type ChannelFlags, type Permission, type SystemPermissions } from '@mailcast/domain';
import { ForbiddenError, NotFoundError } from '../errors';
import { requirePermission, type Principal } from '../auth/authenticate';
import type { User, UserChannelPermission, UserRepository } from '../ports';

export const USERS_ADMIN_ONLY = 'Admin API token required for user management';
export const SUDO_UNTOUCHABLE = 'Sudo users cannot be changed through the API';
export const USER_NOT_FOUND = 'User not found';
export const OWN_PERMISSIONS = 'You cannot change your own permissions';
export const NOT_HELD = 'You cannot grant permissions you do not hold';
export const OUTRANKED = 'You cannot change a user who holds permissions you do not hold';

/**
 * Who may manage users (docs/teams.md, Users API): an admin token, or a signed-in user (its
 * principal carries users_* only when its system permission user_management is on). A channel
 * token gets 403 before its body is read; then the permission, as everywhere (401 without).
 */
export function requireUserManager(caller: Principal, permission: Extract<Permission, 'users_read' | 'users_write'>): void {
  if (caller.admin !== true && caller.userId === undefined) throw new ForbiddenError(USERS_ADMIN_ONLY);
  requirePermission(caller, permission);
}

export async function findUser(users: UserRepository, id: number): Promise<User> {
  const user = await users.findById(id);
  if (user === null) throw new NotFoundError(USER_NOT_FOUND);
  return user;
}

/** A write's target: it exists and is not sudo (sudo is the admin CLI's alone). */
export async function writableUser(users: UserRepository, id: number): Promise<User> {
  const user = await findUser(users, id);
  if (user.sudo) throw new ForbiddenError(SUDO_UNTOUCHABLE);
  return user;
}

/**
 * What a caller may hand out (docs/teams.md, No escalation): null for an admin token or a sudo
 * user (everything); for any other signed-in user, its own system permissions and flags.
 */
export interface Powers {
  userId: number;
  system: SystemPermissions;
  channels: ReadonlyMap<number, ChannelFlags>;
}

export async function powersOf(caller: Principal, users: UserRepository): Promise<Powers | null> {
  if (caller.admin === true || caller.userId === undefined) return null;
  const self = await users.findById(caller.userId);
  if (self === null || !self.active) throw new ForbiddenError(USERS_ADMIN_ONLY);
  if (self.sudo) return null;
  const rows = await users.channelPermissions(self.id);
  return { userId: self.id, system: self.systemPermissions, channels: new Map(rows.map((r) => [r.channelId, r.permissions])) };
}

/** Flags granted in a channel that the caller does not hold there. */
export function flagsNotHeld(powers: Powers | null, channelId: number, flags: ChannelFlags): string[] {
  if (powers === null) return [];
  const held = powers.channels.get(channelId);
  return CHANNEL_FLAGS.filter((f) => flags[f] && held?.[f] !== true);
}

export function assertMayGrantFlags(powers: Powers | null, channelId: number, flags: ChannelFlags): void {
  const missing = flagsNotHeld(powers, channelId, flags);
  if (missing.length > 0) throw new ForbiddenError(`${NOT_HELD}: ${missing.join(', ')}`);
}

export function assertMayGrantSystem(powers: Powers | null, permissions: SystemPermissions): void {
  if (powers === null) return;
  const missing = SYSTEM_PERMISSIONS.filter((p) => permissions[p] && !powers.system[p]);
  if (missing.length > 0) throw new ForbiddenError(`${NOT_HELD}: ${missing.join(', ')}`);
}

/** A signed-in user never changes its own permissions, even to fewer (someone else must). */
export function assertNotOwnPermissions(powers: Powers | null, target: User): void {
  if (powers !== null && powers.userId === target.id) throw new ForbiddenError(OWN_PERMISSIONS);
}

/**
 * A signed-in user changes only users whose every permission it holds too: otherwise changing
 * their email or password, say, would hand it what they hold.
 */
export function assertOutranks(powers: Powers | null, target: User, targetChannels: readonly UserChannelPermission[]): void {
  if (powers === null || powers.userId === target.id) return;
  const systemOk = SYSTEM_PERMISSIONS.every((p) => !target.systemPermissions[p] || powers.system[p]);
  const channelsOk = targetChannels.every((row) => flagsNotHeld(powers, row.channelId, row.permissions).length === 0);
  if (!systemOk || !channelsOk) throw new ForbiddenError(OUTRANKED);
}

/** The checks every write to another user makes: not sudo, not above the caller. */
export async function changeableUser(users: UserRepository, caller: Principal, id: number): Promise<{ user: User; powers: Powers | null }> {
  const user = await writableUser(users, id);
  const powers = await powersOf(caller, users);
  if (powers !== null) assertOutranks(powers, user, await users.channelPermissions(user.id));
  return { user, powers };
}

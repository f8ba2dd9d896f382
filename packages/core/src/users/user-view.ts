import { roleOf } from '@mailcast/domain';
import type { User, UserChannelPermission } from '../ports';

/** A user as answered: `locked` while a lockout runs (docs/teams.md, Lockout). */
export type UserView = User & { locked: boolean };

export function viewOf(user: User, now: Date): UserView {
  return { ...user, locked: user.lockedUntil !== null && user.lockedUntil.getTime() > now.getTime() };
}

export interface UserDetail {
  user: UserView;
  channelPermissions: ChannelPermissionView[];
}

export type ChannelPermissionView = UserChannelPermission & { role: string };

/** The answered role: a role's flags exactly, else the untouched preset's name, else Custom. */
export function permissionView(row: UserChannelPermission): ChannelPermissionView {
  return { ...row, role: roleOf(row.permissions, row.preset) };
}

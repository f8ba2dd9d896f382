import type { ChannelPermissionView, UserDetail, UserView } from '@mailcast/core';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** A user as the API shows it (docs/teams.md, Users API); never the password hash. */
export function presentUser(u: UserView) {
  return {
    id: u.id,
    email: u.email,
    first_name: u.firstName,
    last_name: u.lastName,
    active: u.active,
    locked: u.locked,
    sudo: u.sudo,
    two_factor_enabled: u.twoFactorEnabled,
    last_login_at: iso(u.lastLoginAt),
    created_at: u.createdAt.toISOString(),
    updated_at: u.updatedAt.toISOString(),
  };
}

export function presentChannelPermission(p: ChannelPermissionView) {
  return {
    broadcast_channel_id: p.channelId,
    broadcast_channel_name: p.channelName,
    role: p.role,
    permissions: p.permissions,
    created_at: p.createdAt.toISOString(),
    updated_at: p.updatedAt.toISOString(),
  };
}

/** Show and create: the user with its system and channel permissions. */
export function presentUserDetail(d: UserDetail) {
  return {
    ...presentUser(d.user),
    system_permissions: d.user.systemPermissions,
    channel_permissions: d.channelPermissions.map(presentChannelPermission),
  };
}

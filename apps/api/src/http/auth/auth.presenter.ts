import type { SessionChannel, SignInUser, UserSession } from '@mailcast/core';
import { systemPermissionsOf } from '@mailcast/domain';

/** The signed-in user as /auth answers it (docs/teams.md, Signing in). */
export function presentSessionUser(user: SignInUser) {
  return {
    id: user.id,
    email: user.email,
    first_name: user.firstName,
    last_name: user.lastName,
    sudo: user.sudo,
    two_factor_enabled: user.twoFactorEnabled,
    system_permissions: systemPermissionsOf(user.systemPermissions),
  };
}

export function presentSessionChannel(channel: SessionChannel) {
  return { id: channel.id, name: channel.name, slug: channel.slug, role: channel.role, permissions: channel.permissions };
}

export function presentUserSession(session: UserSession, currentId: number) {
  return {
    id: session.id,
    created_at: session.createdAt.toISOString(),
    last_seen_at: session.lastSeenAt.toISOString(),
    ip: session.ip,
    user_agent: session.userAgent,
    current: session.id === currentId,
  };
}
